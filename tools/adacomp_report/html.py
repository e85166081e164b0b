"""One self-contained HTML job summary: the verdict, the run, the plots
(embedded as base64 PNG) and the tables, with nothing loaded from elsewhere."""
import base64
import html

from . import compare, plots
from .model import mb, ratio, size_class
from .text import verdict_lines

STYLE = """body{font-family:sans-serif;max-width:72em;margin:1em auto;padding:0 1em;color:#222}
.verdict{font-size:1.2em;background:#eef5ee;border-left:6px solid #4a4;padding:.6em 1em}
.next{background:#f5f3e6;border-left:6px solid #cb4;padding:.4em 1em}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 8px}
td.n{text-align:right;font-family:monospace}th{background:#f0f0f0}img{max-width:100%}
.note{color:#666}"""


def _e(v):
    return html.escape("" if v is None else str(v))


def table(head, rows, numeric_from=1):
    out = ["<table><tr>%s</tr>" % "".join("<th>%s</th>" % _e(h) for h in head)]
    for row in rows:
        out.append("<tr>%s</tr>" % "".join(
            '<td%s>%s</td>' % (' class="n"' if i >= numeric_from else "", _e(c))
            for i, c in enumerate(row)))
    out.append("</table>")
    return "\n".join(out)


def _f(v, fmt="%.4f"):
    return "?" if v is None else fmt % v


def section(r):
    out = ["<h2>%s</h2>" % _e(r.path)]
    lines = verdict_lines(r)
    out.append('<p class="verdict">%s</p>' % _e(lines[0]))
    out.extend('<p class="next">%s</p>' % _e(line) for line in lines[1:])
    run = r.run
    info = [("command", run.get("command")), ("AdaComp", run.get("version")),
            ("MPI", run.get("mpi_library")), ("ranks", run.get("ranks")),
            ("hosts", ", ".join("%s (%d)" % (h.get("name"), len(h.get("ranks", [])))
                                for h in run.get("hosts", []))),
            ("job", run.get("job_id")), ("start", run.get("start")), ("end", run.get("end"))]
    bw = r.link.get("bandwidth_Bps")
    info.append(("link", "%.4g MB/s, %.3g us (%s)" % (bw / 1e6, (r.link.get("latency_s") or 0)
                                                     * 1e6, r.link.get("source", "?"))
                 if bw else "not measured"))
    out.append(table(["", ""], [(k, v) for k, v in info if v not in (None, "")], 2))
    try:
        out.append(_image(*plots.figure_png(r), alt="plots of " + r.label))
    except plots.NoMatplotlib as e:
        out.append(_image(None, str(e), ""))
    if r.operations:
        out.append("<h3>Compression by operation (summed over ranks)</h3>")
        out.append(table(["operation", "calls", "compressed", "bytes in", "bytes on the wire",
                          "ratio", "codec s", "wire s saved", "net s"],
                         [(n, o["calls"], o.get("compressed_calls", 0), mb(o.get("bytes_in", 0)),
                           mb(o.get("bytes_wire", 0)),
                           "%.2f" % (o["bytes_in"] / o["bytes_wire"]) if o.get("bytes_wire")
                           else "-", "%.4f" % r.codec_seconds(o),
                           "(send)" if n == "recv" else _f(r.gross_seconds(n, o)),
                           _f(r.net_seconds(n, o)))
                          for n, o in sorted(r.operations.items())]))
        settled = [(n, size_class(s.get("size_class")), s.get("codec"), s.get("path"))
                   for n, o in sorted(r.operations.items()) for s in o.get("settled") or []]
        if settled:
            out.append("<h3>What the model settled on</h3>")
            out.append(table(["operation", "size class", "codec", "path"], settled, 9))
    if r.mpi_calls:
        out.append("<h3>Intercepted MPI calls by time</h3>")
        out.append(table(["call", "calls", "total s", "per rank min", "mean", "max"],
                         [(n, c.get("calls", 0), "%.4f" % c.get("seconds", 0))
                          + tuple("%.4g" % (c.get("per_rank_seconds") or {}).get(k, 0)
                                  for k in ("min", "mean", "max"))
                          for n, c in sorted(r.mpi_calls.items(),
                                             key=lambda kv: -kv[1].get("seconds", 0))]))
    if r.sites:
        out.append("<h3>Call sites</h3>")
        out.append(table(["site", "call", "calls", "time s", "bytes", "bytes on the wire",
                          "net s"],
                         [(s.get("site"), s.get("call"), s.get("calls"), _f(s.get("time_s")),
                           mb(s.get("bytes")), mb(s.get("wire_bytes")), _f(s.get("saved_s")))
                          for s in sorted(r.sites, key=lambda s: -s.get("time_s", 0))], 2))
    if r.ranks:
        out.append("<h3>Per rank</h3>")
        out.append(table(["rank", "host", "wall s", "MPI s", "calls", "bytes", "bytes on the wire",
                          "net s"],
                         [(x.get("rank"), x.get("host"), _f(x.get("wall_s")), _f(x.get("mpi_s")),
                           x.get("calls"), mb(x.get("bytes")), mb(x.get("wire_bytes")),
                           _f(x.get("saved_s"))) for x in r.ranks], 2))
    if r.regions:
        out.append("<h3>Regions (MPI_Pcontrol level)</h3>")
        out.append(table(["level", "operation", "calls", "compressed", "bytes in",
                          "bytes on the wire"],
                         [(lvl, n, o.get("calls", 0), o.get("compressed_calls", 0),
                           mb(o.get("bytes_in", 0)), mb(o.get("bytes_wire", 0)))
                          for lvl, ops in r.regions for n, o in sorted(ops.items())], 2))
    if r.settings:
        out.append("<h3>Settings</h3>")
        out.append(table(["setting", "value", "from"],
                         [(s["key"], s["value"], s["source"]) for s in r.settings], 9))
    elif r.setting_sources:
        out.append("<p>Settings from: %s</p>" % _e(r.setting_sources))
    return "\n".join(out)


