#!/bin/bash
# usage: report_check.sh MPIEXEC_AND_FLAGS... -- LAUNCHER DEMO
# Runs the demo through the `adacomp` launcher (LD_PRELOAD mode, lossless forced:
# on one node the default policy codes nothing) and checks
# the JSON report: allreduce compressed, fewer bytes on the wire than in.
set -u
report=$(mktemp /tmp/adacomp-report.XXXXXX.json)
trap 'rm -f "$report"' EXIT
mpiexec=()
while [ "$1" != "--" ]; do mpiexec+=("$1"); shift; done
shift
ADACOMP_REPORT=$report ADACOMP_MODE=lossless ADACOMP_THRESHOLD_LOSSLESS=4K ADACOMP_VERBOSE=1 \
  "${mpiexec[@]}" "$@" 1 3 || { echo "FAIL: run failed"; exit 1; }
python3 - "$report" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
a = r["allreduce"]
for key in ("calls", "compressed_calls", "bytes_in", "bytes_wire", "seconds_compress", "seconds_decompress"):
    assert key in a, key
assert a["calls"] == 2 * 4, a          # 2 ranks x (warm-up + 3 timed)
assert a["compressed_calls"] == a["calls"], a
assert 0 < a["bytes_wire"] < a["bytes_in"], a
assert a["seconds_compress"] > 0 and a["seconds_decompress"] > 0, a
assert set(r) >= {"allreduce", "bcast", "reduce"}, r.keys()
print("report ok:", a)
PY
