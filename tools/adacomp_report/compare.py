"""Two reports side by side (A, then B): per operation, MPI call, call site
and region, time and bytes on the wire with the ratio B/A, and the totals.
The rows are also what --csv writes."""
from .model import mb, on_wire, ratio


def _sum(values):
    values = list(values)
    return None if not values or any(v is None for v in values) else sum(values)


def describe(r):
    """How a run was made, in one line: its settings that differ from the
    defaults, or the sources of its settings."""
    chosen = ["%s=%s" % (s["key"], s["value"]) for s in r.settings
              if s["source"] and s["source"] != "default" and s["key"] != "ADACOMP_REPORT"]
    if not chosen and r.setting("ADACOMP_MODE", "mode"):
        chosen = ["mode %s" % r.setting("ADACOMP_MODE", "mode")]
    how = ", ".join(chosen + ([r.setting_sources] if r.setting_sources and not r.settings else []))
    how = how or "default settings"
    run = r.run
    hosts = len(run.get("hosts") or [])
    return "%s: %s ranks on %s host%s; %s" % (r.path, run.get("ranks", "?"), hosts or "?",
                                             "" if hosts == 1 else "s", how)


def totals(a, b):
    """[(label, A, B, format)]."""
    rows = []
    for key, label in (("wall_seconds", "wall (Init..Finalize), mean per rank, s"),
                       ("mpi_seconds", "in intercepted MPI, mean per rank, s")):
        rows.append((label, a.mean(key), b.mean(key), "%.4f"))
    rows.append(("codec time, summed over ranks, s",
                 sum(a.codec_seconds(o) for o in a.operations.values()),
                 sum(b.codec_seconds(o) for o in b.operations.values()), "%.4f"))
    # Where both reports can tell; a received message was moved by its send.
    names = [n for n in sorted((set(a.operations) | set(b.operations)) - {"recv"})
             if a.wire(n) is not None and b.wire(n) is not None]
    rows.append(("bytes moved, operations known in both", _sum(a.wire(n) for n in names),
                 _sum(b.wire(n) for n in names), "mb"))
    rows.append(("net time coding saved, summed over ranks, s",
                 _sum(a.net_seconds(n, o) for n, o in a.operations.items()),
                 _sum(b.net_seconds(n, o) for n, o in b.operations.items()), "%.4f"))
    if a.ranks or b.ranks:
        rows.append(("coded frames, summed over ranks",
                     _sum(x.get("wire_bytes") for x in a.ranks) if a.ranks else None,
                     _sum(x.get("wire_bytes") for x in b.ranks) if b.ranks else None, "mb"))
    if a.verdict or b.verdict:
        rows.append(("saved according to the verdict, s",
                     (a.verdict or {}).get("saved_s"), (b.verdict or {}).get("saved_s"), "%.4f"))
    return rows


def operation_rows(a, b):
    """Per operation: calls, time in its calls, bytes on the wire, codec time."""
    rows = []
    for name in sorted(set(a.operations) | set(b.operations)):
        oa, ob = a.operations.get(name, {}), b.operations.get(name, {})
        rows.append({"table": "operation", "name": name,
                     "calls_a": oa.get("calls", 0), "calls_b": ob.get("calls", 0),
                     "compressed_a": oa.get("compressed_calls", 0),
                     "compressed_b": ob.get("compressed_calls", 0),
                     "time_a": a.call_seconds(name), "time_b": b.call_seconds(name),
                     "wire_a": a.wire(name), "wire_b": b.wire(name),
                     "codec_a": a.codec_seconds(oa) if oa else 0.0,
                     "codec_b": b.codec_seconds(ob) if ob else 0.0})
    return rows


def call_rows(a, b):
    rows = []
    for name in sorted(set(a.mpi_calls) | set(b.mpi_calls),
                       key=lambda n: -max(a.mpi_calls.get(n, {}).get("seconds", 0),
                                          b.mpi_calls.get(n, {}).get("seconds", 0))):
        ca, cb = a.mpi_calls.get(name, {}), b.mpi_calls.get(name, {})
        rows.append({"table": "call", "name": name, "calls_a": ca.get("calls", 0),
                     "calls_b": cb.get("calls", 0), "time_a": ca.get("seconds"),
                     "time_b": cb.get("seconds")})
    return rows


def site_rows(a, b):
    """Per call site: time, and the frames its coded calls sent."""
    key = lambda s: (str(s.get("call", "?")), str(s.get("site", "?")))
    sa, sb = {key(s): s for s in a.sites}, {key(s): s for s in b.sites}
    rows = []
    busiest = lambda k: -max(sa.get(k, {}).get("time_s", 0), sb.get(k, {}).get("time_s", 0))
    for k in sorted(set(sa) | set(sb), key=busiest):
        x, y = sa.get(k, {}), sb.get(k, {})
        rows.append({"table": "site", "name": "%s at %s" % k, "calls_a": x.get("calls", 0),
                     "calls_b": y.get("calls", 0), "time_a": x.get("time_s"),
                     "time_b": y.get("time_s"), "frames_a": x.get("wire_bytes"),
                     "frames_b": y.get("wire_bytes")})
    return rows


