"""adacomp-report advise: lossy rules (ADACOMP_LOSSY_RULES) from a report
written with ADACOMP_ADVISE=on, whose call sites carry the advisor's
figures (docs/report.md, "Advice")."""

# Reductions of at most this many bytes a call are taken to be dot
# products, norms or convergence checks: they steer the computation, and
# whether they may carry an error is the user's call, not the advisor's.
SMALL_REDUCTION = 1 << 20

REDUCTIONS = ("allreduce", "reduce", "reduce_scatter", "reduce_scatter_block")


def rule_op(call):
    """The rules' operation name of a report's call name (docs/lossy-scopes.md)."""
    name = call[:-2] if call.endswith("_c") else call
    lower = name.lower()
    if lower in ("send", "ssend", "rsend", "bsend", "isend", "issend", "irsend", "ibsend",
                 "sendrecv", "sendrecv_replace", "isendrecv", "isendrecv_replace"):
        return "send"
    if lower.startswith("i") and lower not in ("init",) and lower[1:] in OPS:
        return lower[1:]
    return lower if lower in OPS else None


OPS = ("allreduce", "bcast", "reduce", "send", "allgather", "allgatherv", "gather", "gatherv",
       "scatter", "scatterv", "alltoall", "alltoallv", "reduce_scatter", "reduce_scatter_block")


def size_text(b):
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= div and b % div == 0:
            return "%d%s" % (b // div, unit)
    return str(int(b))


def size_range(site):
    """The size= selector of a site: its calls' size where every call had
    the same (the mean is a whole number), else half to twice the mean."""
    calls = max(1, site.get("calls", 1))
    mean = site.get("bytes", 0) / calls
    if site.get("bytes", 0) % calls == 0:
        return "%s..%s" % (size_text(mean), size_text(mean))
    return "%s..%s" % (size_text(int(mean // 2)), size_text(int(mean * 2 + 1)))


def saving(site, figure):
    """Seconds the codec would save at this site on the report's link, else
    (no link figure) the bytes it would keep off the wire, as (value, unit)."""
    if not figure:
        return None, ""
    if figure.get("saved_s") is not None:
        return figure["saved_s"], "s"
    return site.get("bytes", 0) * (1 - 1 / figure["ratio"]), "B"


def describe(figure, site):
    if not figure:
        return "none"
    value, unit = saving(site, figure)
    saved = ("saves %.3g s" % value) if unit == "s" else ("keeps %.3g MB off the wire" % (value / 1e6))
    return "%s %.3gx at %.0f MB/s, %s" % (figure["codec"], figure["ratio"], figure["MBps"], saved)


def bound_selector(advice, override):
    if override:
        return override
    kind, value = advice.get("bound", "rel 0.0001").split()
    return "%s=%s" % (kind, value)


def classify(site):
    """'lossy' (a rule), 'judge' (commented: may need to stay exact) or
    'exact' (cannot be lossy), with the reason."""
    advice = site["advice"]
    op = rule_op(site.get("call", ""))
    if not advice.get("lossy_possible") or not advice.get("lossy"):
        return "exact", advice.get("why_exact") or "no lossy codec applies"
    if op is None:
        return "exact", "no rule operation for %s" % site.get("call")
    per_call = site.get("bytes", 0) / max(1, site.get("calls", 1))
    if op in REDUCTIONS and per_call <= SMALL_REDUCTION:
        return "judge", ("a %s reduction of %s a call: a dot product, norm or convergence check?"
                         % (advice.get("op", "").upper(), size_text(int(per_call))))
    return "lossy", ""


def advise(report, bound=None):
    """The rules text for one report."""
    sites = [s for s in report.sites if isinstance(s.get("advice"), dict)]
    if not sites:
        return None
    rows = []
    for s in sites:
        kind, why = classify(s)
        value, unit = saving(s, s["advice"].get("lossy") or s["advice"].get("lossless"))
        rows.append((kind, why, value or 0, unit, s))
    rows.sort(key=lambda r: -r[2])
    out = ["# adacomp-report advise %s" % report.path,
           "# Rules for ADACOMP_LOSSY_RULES, one a line: this file as ADACOMP_LOSSY_RULES=@FILE.",
           "# The first rule that selects a call decides it, and a call no rule selects",
           "# keeps the job's default (lossless without a bound). Ratios and speeds are",
           "# the advisor's samples, coded beside the calls, savings on the report's link",
           "# (else the bytes kept off the wire)."]
    lossy = [r for r in rows if r[0] == "lossy"]
    judge = [r for r in rows if r[0] == "judge"]
    exact = [r for r in rows if r[0] == "exact"]
    selected = {}
    out.append("")
    out.append("# Lossy candidates, by what they would save:")
    if not lossy:
        out.append("#   (none)")
    for _, _, _, _, s in lossy:
        a = s["advice"]
        rule = "lossy %s op=%s size=%s" % (bound_selector(a, bound), rule_op(s["call"]),
                                            size_range(s))
        if rule not in selected.values():  # sites that one rule already selects
            out.append(rule)
        out.append("#   %s at %s: %d calls, %.3g MB; lossy %s; lossless %s"
                   % (s["call"], s["site"], s["calls"], s["bytes"] / 1e6,
                      describe(a.get("lossy"), s), describe(a.get("lossless"), s)))
        selected[(rule_op(s["call"]), size_range(s))] = rule
    out.append("")
    out.append("# Your judgment: these may have to stay exact (uncomment to make one lossy).")
    if not judge:
        out.append("#   (none)")
    for _, why, _, _, s in judge:
        a = s["advice"]
        key = (rule_op(s["call"]), size_range(s))
        out.append("# lossy %s op=%s size=%s" % (bound_selector(a, bound), key[0], key[1]))
        out.append("#   %s at %s: %s lossy %s; lossless %s"
                   % (s["call"], s["site"], why, describe(a.get("lossy"), s),
                      describe(a.get("lossless"), s)))
        if key in selected:
            out.append("#   NOTE: '%s' above selects this site's calls too (same operation"
                       " and size): rules cannot tell the two apart" % selected[key])
    out.append("")
    out.append("# Exact only (lossless coding, the default, still applies):")
    if not exact:
        out.append("#   (none)")
    for _, why, _, _, s in exact:
        out.append("#   %s at %s: %s; lossless %s"
                   % (s["call"], s["site"], why, describe(s["advice"].get("lossless"), s)))
    return "\n".join(out) + "\n"
