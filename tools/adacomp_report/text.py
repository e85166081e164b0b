"""The text summary of one report: the verdict first, then the run, where
the time went, what was compressed, and what to change."""
import textwrap

from .model import call_operation, mb, size_class

SITES_SHOWN = 15


def rng(r):
    return "%.4g / %.4g / %.4g" % (r["min"], r["mean"], r["max"])


def verdict_lines(r):
    """The library's verdict, or the tool's own when the report predates it."""
    v = r.verdict
    if v:
        out = [v.get("text") or v.get("reason") or "?"]
        if v.get("next_step"):
            out.append("Next step: %s" % v["next_step"])
        return out
    sent = [o for n, o in r.operations.items() if n != "recv"]  # a message counts once
    wire = sum(o.get("bytes_wire", 0) for o in sent)
    if not wire:
        if r.setting("ADACOMP_MODE", "mode") == "raw":
            return ["AdaComp passed everything through: ADACOMP_MODE=raw (a reference run)."]
        if len(r.run.get("hosts") or []) == 1 and not r.setting("ADACOMP_NODE_MAP", "nodes"):
            return ["AdaComp compressed nothing: all ranks ran on one host, where it passes "
                    "everything through by design (shared memory beats any codec)."]
        return ["AdaComp compressed nothing in this run: see the operations below."]
    codec = sum(r.codec_seconds(o) for o in r.operations.values())
    net = [r.net_seconds(n, o) for n, o in r.operations.items()
           if o.get("compressed_calls")]
    if any(x is None for x in net):
        return ["AdaComp compressed %s into %s; codec time %.3f s, wire time saved unknown "
                "(no link figure in this report)."
                % (mb(sum(o.get("bytes_in", 0) for o in sent)), mb(wire), codec)]
    return ["AdaComp's coding saved an estimated net %.3f s (wire time saved less %.3f s of "
            "codec time, summed over ranks)%s." % (sum(net), codec,
                                                   "" if sum(net) >= 0 else ": a LOSS")]


def header(r, out):
    run = r.run
    if not run:
        out.append("  (schema 0 report: no header; counters only)")
        return
    out.append("  version:  AdaComp %s, built for %s; running %s"
               % (run.get("version", "?"), run.get("mpi_built_for", "?"),
                  " ".join(str(run.get("mpi_library", "?")).split())))
    out.append("  command:  %s" % run.get("command", "?"))
    hosts = run.get("hosts", [])
    out.append("  ranks:    %s on %d host%s: %s" % (
        run.get("ranks", "?"), len(hosts), "" if len(hosts) == 1 else "s",
        "; ".join("%s (%s)" % (h["name"], ", ".join(map(str, h["ranks"]))) for h in hosts)))
    if run.get("job_id"):
        out.append("  job:      %s" % run["job_id"])
    out.append("  time:     %s to %s" % (run.get("start", "?"), run.get("end", "?")))
    if r.settings:
        chosen = [s for s in r.settings if s["source"] and s["source"] != "default"]
        out.append("  settings:")
        for s in chosen:
            out.append("    %s = %s   (%s)" % (s["key"], s["value"], s["source"]))
        defaults = ", ".join("%s=%s" % (s["key"].replace("ADACOMP_", ""), s["value"])
                             for s in r.settings if s not in chosen)
        if defaults:
            out.extend(textwrap.wrap("defaults: " + defaults, 96, initial_indent="    ",
                                     subsequent_indent="      "))
    else:
        out.append("  settings: %s" % (r.setting_sources or "?"))
    link = r.link
    route = link.get("p2p_between_nodes")
    route = "; point-to-point between nodes %s" % route if route in ("direct", "framed") else ""
    if link.get("bandwidth_Bps"):
        source = link.get("source") or ("calibrated" if link.get("calibrated") else "measured")
        if link.get("raised_in_run") and link.get("probed_Bps"):
            source += ": %.4g MB/s at MPI_Init, raised during the run" % (link["probed_Bps"] / 1e6)
        out.append("  link:     %.4g MB/s, %.3g us (%s)%s"
                   % (link["bandwidth_Bps"] / 1e6, (link.get("latency_s") or 0) * 1e6,
                      source, route))
    else:
        out.append("  link:     not measured, not calibrated (default model)%s" % route)


