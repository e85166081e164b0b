#!/bin/bash
# usage: report_bytes_check.sh MPIEXEC_AND_FLAGS... -- PROGRAM TOOLS_DIR
# PROGRAM is tests/mpi/report_sites.cpp in its movement mode, on 3 ranks
# declared on 3 nodes with lossless coding forced: Alltoall, Alltoallv,
# Allgatherv, Gather and Scatterv with uneven counts, some in place, and
# persistent calls started several times (their bytes count per start). The
# bytes of each call's sites, summed over ranks, must be the data the calls
# moved (docs/report.md, "Bytes of a call"), never less than what the codecs
# were given (bytes_in), and adacomp-report (TOOLS_DIR/adacomp_report) must
# then know each operation's payload.
set -u
dir=$(mktemp -d /tmp/adacomp-bytes.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mpiexec=()
while [ "$1" != "--" ]; do mpiexec+=("$1"); shift; done
shift
program=$1 tools=$2
env ADACOMP_REPORT="$dir/r.json" ADACOMP_MODE=lossless ADACOMP_THRESHOLD_LOSSLESS=4K \
    ADACOMP_NODE_MAP=1,1,1 ADACOMP_NONBLOCKING=on "${mpiexec[@]}" "$program" movement >"$dir/out" 2>&1 ||
  { cat "$dir/out"; echo "FAIL: run"; exit 1; }
PYTHONPATH=$tools python3 - "$dir/r.json" "$dir/out" <<'PY' || { cat "$dir/out"; echo "FAIL: bytes"; exit 1; }
import json, re, sys
from adacomp_report import model
r = json.load(open(sys.argv[1]))
rounds = 4
moved = {c: rounds * int(n) for c, n in re.findall(r"^moved (\w+) (\d+)$", open(sys.argv[2]).read(), re.M)}
assert {"Allgatherv", "Alltoall", "Alltoallv", "Gather", "Scatterv", "Send_init",
        "Recv_init"} <= set(moved), moved
report = model.load(sys.argv[1])
for call, want in moved.items():
    sites = [s for s in r["sites"] if s["call"] == call]
    assert sites and all(s["site"].startswith("movement(int)") for s in sites), (call, sites)
    got = sum(s["bytes"] for s in sites)
    assert got == want, "%s: the sites count %d bytes, the calls moved %d" % (call, got, want)
    print("ok: %s %d bytes" % (call, got))
# Per operation: its sites (every form of its calls) against what was coded.
for name in {model.call_operation(c) for c in moved} - {"recv"}:
    got = sum(s["bytes"] for s in r["sites"] if model.call_operation(s["call"]) == name)
    op = r["operations"][name]
    # (persistent point-to-point may pass through uncoded)
    assert op["bytes_in"] <= got and (name == "send" or 0 < op["bytes_in"]), (name, op, got)
    assert report.payload(name) == got, (name, report.payload(name), got)
    print("ok: %s: sites %d bytes, %d coded" % (name, got, op["bytes_in"]))
PY