def _image(png, why, alt):
    if png:
        return '<img alt="%s" src="data:image/png;base64,%s">' % (
            _e(alt), base64.b64encode(png).decode("ascii"))
    return '<p class="note">%s</p>' % _e(why)


def comparison(a, b):
    """B against A: the headline, the plots, the totals and the rows."""
    out = ["<h2>%s (B) against %s (A)</h2>" % (_e(b.path), _e(a.path)),
           '<p class="verdict">%s</p>' % _e(compare.headline(a, b))]
    try:
        out.append(_image(*plots.compare_png(a, b), alt="B against A"))
    except plots.NoMatplotlib as e:
        out.append(_image(None, str(e), ""))
    totals = [(label, *(mb(v) if fmt == "mb" else _f(v, fmt) for v in (va, vb)), ratio(vb, va))
              for label, va, vb, fmt in compare.totals(a, b)]
    out.append(table(["", "A", "B", "B/A"], totals))
    timed = lambda r: (r["name"], r["calls_a"], r["calls_b"], _f(r["time_a"]), _f(r["time_b"]),
                       ratio(r["time_b"], r["time_a"]))
    head = ["", "calls A", "calls B", "time A s", "time B s", "B/A"]
    out.append("<h3>Per operation (summed over ranks; moved: payload, coded calls at their "
               "frames' size)</h3>")
    out.append(table(head + ["moved A", "moved B", "B/A"],
                     [timed(r) + (mb(r["wire_a"]), mb(r["wire_b"]),
                                  ratio(r["wire_b"], r["wire_a"]))
                      for r in compare.operation_rows(a, b)]))
    for title, rows in (("Per MPI call", compare.call_rows(a, b)),
                        ("Per call site", compare.site_rows(a, b))):
        if rows:
            out.append("<h3>%s (summed over ranks)</h3>" % title)
            out.append(table(head, [timed(r) for r in rows]))
    return "\n".join(out)


def write(path, reports, pair=None):
    """The summary of every report; with pair (A, B), their comparison first."""
    title = "AdaComp: " + ", ".join(r.label for r in reports)
    with open(path, "w", encoding="utf-8") as f:
        f.write('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                "<title>%s</title><style>%s</style></head><body>\n<h1>%s</h1>\n"
                % (_e(title), STYLE, _e(title)))
        if pair:
            f.write(comparison(*pair) + "\n")
        f.write("\n".join(section(r) for r in reports))
        f.write('\n<p class="note">Written by adacomp-report; the fields are described in '
                "docs/report.md (share/doc/adacomp/docs/report.md).</p>\n</body></html>\n")
