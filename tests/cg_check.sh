#!/bin/bash
# The solver of docs/lossy-scopes.md (bench/cg.c) three ways on 2 ranks as
# 2 nodes, every call coded (the model off, point-to-point framed, T2 at
# 64K so that its 64 KB dot products may be lossy):
#   plain                no bound: the reference iterations and residuals;
#   job-wide bound       ADACOMP_REL_ERROR_BOUND=1e-4: the dot products go
#                        lossy and the iterations change;
#   hinted exchange      the exchange's communicator hinted 1e-6, the dot
#                        products' not: the same iterations as plain, the
#                        exchange coded lossy, the dot products exact.
# usage: cg_check.sh MPIEXEC... -- ADACOMP_LAUNCHER ADACOMP_CG
set -u
mpiexec=()
while [ "$1" != "--" ]; do mpiexec+=("$1"); shift; done
shift
dir=$(mktemp -d /tmp/adacomp-cg.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export ADACOMP_NODE_MAP=1,1 ADACOMP_MODEL=off ADACOMP_P2P_ROUTE=framed ADACOMP_THRESHOLD_LOSSY=64K
run() {  # NAME [HALO_BOUND]: the solver's output in $dir/NAME.out, its report in $dir/NAME.json
  local name=$1
  shift
  ADACOMP_REPORT=$dir/$name.json "${mpiexec[@]}" "$@" 64 8192 300 1e-8 ${halo:-} >"$dir/$name.out" 2>&1 ||
    { cat "$dir/$name.out"; echo "FAIL: $name run failed"; exit 1; }
}
launch=("$1" "$2")
halo= run plain "${launch[@]}"
ADACOMP_REL_ERROR_BOUND=1e-4 halo= run job_wide "${launch[@]}"
halo=1e-6 run hinted "${launch[@]}"
python3 - "$dir" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
def result(name):
    out = dict(l.split(None, 1) for l in open(f"{d}/{name}.out") if l[:1].isalpha() and " " in l)
    ops = json.load(open(f"{d}/{name}.json"))["operations"]
    return int(out["iterations"]), float(out["residual"]), out["history"].strip(), ops
plain, job, hinted = result("plain"), result("job_wide"), result("hinted")
print("plain    ", plain[:3])
print("job-wide ", job[:3], "allreduce lossy", job[3]["allreduce"]["lossy_calls"])
print("hinted   ", hinted[:3], "send lossy", hinted[3]["send"]["lossy_calls"],
      "of", hinted[3]["send"]["compressed_calls"])
assert plain[3]["allreduce"]["lossy_calls"] == 0 and plain[3]["send"]["lossy_calls"] == 0, plain
assert plain[1] <= 1e-8, plain
# A job-wide bound reaches the dot products (and not the exchange): the
# iterations change.
assert job[3]["allreduce"]["lossy_calls"] > 0 and job[3]["send"]["lossy_calls"] == 0, job[3]
assert job[0] != plain[0] or job[2] != plain[2], "a job-wide bound left the iterations unchanged"
# The hint reaches the exchange alone: same iterations, converged, every
# coded exchange lossy, the dot products exact.
assert hinted[0] == plain[0] and hinted[1] <= 1e-8, (hinted[:3], plain[:3])
s = hinted[3]["send"]
assert s["lossy_calls"] > 0 and s["lossy_calls"] == s["compressed_calls"], s
assert hinted[3]["allreduce"]["lossy_calls"] == 0, hinted[3]["allreduce"]
PY
