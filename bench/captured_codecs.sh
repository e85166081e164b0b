#!/bin/bash
# The codecs on application messages (docs/codecs.md, "On captured
# application messages"), and what the advisor costs (docs/report.md,
# "Advice"):
#   bench/captured_codecs.sh [FLAVOR=openmpi] [OUT_DIR=bench/results/captured]
# 1. Captures (ADACOMP_CAPTURE, 4 samples of at most 1 MB per call site and
#    rank) from bench/jacobi (1024 x 1024, 300 steps), bench/cg (K = 65536)
#    and, where Debian's LAMMPS is installed (`lmp`, Open MPI only), its
#    Lennard-Jones melt (bench/apps/in.lj, 32,000 atoms, 200 steps); 2 ranks
#    as 2 nodes on this machine (ADACOMP_NODE_MAP=1,1): the payloads matter
#    here, not the link. Then adacomp-codecs --json on every capture file
#    (lossy codecs at --rel-bound 1e-4, per file's own value range).
# 2. Each application REPS times (default 3) with a report alone and with
#    the advisor on (ADACOMP_ADVISE=on), taking turns: the median times, and
#    the advisor's own coding time from its report (sampling_s: a measure
#    of the cost that the machine's noise does not blur).
# Prints the summary (markdown) and writes it to OUT_DIR/summary.md; the
# raw results stay in OUT_DIR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
flavor=${1:-openmpi}
out=$(mkdir -p "${2:-$root/bench/results/captured}" && cd "${2:-$root/bench/results/captured}" && pwd)
build=$root/build/$flavor
reps=${REPS:-3}
mpirun=mpirun.$flavor
launch=("$mpirun" -n 2)
[ "$flavor" = openmpi ] && launch+=(--oversubscribe) &&
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
for name in $(compgen -e | grep '^ADACOMP_' || true); do unset "$name"; done
export ADACOMP_NODE_MAP=1,1 OMP_NUM_THREADS=1
apps=(jacobi cg)
command -v lmp >/dev/null && [ "$flavor" = openmpi ] && apps+=(lammps)
program() {  # APP: the program and its arguments
  case $1 in
    jacobi) echo "$build/bench/adacomp-jacobi 1024 300" ;;
    cg) echo "$build/bench/adacomp-cg 64 65536 300 1e-8" ;;
    lammps) echo "lmp -in $root/bench/apps/in.lj -log none -echo none -var side 20 -var steps 200" ;;
  esac
}
app_seconds() {  # APP OUTPUT_FILE: the application's own time
  case $1 in
    lammps) awk '/^Loop time of/ {print $4}' "$2" ;;
    *) awk '$1 == "time" {print $2}' "$2" ;;
  esac
}
codecs=zstd,lz4,blosc,fpc,bitplane,quant_fast,quant_zstd,zfp
for app in "${apps[@]}"; do
  rm -rf "$out/capture-$app" "$out/codecs-$app.jsonl"
  ADACOMP_CAPTURE=$out/capture-$app "${launch[@]}" "$build/adacomp" $(program "$app") \
    >"$out/capture-$app.out" 2>&1
  for f in "$out/capture-$app"/*.acap; do
    "$build/bench/codecs/adacomp-codecs" "$f" --json --codecs "$codecs" --min-time 0.02 \
      >>"$out/codecs-$app.jsonl"
  done
done
: >"$out/overhead.tsv"
for rep in $(seq "$reps"); do
  for app in "${apps[@]}"; do
    for side in report advise; do
      extra=()
      [ $side = advise ] && extra=(env ADACOMP_ADVISE=on)
      ADACOMP_REPORT=$out/$app-$side.json "${extra[@]}" "${launch[@]}" "$build/adacomp" \
        $(program "$app") >"$out/$app-$side.out" 2>&1
      printf '%s\t%s\t%s\t%s\n' "$app" "$side" "$rep" "$(app_seconds "$app" "$out/$app-$side.out")" \
        >>"$out/overhead.tsv"
      cp "$out/$app-$side.json" "$out/$app-$side-$rep.json"
    done
  done
done
python3 "$root/bench/captured_summary.py" "$out" "${apps[@]}" | tee "$out/summary.md"
