"""Reading AdaComp JSON reports (docs/report.md) into one shape, whatever
the schema and whichever optional fields the writing library had."""
import json
import os

SUPPORTED_SCHEMA = 2


class ReportError(Exception):
    """A file that is not a report this tool can read; the message says why."""


def human(b):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= scale:
            return "%d%s" % (b // scale, unit)
    return "%d" % b


def size_class(lo):
    """[lo, 2 lo) as a label; class 0 is exactly 0 bytes; other labels pass through."""
    if isinstance(lo, str) and lo.isdigit():
        lo = int(lo)
    if not isinstance(lo, (int, float)):
        return str(lo)
    return "0" if lo == 0 else "%s..<%s" % (human(int(lo)), human(2 * int(lo)))


def mb(b):
    if b is None:
        return "?"
    return "%.1f MB" % (b / 1e6) if abs(b) >= 1e5 else "%d B" % b


def ratio(b, a):
    """B/A as text: '-' when A is 0 or either is unknown."""
    if a is None or b is None or not a:
        return "-"
    return "%.2fx" % (b / a)


def _named(items, what):
    """A list of {"op"|"name"|"operation": name, ...} or a dict by name -> dict."""
    if isinstance(items, dict):
        return {k: v for k, v in items.items() if isinstance(v, dict)}
    if isinstance(items, list):
        out = {}
        for o in items:
            name = isinstance(o, dict) and (o.get("op") or o.get("name") or o.get("operation"))
            if not name:
                raise ReportError("an entry of %s has no name" % what)
            out[name] = o
        return out
    raise ReportError("%s is neither an object nor a list" % what)


def on_wire(op, payload):
    """Bytes an operation put on the wire: its payload, less what the codecs
    were given, plus the frames they made (None: payload unknown)."""
    if payload is None:
        return None
    return payload - op.get("bytes_in", 0) + op.get("bytes_wire", 0)


# Which operation (report key) an intercepted call's time belongs to; the
# completion calls (Wait, Test, ...) and Sendrecv stay in the per-call table.
def call_operation(call):
    name = call[4:] if call.startswith("MPI_") else call
    name = name[:-2] if name.endswith("_c") else name
    name = name[:-5] if name.endswith("_init") else name
    lower = name.lower()
    if lower in ("send", "ssend", "rsend", "bsend", "isend", "issend", "irsend", "ibsend"):
        return "send"
    if lower in ("recv", "irecv", "mrecv", "imrecv"):
        return "recv"
    if lower in OPERATION_NAMES:
        return lower
    if lower.startswith("i") and lower[1:] in OPERATION_NAMES:
        return lower[1:]
    return None


OPERATION_NAMES = ("allreduce", "bcast", "reduce", "send", "recv", "allgather", "allgatherv",
                   "gather", "gatherv", "scatter", "scatterv", "alltoall", "alltoallv",
                   "reduce_scatter", "reduce_scatter_block")


class Report:
    """One report: the raw JSON in .data, and normalised views of it."""

    def __init__(self, path, data):
        self.path = path
        self.data = data
        self.label = os.path.splitext(os.path.basename(path))[0] or "report"
        self.run = data.get("run") or {}
        self.link = data.get("link") or {}
        self.verdict = data.get("verdict") if isinstance(data.get("verdict"), dict) else None
        ops = _named(data["operations"], "operations")
        self.operations = {k: v for k, v in ops.items() if v.get("calls")}
        self.mpi_calls = {k: v for k, v in (data.get("mpi_calls") or {}).items()
                          if isinstance(v, dict)}
        self.sites = [s for s in data.get("sites") or [] if isinstance(s, dict)]
        self.ranks = sorted((r for r in data.get("ranks") or [] if isinstance(r, dict)),
                            key=lambda r: r.get("rank", 0))
        self.rank_cov = data.get("rank_cov")
        self.regions = []
        for reg in data.get("regions") or []:
            if isinstance(reg, dict):
                self.regions.append((reg.get("level"), _named(reg.get("ops") or [], "regions.ops")))
        self.settings, self.setting_sources, self.short_settings = _settings(data.get("settings"))
        self.setting_sources = data.get("settings_sources") or self.setting_sources

    # Figures summed over ranks, None when the report cannot tell.
    def mean(self, key):
        v = self.run.get(key)
        return v.get("mean") if isinstance(v, dict) else None

    def codec_seconds(self, op):
        return op.get("seconds_compress", 0) + op.get("seconds_decompress", 0)

    def gross_seconds(self, name, op):
        """The wire time an operation's coding saved, before codec time:
        bytes not sent / bandwidth (None without a link figure). A received
        message's bytes count on its send side."""
        bw = self.link.get("bandwidth_Bps") or 0
        if bw <= 0:
            return None
        return 0.0 if name == "recv" else (op.get("bytes_in", 0) - op.get("bytes_wire", 0)) / bw

    def net_seconds(self, name, op):
        """Wire time saved less codec time: the library's figure (schema 2),
        else the link model's."""
        if "saved_s" in op:
            return op["saved_s"]
        gross = self.gross_seconds(name, op)
        return None if gross is None else gross - self.codec_seconds(op)

    def payload(self, name):
        """Bytes the application asked an operation to move, if known: the
        report's total, the sum of its call sites, or the coded bytes when
        every call was coded."""
        op = self.operations.get(name)
        if op and "bytes" in op:
            return op["bytes"]
        if self.sites:
            sites = [s for s in self.sites if call_operation(str(s.get("call", ""))) == name]
            # A site's bytes are the data its calls move, never less than
            # the codecs were given (docs/report.md, "Bytes of a call"); a
            # smaller sum (an older report's one block of an all-to-all) is
            # no payload: unknown, rather than a negative on the wire.
            if sites and all("bytes" in s for s in sites):
                total = sum(s["bytes"] for s in sites)
                if not op or total >= op.get("bytes_in", 0):
                    return total
        if op and op.get("calls") and op.get("compressed_calls") == op.get("calls"):
            return op.get("bytes_in", 0)
        return None

    def wire(self, name):
        return on_wire(self.operations.get(name) or {}, self.payload(name))

    def call_seconds(self, operation):
        """Time in the calls of one operation (MPI_Allreduce, MPI_Iallreduce, ...)."""
        calls = [c for n, c in self.mpi_calls.items() if call_operation(n) == operation]
        return sum(c.get("seconds", 0) for c in calls) if calls else None

    def setting(self, key, short):
        """A setting's value: by its name (schema 2), or by its short name in
        schema 1's agreed-values string ("mode=raw;...;nodes=1,1,")."""
        for s in self.settings:
            if s["key"] == key:
                return s["value"]
        return self.short_settings.get(short)


def _settings(s):
    """([{key, value, source}], sources, {short: value}): schema 2 lists
    each setting; schema 1 has the sources and an agreed-values string."""
    if isinstance(s, list):
        rows = [{"key": str(x.get("key")), "value": str(x.get("value")),
                 "source": str(x.get("source", ""))} for x in s if isinstance(x, dict)]
        return rows, "; ".join(sorted({r["source"] for r in rows if r["source"]})), {}
    if isinstance(s, dict):
        values = dict(kv.split("=", 1) for kv in str(s.get("values", "")).split(";") if "=" in kv)
        return [], s.get("sources", ""), {k: v.rstrip(",") for k, v in values.items()}
    return [], "", {}


def load(path):
    """The report in PATH; raises ReportError saying why it cannot be read."""
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError as e:
        raise ReportError(e.strerror or str(e))
    if not text.strip():
        raise ReportError("empty file")
    try:
        data = json.loads(text.decode("utf-8", "replace"))
    except ValueError as e:
        raise ReportError("not JSON (%s%s)" % (e, "; truncated?" if "Expecting" in str(e) else ""))
    if not isinstance(data, dict):
        raise ReportError("not an AdaComp report (no JSON object)")
    if "schema" not in data:  # reports before schema 1: operations at top level
        if not any(k in data for k in OPERATION_NAMES):
            raise ReportError("not an AdaComp report (no schema, no operations)")
        data = {"schema": 0, "operations": data}
    schema = data["schema"]
    if not isinstance(schema, int):
        raise ReportError("schema %r is not a number" % (schema,))
    if schema > SUPPORTED_SCHEMA:
        raise ReportError("schema %d is newer than this adacomp-report reads (%d)"
                          % (schema, SUPPORTED_SCHEMA))
    if not isinstance(data.get("operations"), (dict, list)):
        raise ReportError("not an AdaComp report (no operations)")
    try:
        return Report(path, data)
    except (KeyError, TypeError, AttributeError, ValueError) as e:
        raise ReportError("malformed report (%s: %s)" % (type(e).__name__, e))


def load_many(paths, warn):
    """The readable reports of PATHS; each unreadable one is named through
    warn(message) and skipped."""
    reports = []
    for p in paths:
        try:
            reports.append(load(p))
        except ReportError as e:
            warn("skipping %s: %s" % (p, e))
    return reports