def time_section(r, out, advice):
    wall, mpi = r.run.get("wall_seconds"), r.run.get("mpi_seconds")
    if not (wall and mpi and r.mpi_calls):
        return
    out.append("")
    out.append("Time per rank, min / mean / max (s):")
    out.append("  %-20s %s" % ("wall (Init..Finalize)", rng(wall)))
    out.append("  %-20s %s   (%.1f%% of wall on average)" % (
        "in intercepted MPI", rng(mpi), 100 * mpi["mean"] / wall["mean"] if wall["mean"] else 0))
    if mpi["max"] > 1.5 * mpi["min"] and mpi["max"] - mpi["min"] > 0.01:
        advice.append("imbalance: MPI time per rank ranges from %.3g to %.3g s; the "
                      "slowest ranks wait for the others" % (mpi["min"], mpi["max"]))
    if wall["mean"] > 0 and mpi["mean"] < 0.05 * wall["mean"]:
        advice.append("MPI takes %.1f%% of the run: compression cannot save much here"
                      % (100 * mpi["mean"] / wall["mean"]))
    out.append("")
    out.append("Intercepted MPI calls by time (per rank: min / mean / max s):")
    out.append("%-21s %9s %10s %7s   %s" % ("call", "calls", "total s", "% wall", "per rank"))
    for name, c in sorted(r.mpi_calls.items(), key=lambda kv: -kv[1].get("seconds", 0)):
        per = c.get("per_rank_seconds") or {"min": 0, "mean": 0, "max": 0}
        share = 100 * per["mean"] / wall["mean"] if wall["mean"] else 0
        out.append("%-21s %9d %10.4f %6.1f%%   %s" % (
            name, c.get("calls", 0), c.get("seconds", 0), share, rng(per)))
    sized = [(n, c) for n, c in r.mpi_calls.items() if c.get("sizes")]
    if sized:
        out.append("")
        out.append("Message sizes (payload of each call, summed over ranks):")
        out.append("%-21s %-17s %9s %10s %10s" % ("call", "bytes", "calls", "total s", "mean us"))
        for name, c in sorted(sized, key=lambda kv: -kv[1].get("seconds", 0)):
            for z in c["sizes"]:
                out.append("%-21s %-17s %9d %10.4f %10.1f" % (
                    name, size_class(z["bytes_from"]), z["calls"], z["seconds"],
                    1e6 * z["seconds"] / z["calls"] if z["calls"] else 0))


def small(r, operation):
    """Whether every call of an operation was below 64 KB (the default
    ADACOMP_THRESHOLD_LOSSLESS), from the size histograms: nothing to advise."""
    sizes = [z["bytes_from"] for n, c in r.mpi_calls.items() if call_operation(n) == operation
             for z in c.get("sizes") or []]
    return bool(sizes) and max(sizes) < 65536


