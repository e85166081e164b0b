"""CSV export: one row per operation, MPI call, call site, rank and region
operation of every report (the `table` column says which), or, for
`compare`, the rows of the comparison. saved_s is the wire time coding
saved, net_s that less the codec time."""
import csv

COLUMNS = ["report", "table", "name", "region", "rank", "host", "calls", "compressed_calls",
           "time_s", "bytes", "bytes_in", "bytes_wire", "ratio", "codec_s", "saved_s", "net_s"]
COMPARE_COLUMNS = ["table", "name", "calls_a", "calls_b", "compressed_a", "compressed_b",
                   "time_a_s", "time_b_s", "time_ratio", "moved_a", "moved_b", "moved_ratio",
                   "frames_a", "frames_b", "codec_a_s", "codec_b_s"]


def _operation(r, name, o, table="operation", region=""):
    bi, bw = o.get("bytes_in", 0), o.get("bytes_wire", 0)
    return {"report": r.path, "table": table, "name": name, "region": region,
            "calls": o.get("calls", 0), "compressed_calls": o.get("compressed_calls", 0),
            "time_s": r.call_seconds(name) if table == "operation" else o.get("time_s"),
            "bytes": r.payload(name) if table == "operation" else o.get("bytes"),
            "bytes_in": bi, "bytes_wire": bw, "ratio": bi / bw if bw else None,
            "codec_s": r.codec_seconds(o),
            "saved_s": r.gross_seconds(name, o) if table == "operation" else None,
            "net_s": r.net_seconds(name, o) if table == "operation" else o.get("saved_s")}


def rows(r):
    out = [_operation(r, n, o) for n, o in sorted(r.operations.items())]
    out += [{"report": r.path, "table": "call", "name": n, "calls": c.get("calls", 0),
             "time_s": c.get("seconds")} for n, c in sorted(r.mpi_calls.items())]
    out += [{"report": r.path, "table": "site", "name": "%s at %s" % (s.get("call", "?"),
                                                                      s.get("site", "?")),
             "calls": s.get("calls"), "time_s": s.get("time_s"), "bytes": s.get("bytes"),
             "bytes_wire": s.get("wire_bytes"), "net_s": s.get("saved_s")} for s in r.sites]
    out += [{"report": r.path, "table": "rank", "name": "rank %s" % x.get("rank"),
             "rank": x.get("rank"), "host": x.get("host"), "calls": x.get("calls"),
             "time_s": x.get("mpi_s"), "bytes": x.get("bytes"), "bytes_wire": x.get("wire_bytes"),
             "net_s": x.get("saved_s")} for x in r.ranks]
    for level, ops in r.regions:
        out += [_operation(r, n, o, "region", level) for n, o in sorted(ops.items())]
    return out


def _write(path, columns, records):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, columns, extrasaction="ignore")
        w.writeheader()
        for rec in records:
            w.writerow({k: ("" if v is None else v) for k, v in rec.items()})


def write(path, reports):
    _write(path, COLUMNS, [row for r in reports for row in rows(r)])


def write_compare(path, records):
    named = []
    for rec in records:
        ta, tb, wa, wb = (rec.get(k) for k in ("time_a", "time_b", "wire_a", "wire_b"))
        named.append(dict(rec, time_a_s=ta, time_b_s=tb, moved_a=wa, moved_b=wb,
                          codec_a_s=rec.get("codec_a"), codec_b_s=rec.get("codec_b"),
                          time_ratio=tb / ta if ta and tb is not None else None,
                          moved_ratio=wb / wa if wa and wb is not None else None))
    _write(path, COMPARE_COLUMNS, named)
