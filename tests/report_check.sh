#!/bin/bash
# usage: report_check.sh MPIEXEC_AND_FLAGS... -- LAUNCHER DEMO
# Runs the demo through the `adacomp` launcher (LD_PRELOAD mode, lossless forced:
# on one node the default policy codes nothing) and checks
# the JSON report (schema 2, docs/report.md): the header, allreduce
# compressed with fewer bytes on the wire than in, per-rank ranges, time in
# the intercepted calls and its size histogram, %p/%j/%h expanded; then adacomp-report's summary and
# plot of it; and that an unwritable report path stops the job at MPI_Init.
set -u
dir=$(mktemp -d /tmp/adacomp-report.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mpiexec=()
while [ "$1" != "--" ]; do mpiexec+=("$1"); shift; done
shift
root=$(cd "$(dirname "$0")/.." && pwd)
(cd "$dir" && ADACOMP_REPORT='run-%j-%h-%p.json' SLURM_JOB_ID=4242 ADACOMP_MODE=lossless ADACOMP_THRESHOLD_LOSSLESS=4K \
  ADACOMP_VERBOSE=1 "${mpiexec[@]}" "$@" 1 3) || { echo "FAIL: run failed"; exit 1; }
report=$(ls "$dir"/run-4242-"$(hostname)"-[0-9]*.json) || { ls "$dir"; echo "FAIL: report name"; exit 1; }
python3 - "$report" "$*" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == 2, r.get("schema")
run = r["run"]
for key in ("version", "mpi_built_for", "mpi_library", "command", "job_id", "ranks", "hosts",
            "start", "end", "wall_seconds", "mpi_seconds"):
    assert key in run, key
assert run["ranks"] == 2 and run["job_id"] == "4242", run
assert sum(len(h["ranks"]) for h in run["hosts"]) == 2, run["hosts"]
assert "adacomp-demo" in run["command"], run["command"]
assert run["mpi_built_for"].split()[0] in run["mpi_library"], run
w, m = run["wall_seconds"], run["mpi_seconds"]
assert 0 < w["min"] <= w["mean"] <= w["max"] and 0 < m["min"] <= m["max"] <= w["max"], (w, m)
assert {"key": "ADACOMP_THRESHOLD_LOSSLESS", "value": "4K", "source": "environment"} in r["settings"], r["settings"]
assert "ADACOMP_THRESHOLD_LOSSLESS" in r["settings_sources"], r["settings_sources"]
assert r["verdict"]["reason"] == "coded", r["verdict"]
a = r["operations"]["allreduce"]
assert a["calls"] == 2 * 4, a          # 2 ranks x (warm-up + 3 timed)
assert a["compressed_calls"] == a["calls"], a
assert 0 < a["bytes_wire"] < a["bytes_in"], a
assert a["seconds_compress"] > 0 and a["seconds_decompress"] > 0, a
p = a["per_rank"]["calls"]
assert p["min"] == p["max"] == 4, p
c = r["mpi_calls"]["Allreduce"]
assert c["calls"] == 8 and 0 < c["per_rank_seconds"]["min"] <= c["per_rank_seconds"]["max"], c
# 1 MB of doubles: every call in the [1M, 2M) class.
assert [(z["bytes_from"], z["calls"]) for z in c["sizes"]] == [(1 << 20, 8)], c["sizes"]
assert set(r["operations"]) >= {"allreduce", "bcast", "reduce"}, r["operations"].keys()
print("report ok:", a)
PY
"$root/tools/adacomp-report" --plot "$dir/plots" "$report" >"$dir/summary.txt" ||
  { cat "$dir/summary.txt"; echo "FAIL: adacomp-report"; exit 1; }
cat "$dir/summary.txt"
for line in "^  command: .*adacomp-demo" "^  ranks: +2" "^Allreduce +8 " "^allreduce +8 +8 " \
            "^Allreduce +1M\.\.<2M +8 "; do
  grep -Eq -- "$line" "$dir/summary.txt" || { echo "FAIL: summary lacks /$line/"; exit 1; }
done
[ -s "$dir/plots/$(basename "$report" .json).png" ] || { ls "$dir/plots"; echo "FAIL: no plot"; exit 1; }
# A report that cannot be written is found at MPI_Init, with the reason.
out=$(ADACOMP_REPORT=/nonexistent/dir/r.json "${mpiexec[@]}" "$@" 1 1 2>&1) &&
  { echo "$out"; echo "FAIL: unwritable report path accepted"; exit 1; }
grep -q "adacomp: configuration error: ADACOMP_REPORT: cannot write '/nonexistent/dir/r.json': No such file or directory" <<<"$out" ||
  { echo "$out"; echo "FAIL: unwritable report message"; exit 1; }
echo "ok: report, summary, plot, unwritable path"