def operations_section(r, out, advice):
    out.append("")
    out.append("Compression by operation (summed over ranks; saved: wire time, before codec "
               "time; net: after it):")
    out.append("%-21s %9s %9s %12s %12s %7s %9s %9s %9s" % (
        "operation", "calls", "compr.", "bytes in", "bytes wire", "ratio", "codec s", "saved s",
        "net s"))
    tot = {"in": 0, "wire": 0, "codec": 0.0, "saved": 0.0, "net": 0.0, "known": True}
    nets = {n: r.net_seconds(n, o) for n, o in r.operations.items()}
    settled = []
    # A point-to-point message counts once: its bytes and the wire time they
    # saved on the send row, its decoding time on the receive row.
    for name, o in sorted(r.operations.items(), key=lambda kv: -kv[1].get("bytes_in", 0)):
        bi, bw = o.get("bytes_in", 0), o.get("bytes_wire", 0)
        codec, saved, net = r.codec_seconds(o), r.gross_seconds(name, o), nets[name]
        out.append("%-21s %9d %9d %12s %12s %7s %9.4f %9s %9s" % (
            name, o["calls"], o.get("compressed_calls", 0), mb(bi), mb(bw),
            "%.2f" % (bi / bw) if bw else "-", codec,
            "(send)" if name == "recv" else "%.4f" % saved if saved is not None else "?",
            "%.4f" % net if net is not None else "?"))
        tot["codec"] += codec
        if name != "recv":
            tot["in"] += bi
            tot["wire"] += bw
        if saved is None or net is None:
            tot["known"] = False
        else:
            tot["saved"] += saved
            tot["net"] += net
        for z in o.get("settled") or []:
            settled.append("  %-19s %-17s %-12s %s" % (name, size_class(z.get("size_class")),
                                                     z.get("codec", "?"), z.get("path", "?")))
        if not r.verdict and o.get("compressed_calls") == 0 and not small(r, name):
            advice.append("%s: %d calls, none compressed (below ADACOMP_THRESHOLD_LOSSLESS, "
                          "one node, or the model found it does not pay)" % (name, o["calls"]))
        elif bw and bi / bw < 1.1 and name != "recv":
            advice.append("%s: ratio %.2f: the data barely compresses; try adacomp-codecs on a "
                          "sample, or raise ADACOMP_THRESHOLD_LOSSLESS" % (name, bi / bw))
        if name == "send" and nets.get("recv") is not None and net is not None:
            net += nets["recv"]  # the messages' decoding too
        if name != "recv" and net is not None and o.get("compressed_calls") and net < 0:
            advice.append("%s: coding cost %.3f s more than the wire time it saved: raise "
                          "ADACOMP_THRESHOLD_LOSSLESS or recalibrate" % (name, -net))
    if not r.operations:
        out.append("  (no calls of a compressible operation)")
    if settled:
        out.append("")
        out.append("What the model settled on (operation, size class, codec, path):")
        out.extend(settled)
    out.append("")
    if tot["wire"]:
        out.append("Compressed traffic: %s in, %s on the wire (ratio %.2f)"
                   % (mb(tot["in"]), mb(tot["wire"]), tot["in"] / tot["wire"]))
    else:
        out.append("Nothing was compressed.")
    if tot["known"] and r.link.get("bandwidth_Bps"):
        out.append("Codec time %.3f s against an estimated %.3f s of wire time saved at %.4g MB/s "
                   "(summed over ranks): net %s %.3f s"
                   % (tot["codec"], tot["saved"], r.link["bandwidth_Bps"] / 1e6,
                      "gain" if tot["net"] >= 0 else "LOSS", abs(tot["net"])))
    else:
        out.append("Codec time %.3f s (summed over ranks); wire time saved unknown" % tot["codec"])
        if not r.verdict:
            advice.insert(0, "no link figure: run adacomp-calibrate on two nodes and install "
                             "its conf as PREFIX/etc/adacomp-<mpi>.conf")


def sites_section(r, out):
    if not r.sites:
        return
    out.append("")
    shown = sorted(r.sites, key=lambda s: -s.get("time_s", 0))[:SITES_SHOWN]
    out.append("Call sites by time (summed over ranks; %d of %d):" % (len(shown), len(r.sites)))
    out.append("%-16s %9s %10s %12s %12s %9s  %s" % ("call", "calls", "time s", "bytes",
                                                    "bytes wire", "net s", "site"))
    for s in shown:
        saved = s.get("saved_s")
        out.append("%-16s %9d %10.4f %12s %12s %9s  %s" % (
            s.get("call", "?"), s.get("calls", 0), s.get("time_s", 0), mb(s.get("bytes")),
            mb(s.get("wire_bytes")), "%.4f" % saved if saved is not None else "-",
            s.get("site", "?")))


