"""PNG plots of one report (matplotlib). Only panels with something to show
are drawn; a report with nothing to plot gets a message instead of a figure."""
import io
import os

from . import compare
from .model import size_class
from .text import verdict_lines

CALLS_SHOWN = 12


class NoMatplotlib(Exception):
    pass


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise NoMatplotlib("plots need matplotlib (Debian: python3-matplotlib)")
    return plt


def _labels(ax, names):
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30 if len(names) > 3 else 0,
                       ha="right" if len(names) > 3 else "center")


def panels(r):
    """[(title, draw(ax))] for what this report has to show."""
    out = []
    coded = {n: o for n, o in r.operations.items() if o.get("compressed_calls")}
    if coded:
        names = sorted(coded, key=lambda n: -coded[n].get("bytes_in", 0))

        def bytes_panel(ax):
            x = range(len(names))
            ax.bar([j - 0.2 for j in x], [coded[n].get("bytes_in", 0) / 1e6 for n in names],
                   0.4, label="given to the codecs")
            bars = ax.bar([j + 0.2 for j in x], [coded[n].get("bytes_wire", 0) / 1e6
                                                 for n in names], 0.4, label="on the wire")
            for bar, n in zip(bars, names):
                bw = coded[n].get("bytes_wire", 0)
                if bw:
                    ax.annotate("%.2fx" % (coded[n].get("bytes_in", 0) / bw),
                                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                                ha="center", va="bottom", fontsize=8)
            ax.set_ylabel("MB, summed over ranks")
            _labels(ax, names)
            ax.legend(fontsize=8)
        out.append(("bytes of the compressed calls (ratio above)", bytes_panel))

        saved = [r.gross_seconds(n, coded[n]) for n in names]
        if all(s is not None for s in saved):
            def time_panel(ax):
                x = range(len(names))
                ax.bar([j - 0.2 for j in x], [r.codec_seconds(coded[n]) for n in names], 0.4,
                       label="codec time")
                ax.bar([j + 0.2 for j in x], saved, 0.4, label="wire time saved")
                ax.set_ylabel("s, summed over ranks")
                _labels(ax, names)
                ax.legend(fontsize=8)
            out.append(("codec time against wire time saved", time_panel))

    calls = sorted(r.mpi_calls.items(), key=lambda kv: -kv[1].get("seconds", 0))[:CALLS_SHOWN]
    calls = [(n, c) for n, c in calls if c.get("per_rank_seconds")]
    if calls:
        def calls_panel(ax):
            mean = [c["per_rank_seconds"]["mean"] for _, c in calls]
            lo = [m - c["per_rank_seconds"]["min"] for m, (_, c) in zip(mean, calls)]
            hi = [c["per_rank_seconds"]["max"] - m for m, (_, c) in zip(mean, calls)]
            ax.bar(range(len(calls)), mean, yerr=[lo, hi], capsize=3)
            _labels(ax, [n for n, _ in calls])
            ax.set_ylabel("s per rank (bar: mean; line: min..max)")
        out.append(("time in intercepted MPI calls", calls_panel))

    sized = [(n, c) for n, c in calls if c.get("sizes")][:5]
    classes = sorted({z["bytes_from"] for _, c in sized for z in c["sizes"]})
    if classes:
        def sizes_panel(ax):
            width = 0.8 / len(sized)
            for j, (n, c) in enumerate(sized):
                by = {z["bytes_from"]: z["seconds"] for z in c["sizes"]}
                ax.bar([i + j * width for i in range(len(classes))],
                       [by.get(k, 0) for k in classes], width, label=n)
            ax.set_xticks([i + 0.4 - width / 2 for i in range(len(classes))])
            ax.set_xticklabels([size_class(k) for k in classes],
                               rotation=30 if len(classes) > 3 else 0)
            ax.set_ylabel("s in the call, summed over ranks")
            ax.legend(fontsize=8)
        out.append(("time by message size", sizes_panel))

    if len(r.ranks) > 1:
        def ranks_panel(ax):
            x = [str(p.get("rank")) for p in r.ranks]
            ax.bar(x, [p.get("wall_s", 0) for p in r.ranks], label="wall", color="#cccccc")
            ax.bar(x, [p.get("mpi_s", 0) for p in r.ranks], label="in intercepted MPI")
            ax.set_xlabel("rank")
            ax.set_ylabel("s")
            if len(x) > 16:
                ax.set_xticks(range(0, len(x), max(1, len(x) // 16)))
            ax.legend(fontsize=8)
        out.append(("time per rank", ranks_panel))

    sites = sorted(r.sites, key=lambda s: -s.get("time_s", 0))[:8]
    if sites:
        def sites_panel(ax):
            labels = ["%s %s" % (s.get("call", "?"), str(s.get("site", "?"))[-30:])
                      for s in sites]
            ax.barh(range(len(sites)), [s.get("time_s", 0) for s in sites])
            ax.set_yticks(range(len(sites)))
            ax.set_yticklabels(labels, fontsize=7)
            ax.invert_yaxis()
            ax.set_xlabel("s, summed over ranks")
        out.append(("call sites by time", sites_panel))
    return out


def _png(drawn, title):
    """The panels [(title, draw(ax))] on one figure, as PNG bytes."""
    plt = _pyplot()
    cols = min(3, len(drawn))
    rows = (len(drawn) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 4.2 * rows + 0.8), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax, (panel_title, draw) in zip(flat, drawn):
        draw(ax)
        ax.set_title(panel_title, fontsize=10)
    for ax in flat[len(drawn):]:
        fig.delaxes(ax)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    plt.close(fig)
    return buf.getvalue()


def figure_png(r):
    """(PNG bytes, None), or (None, why there is nothing to plot)."""
    _pyplot()
    drawn = panels(r)
    if not drawn:
        return None, ("nothing to plot: no intercepted call was timed and nothing was "
                      "compressed (was ADACOMP_REPORT set for a run that made MPI calls?)")
    return _png(drawn, "AdaComp: %s\n%s" % (os.path.basename(r.path),
                                            verdict_lines(r)[0][:160])), None


def _side_by_side(rows, key_a, key_b, scale, ylabel, labels):
    def draw(ax):
        x = range(len(rows))
        ax.bar([j - 0.2 for j in x], [(r[key_a] or 0) * scale for r in rows], 0.4,
               label=labels[0])
        ax.bar([j + 0.2 for j in x], [(r[key_b] or 0) * scale for r in rows], 0.4,
               label=labels[1])
        _labels(ax, [r["name"] for r in rows])
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8)
    return draw


def compare_png(a, b):
    """(PNG bytes, None) of B against A per MPI call and operation, or (None, why not)."""
    _pyplot()
    calls = [r for r in compare.call_rows(a, b) if r["time_a"] or r["time_b"]][:CALLS_SHOWN]
    moved = [r for r in compare.operation_rows(a, b)
             if r["wire_a"] is not None and r["wire_b"] is not None and r["name"] != "recv"]
    drawn, labels = [], ("A: " + a.label, "B: " + b.label)
    if calls:
        drawn.append(("time in each MPI call", _side_by_side(
            calls, "time_a", "time_b", 1, "s, summed over ranks", labels)))
    if moved:
        drawn.append(("bytes moved per operation", _side_by_side(
            moved, "wire_a", "wire_b", 1e-6, "MB, summed over ranks", labels)))
    if not drawn:
        return None, "nothing to plot: neither report has call times or byte counts"
    return _png(drawn, "AdaComp: %s (B) against %s (A)" % (os.path.basename(b.path),
                                                        os.path.basename(a.path))), None


def file_names(reports, outdir):
    """DIR/<input name>.png per report; inputs of the same name get -2, -3, ..."""
    seen, names = {}, []
    for r in reports:
        n = seen.get(r.label, 0) + 1
        seen[r.label] = n
        names.append(os.path.join(outdir, r.label + ("" if n == 1 else "-%d" % n) + ".png"))
    return names
