#!/bin/bash
# The Intel MPI Benchmarks under plain MPI and under AdaComp with default
# settings (the adacomp launcher; no adacomp.conf, no ADACOMP_* variables),
# side by side, taking turns run by run so that machine noise hits both
# alike, on 2 ranks of one node:
#   bench/imb.sh MPI [OUT_DIR]      (default OUT_DIR: build/imb/<MPI>)
# MPI as tools/build.sh names it; build/<MPI> must hold its build (the
# library and launcher: tools/build.sh MPI build/MPI --target adacomp).
# IMB-MPI1 is built from the source in IMB_SOURCE (default: the tarball of
# shared/third-party beside the repository) for that MPI, twice, into
# build/imb/<MPI>: with -DCHECK, whose run (once each side) checks every
# message and result IMB receives, and without, for the timings. Runs
# PingPong Sendrecv Allreduce Bcast Alltoall Reduce_scatter (BENCHMARKS),
# messages up to 2^MSGLOG bytes [18], REPS timed runs a side [3]. IMB gives
# a benchmark SECONDS_PER_SIZE [1] (checked runs: CHECK_SECONDS [4]) per message size,
# in all, before it stops it with "time-out". PARTS [checked timed]: either
# alone (the checked runs need no idle machine). Writes
#   OUT_DIR/raw/<side>-<run>.txt   IMB's output
#   OUT_DIR/summary.md             per benchmark and size: each side's
#                                  median t_avg and default/plain
# Exits 1 if a run fails or a checked run reports a defect.
set -euo pipefail
source "$(dirname "$0")/../tools/help.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
mpi=${1:?usage: bench/imb.sh MPI [OUT_DIR]}
build=$root/build/$mpi
out=${2:-$root/build/imb/$mpi/results}
source_tar=${IMB_SOURCE:-$(ls "$root"/../shared/third-party/intel-mpi-benchmarks-*.tar.gz 2>/dev/null ||
                           ls /work/shared/third-party/intel-mpi-benchmarks-*.tar.gz)}
benchmarks=${BENCHMARKS:-PingPong Sendrecv Allreduce Bcast Alltoall Reduce_scatter}
reps=${REPS:-3}
[ -x "$build/adacomp" ] || { echo "bench/imb.sh: no build in $build (tools/build.sh $mpi)" >&2; exit 2; }
bin=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" | xargs dirname)
cc=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cxx=$(sed -n 's/^MPI_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
launcher=$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
[ -x "$bin/impi_info" ] && export I_MPI_ROOT=$(dirname "$bin")
run=("$launcher" -np 2)
case $("$build/adacomp" --version) in *"(openmpi"*) run+=(--oversubscribe --allow-run-as-root) ;; esac
# imb_for VARIANT CPPFLAGS: IMB-MPI1 built for this MPI (kept once built).
imb_for() {
  local dir=$root/build/imb/$mpi/$1
  if [ ! -x "$dir/IMB-MPI1" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    tar xzf "$source_tar" -C "$dir" --strip-components=1
    make -C "$dir" IMB-MPI1 CC="$cc" CXX="$cxx" CPPFLAGS="$2" >"$dir/make.log" 2>&1 ||
      { tail -20 "$dir/make.log"; exit 1; }
  fi
  echo "$dir/IMB-MPI1"
}
checked=$(imb_for checked -DCHECK)
timed=$(imb_for timed "")
# defects_none LOG: every row of a checked run has 0 in IMB's defects column.
defects_none() {
  awk '$1 == "#bytes" { col = 0; for (i = 1; i <= NF; i++) if ($i == "defects") col = i; next }
       col && $1 ~ /^[0-9]+$/ && NF >= col && $col + 0 != 0 { print; bad = 1 }
       END { exit bad }' "$1"
}
mkdir -p "$out/raw"
status=0
imb_args=(-msglog "${MSGLOG:-18}" -npmin 2 $benchmarks)
parts=${PARTS:-checked timed}
for side in plain default; do
  [[ $parts == *checked* ]] || break
  wrap=(); [ $side = default ] && wrap=("$build/adacomp")
  log=$out/raw/$side-checked.txt
  if ! timeout 900 "${run[@]}" "${wrap[@]}" "$checked" -time "${CHECK_SECONDS:-4}" "${imb_args[@]}" \
       >"$log" 2>&1; then
    echo "bench/imb.sh: the checked $side run failed ($log)" >&2; status=1
  elif ! defects_none "$log"; then
    echo "bench/imb.sh: the checked $side run reports defects ($log)" >&2; status=1
  else
    echo "bench/imb.sh: $mpi $side: no defects in $(grep -c '^ *[0-9]' "$log") checked rows;" \
         "$(grep -c time-out "$log") benchmarks stopped by IMB's time limit (CHECK_SECONDS)"
  fi
done
[[ $parts == *timed* ]] || reps=0
for r in $(seq 1 "$reps"); do
  order=(plain default); [ $((r % 2)) = 0 ] && order=(default plain)
  for side in "${order[@]}"; do
    wrap=(); [ $side = default ] && wrap=("$build/adacomp")
    timeout 900 "${run[@]}" "${wrap[@]}" "$timed" -time "${SECONDS_PER_SIZE:-1}" "${imb_args[@]}" \
      >"$out/raw/$side-$r.txt" 2>&1 ||
      { echo "bench/imb.sh: $side run $r failed" >&2; status=1; }
  done
done
[ "$reps" = 0 ] && exit $status
python3 "$root/bench/imb_summary.py" "$mpi" "$("$build/adacomp" --version)" "$out/raw" >"$out/summary.md"
cat "$out/summary.md"
exit $status