def certificates_section(r, out):
    """Every lossy call site's certificate: the bound in force, the bound the
    library proves for its calls, and the error measured beside them
    (ADACOMP_LOSSY_CHECK=on), each the worst over the site's calls."""
    lossy = [s for s in r.sites if isinstance(s.get("certificate"), dict)]
    if not lossy:
        return
    out.append("")
    out.append("Lossy call sites (bound in force, proven for their calls, measured):")
    out.append("%-16s %9s %11s %-30s %11s %11s  %s" % ("call", "lossy", "bound", "relative",
                                                      "proven", "measured", "site"))
    for s in lossy:
        c = s["certificate"]
        rel = ("%.3g of [%.6g, %.6g]" % (c["bound_rel"], c["range"][0], c["range"][1])
               if c.get("bound_rel") is not None else "-")
        measured = c.get("measured_abs")
        measured = "-" if measured is None else measured if isinstance(measured, str) \
            else "%.3e" % measured
        out.append("%-16s %9d %11.3e %-30s %11.3e %11s  %s%s" % (
            s.get("call", "?"), s.get("lossy_calls", 0), c["bound_abs"], rel, c["proven_abs"],
            measured, s.get("site", "?"), "" if c.get("holds") else "  (EXCEEDS)"))


def ranks_section(r, out, all_ranks):
    if not r.ranks:
        return
    out.append("")
    cov = r.rank_cov
    if isinstance(cov, dict):
        cov = ", ".join("%s %.2f" % (k, v) for k, v in sorted(cov.items())
                        if isinstance(v, (int, float)))
    elif isinstance(cov, (int, float)):
        cov = "%.2f" % cov
    out.append("Per rank%s:" % (" (coefficient of variation: %s)" % cov if cov else ""))
    rows = r.ranks
    if not all_ranks and len(rows) > 8:
        by_mpi = sorted(rows, key=lambda x: x.get("mpi_s", 0))
        rows = by_mpi[:3] + by_mpi[-3:]
        out.append("  (the 3 ranks with least and most MPI time; --ranks shows all %d)"
                   % len(r.ranks))
    out.append("%6s %-14s %9s %9s %9s %12s %12s %9s" % ("rank", "host", "wall s", "MPI s",
                                                       "calls", "bytes", "bytes wire", "net s"))
    for x in rows:
        saved = x.get("saved_s")
        out.append("%6s %-14s %9.4f %9.4f %9d %12s %12s %9s" % (
            x.get("rank", "?"), str(x.get("host", "?"))[:14], x.get("wall_s", 0),
            x.get("mpi_s", 0), x.get("calls", 0), mb(x.get("bytes")), mb(x.get("wire_bytes")),
            "%.4f" % saved if saved is not None else "-"))


def regions_section(r, out):
    if not r.regions:
        return
    out.append("")
    out.append("Regions (MPI_Pcontrol level; operations summed over ranks):")
    out.append("%-8s %-21s %9s %9s %12s %12s" % ("level", "operation", "calls", "compr.",
                                                 "bytes in", "bytes wire"))
    for level, ops in r.regions:
        for name, o in sorted(ops.items()):
            out.append("%-8s %-21s %9d %9d %12s %12s" % (
                level, name, o.get("calls", 0), o.get("compressed_calls", 0),
                mb(o.get("bytes_in", 0)), mb(o.get("bytes_wire", 0))))


def summary(r, all_ranks=False):
    out = ["AdaComp report %s" % r.path]
    out.extend("  " + line for line in verdict_lines(r))
    out.append("")
    header(r, out)
    advice = []
    time_section(r, out, advice)
    operations_section(r, out, advice)
    sites_section(r, out)
    certificates_section(r, out)
    ranks_section(r, out, all_ranks)
    regions_section(r, out)
    if advice:
        out.append("")
        out.append("What to change:")
        out.extend("  - " + a for a in advice)
    return "\n".join(out)
