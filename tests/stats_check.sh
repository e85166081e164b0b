#!/bin/bash
# usage: stats_check.sh "op1 op2 ..." COMMAND...
# Runs COMMAND with ADACOMP_REPORT set, then checks the JSON report: every
# listed operation has compressed calls and fewer bytes on the wire than in
# (recv: decoded frames; a message's bytes count once, on the send row);
# every listed operation's calls were timed (mpi_calls), and the time saved
# is no more than the time in MPI. Used for programs that cannot query the
# statistics API (Fortran, Python).
set -u
ops=$1
shift
report=$(mktemp /tmp/adacomp-report.XXXXXX.json)
trap 'rm -f "$report"' EXIT
ADACOMP_REPORT=$report "$@" || { echo "FAIL: run failed"; exit 1; }
python3 - "$report" $ops <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
for op in sys.argv[2:]:
    s = r["operations"].get(op, {})
    ok = s.get("compressed_calls", 0) > 0 and (
        op == "recv" and s.get("bytes_in") == s.get("bytes_wire") == 0 or
        0 < s.get("bytes_wire", 0) < s.get("bytes_in", 0))
    print(f"{op}: {s}")
    if not ok:
        bad.append(op)
if bad:
    sys.exit(f"FAIL: not compressed: {' '.join(bad)}")
timed = {name.lower(): row for name, row in r["mpi_calls"].items() if row.get("calls", 0) > 0}
untimed = [op for op in sys.argv[2:] if not any(name.endswith(op) for name in timed)]
if untimed:
    sys.exit(f"FAIL: calls not timed: {' '.join(untimed)} (timed: {' '.join(timed)})")
v = r["verdict"]
if v["saved_s"] is not None and v["saved_s"] > v["mpi_s"]:
    sys.exit(f"FAIL: saved {v['saved_s']} s of {v['mpi_s']} s in MPI")
print("stats ok")
PY