def region_rows(a, b):
    """Per MPI_Pcontrol level and operation: calls, coded calls, frames."""
    ra = {(lvl, n): o for lvl, ops in a.regions for n, o in ops.items()}
    rb = {(lvl, n): o for lvl, ops in b.regions for n, o in ops.items()}
    rows = []
    for k in sorted(set(ra) | set(rb), key=lambda k: (str(k[0]), k[1])):
        x, y = ra.get(k, {}), rb.get(k, {})
        rows.append({"table": "region", "name": "level %s %s" % k,
                     "calls_a": x.get("calls", 0), "calls_b": y.get("calls", 0),
                     "compressed_a": x.get("compressed_calls", 0),
                     "compressed_b": y.get("compressed_calls", 0),
                     "frames_a": x.get("bytes_wire", 0), "frames_b": y.get("bytes_wire", 0)})
    return rows


def all_rows(a, b):
    return operation_rows(a, b) + call_rows(a, b) + site_rows(a, b) + region_rows(a, b)


def _s(v, fmt="%.4f"):
    return "?" if v is None else fmt % v


def headline(a, b):
    """Whether B helped, in a sentence: the time in intercepted MPI, and the
    calls whose time changed most either way."""
    ma, mb_ = a.mean("mpi_seconds"), b.mean("mpi_seconds")
    if not ma or mb_ is None:
        return "The reports have no MPI time (schema 0): compare the operations below."
    change = "less" if mb_ < ma else "more"
    line = ("B spent %.2fx A's time in intercepted MPI (%.4f s against %.4f s per rank on "
            "average): %.4f s %s." % (mb_ / ma, mb_, ma, abs(ma - mb_), change))
    rows = [r for r in call_rows(a, b) if r["time_a"] and r["time_b"] is not None]
    gain = max(rows, key=lambda r: r["time_a"] - r["time_b"], default=None)
    loss = max(rows, key=lambda r: r["time_b"] - r["time_a"], default=None)
    parts = ["%s %s (%.4f s, %s)" % (what, r["name"], abs(r["time_a"] - r["time_b"]),
                                      ratio(r["time_b"], r["time_a"]))
             for what, r, sign in (("largest gain:", gain, 1), ("largest loss:", loss, -1))
             if r and sign * (r["time_a"] - r["time_b"]) > 0]
    if parts:
        line += " Summed over ranks, " + "; ".join(parts) + "."
    return line


def compare(a, b):
    out = ["AdaComp comparison, B against A",
           "  A  " + describe(a), "  B  " + describe(b)]
    if a.run.get("command") != b.run.get("command") or a.run.get("ranks") != b.run.get("ranks"):
        out.append("  (the runs differ in command or ranks: the ratios compare different work)")
    out += ["", headline(a, b)]
    for name, v in (("A", a.verdict), ("B", b.verdict)):
        if v:
            out.append("  %s's verdict: %s" % (name, v.get("text") or v.get("reason", "?")))
    out += ["", "%-40s %14s %14s %8s" % ("Totals", "A", "B", "B/A")]
    for label, va, vb, fmt in totals(a, b):
        shown = (mb(va), mb(vb)) if fmt == "mb" else (_s(va, fmt), _s(vb, fmt))
        out.append("%-40s %14s %14s %8s" % (label, shown[0], shown[1], ratio(vb, va)))
    out += ["", "Per operation (summed over ranks; time: of its calls; moved: the payload the "
            "ranks passed, coded calls counted at their frames' size; '?': the report cannot "
            "tell):",
            "%-21s %13s %10s %10s %7s %11s %11s %7s %9s %9s" % (
                "operation", "calls A/B", "time A s", "time B s", "B/A", "moved A", "moved B",
                "B/A", "codec A s", "codec B s")]
    for r in operation_rows(a, b):
        out.append("%-21s %13s %10s %10s %7s %11s %11s %7s %9.4f %9.4f" % (
            r["name"], "%d/%d" % (r["calls_a"], r["calls_b"]), _s(r["time_a"]), _s(r["time_b"]),
            ratio(r["time_b"], r["time_a"]), mb(r["wire_a"]), mb(r["wire_b"]),
            ratio(r["wire_b"], r["wire_a"]), r["codec_a"], r["codec_b"]))
    rows = call_rows(a, b)
    if rows:
        out += ["", "Per MPI call (summed over ranks):",
                "%-21s %13s %10s %10s %7s" % ("call", "calls A/B", "time A s", "time B s", "B/A")]
        for r in rows:
            out.append("%-21s %13s %10s %10s %7s" % (
                r["name"], "%d/%d" % (r["calls_a"], r["calls_b"]), _s(r["time_a"]),
                _s(r["time_b"]), ratio(r["time_b"], r["time_a"])))
    rows = site_rows(a, b)
    if rows:
        out += ["", "Per call site (summed over ranks; frames: what its coded calls sent):",
                "%-44s %11s %10s %10s %7s %11s %11s" % (
                    "", "calls A/B", "time A s", "time B s", "B/A", "frames A", "frames B")]
        for r in rows:
            out.append("%-44s %11s %10s %10s %7s %11s %11s" % (
                r["name"][:44], "%d/%d" % (r["calls_a"], r["calls_b"]), _s(r["time_a"]),
                _s(r["time_b"]), ratio(r["time_b"], r["time_a"]), mb(r["frames_a"]),
                mb(r["frames_b"])))
    rows = region_rows(a, b)
    if rows:
        out += ["", "Per MPI_Pcontrol region (summed over ranks):",
                "%-32s %11s %13s %11s %11s" % ("", "calls A/B", "coded A/B", "frames A",
                                               "frames B")]
        for r in rows:
            out.append("%-32s %11s %13s %11s %11s" % (
                r["name"][:32], "%d/%d" % (r["calls_a"], r["calls_b"]),
                "%d/%d" % (r["compressed_a"], r["compressed_b"]), mb(r["frames_a"]),
                mb(r["frames_b"])))
    return "\n".join(out)

