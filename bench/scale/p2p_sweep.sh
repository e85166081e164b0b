#!/bin/bash
# OSU-style point-to-point under SimGrid SMPI on simulated fast fabrics:
# bench/osu_bench.c as plain MPI (adacomp-osu-plain: SMPI alone) and with
# the library at its default settings (adacomp-osu: no adacomp.conf, no
# ADACOMP_* variables), taking turns run by run, on 2 simulated nodes
# (bench/scale/simulate.sh: 2 x 1, and 2 x 2 with every pair across nodes).
# Times are simulated; the library's CPU work per call is charged to the
# simulated clock (simulate.sh, docs/scale.md "Codec time").
#   bench/scale/p2p_sweep.sh [OUT_DIR]          the sweep (default bench/results/smpi-p2p)
#   bench/scale/p2p_sweep.sh --calibrate        the 1 us check (below)
# Writes OUT_DIR/raw/smpi-<fabric>.tsv (bench/osu.sh's columns), summary.tsv,
# summary.md (bench/osu_summary.py: default/plain per size, cells below the
# target in bold) and PLOTS/osu-<fabric>.png (bench/osu_plot.py; PLOTS
# defaults to OUT_DIR). Subsets through the environment (defaults in brackets):
#   FABRICS  [hdr 100gbe 25gbe]   names of the table below
#   LAYOUTS  [2x1 2x2]            nodes x ranks per node
#   TESTS    [latency,bw,mbw_mr]  adacomp-osu's tests
#   REPS     [2]                  runs of each side
#   MAX      [4M]; SIZES []: sizes besides the powers of two (e.g. 65504,65568
#            around SMPI's 64 KB eager limit, smpi/send-is-detached-thresh)
#   OSU_ARGS [--samples 3 --sample-time 0.002]: more adacomp-osu options
#   CHECK    [0]  1: exit 1 if a cell misses the target (osu_summary.py)
#   LIBRARY  [adacomp-osu]  the library's side; adacomp-osu-spin shows that
#            the check catches 1 us more per call
#   PLOTS    [OUT_DIR]  none: no plots
#   BUILD    [build/smpi]
# --calibrate runs adacomp-osu and adacomp-osu-spin (the library with a
# deliberate 1 us of CPU work at the start of each of its PMPI_Send and
# PMPI_Recv calls: entry_spin.c) on one fabric (FABRICS, first name) at a
# few sizes (CAL_SIZES), taking turns, and checks that the spin adds 1 us +- TOLERANCE_US
# [0.25] to the median half round trip (in a ping-pong the Recv's spin runs
# while it waits, the Send's is on the path). Exit 1 if not.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# Fabric: Gbit/s and MPI latency node to node in us (the simulated link's
# latency; SMPI adds nothing of its own with simulate.sh's factors):
#   hdr     InfiniBand HDR, 200 Gbit/s, 1 us
#   100gbe  100 Gbit/s Ethernet (RoCE), 3 us
#   25gbe   25 Gbit/s Ethernet, MPI over kernel TCP, 10 us
fabric() {
  case $1 in
    hdr) echo "200 1" ;;
    100gbe) echo "100 3" ;;
    25gbe) echo "25 10" ;;
    *) echo "p2p_sweep.sh: unknown fabric '$1' (hdr 100gbe 25gbe)" >&2; exit 2 ;;
  esac
}
calibrate=0
if [ "${1:-}" = --calibrate ]; then calibrate=1; shift; fi
build=$(cd "${BUILD:-$root/build/smpi}" && pwd)
if [ "$calibrate" = 0 ]; then  # before the cd below: OUT_DIR may be relative
  out=$(mkdir -p "${1:-$root/bench/results/smpi-p2p}" && cd "${1:-$root/bench/results/smpi-p2p}" && pwd)
  plots=${PLOTS:-$out}
  [ "$plots" = none ] || plots=$(mkdir -p "$plots" && cd "$plots" && pwd)
fi
for name in $(compgen -e | grep '^ADACOMP_' || true); do unset "$name"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"  # no adacomp.conf here
export SMPI_PLATFORM_DIR=$work/platforms
read -ra extra <<<"${OSU_ARGS:---samples 3 --sample-time 0.002}"

# run FABRIC LAYOUT PROGRAM ARGS...: the result lines of one simulated job.
run() {
  local gbits latency
  read -r gbits latency <<<"$(fabric "$1")"
  local layout=$2 program=$3
  shift 3
  SMPI_LATENCY_US=$latency "$root/bench/scale/simulate.sh" "${layout%x*}" "${layout#*x}" "$gbits" \
    "$build/bench/scale/$program" "$@" >run.out 2>run.err ||
    { echo "p2p_sweep.sh: $program failed on $layout:" >&2; tail -5 run.err >&2; exit 1; }
  grep -P '^\w+\t\d' run.out
}

if [ "$calibrate" = 1 ]; then
  fab=$(echo "${FABRICS:-hdr}" | cut -d' ' -f1)
  args=(--tests latency --min 1 --max 1 --sizes "${CAL_SIZES:-64,1K,64K}" "${extra[@]}")
  : >cal.tsv
  for rep in $(seq "${REPS:-2}"); do
    for side in adacomp-osu adacomp-osu-spin; do
      run "$fab" 2x1 "$side" "${args[@]}" | sed "s/^/$side\t/" >>cal.tsv
    done
  done
  exec /usr/bin/python3 - "${TOLERANCE_US:-0.25}" "$fab" cal.tsv <<'PY'
import statistics, sys
from collections import defaultdict
tolerance, fabric = float(sys.argv[1]), sys.argv[2]
runs = defaultdict(list)
for line in open(sys.argv[3]):
    side, test, size, value = line.split("\t")[:4]
    runs[(int(size), side)].append(float(value))
bad = 0
print(f"# {fabric}, 2x1: latency (us, median of runs), library and library + 1 us spin per call")
print("bytes\tdefault\tspin\tadded")
for size in sorted({s for s, _ in runs}):
    base, spun = (statistics.median(runs[(size, s)]) for s in ("adacomp-osu", "adacomp-osu-spin"))
    ok = abs(spun - base - 1.0) <= tolerance
    bad += not ok
    print(f"{size}\t{base:.3f}\t{spun:.3f}\t{spun - base:+.3f}{'' if ok else '  (not 1 us)'}")
sys.exit(1 if bad else 0)
PY
fi

mkdir -p "$out/raw"
args=(--tests "${TESTS:-latency,bw,mbw_mr}" --max "${MAX:-4M}" "${extra[@]}")
[ -n "${SIZES:-}" ] && args+=(--sizes "$SIZES")  # smpirun drops empty arguments
for fab in ${FABRICS:-hdr 100gbe 25gbe}; do
  read -r gbits latency <<<"$(fabric "$fab")"
  link=${gbits}gbit-${latency}us
  raw=$out/raw/smpi-$link.tsv
  printf 'mpi\tlink\tlayout\trep\tside\ttest\tbytes\tvalue\tunit\titerations\twindow\n' >"$raw"
  for rep in $(seq "${REPS:-2}"); do
    sides="plain default"
    [ $((rep % 2)) = 0 ] && sides="default plain"
    for layout in ${LAYOUTS:-2x1 2x2}; do
      for side in $sides; do
        program=${LIBRARY:-adacomp-osu}
        [ "$side" = plain ] && program=adacomp-osu-plain
        start=$SECONDS
        run "$fab" "$layout" "$program" "${args[@]}" | sed "s/^/smpi\t$link\t$layout\t$rep\t$side\t/" >>"$raw"
        echo "$fab $layout run $rep $side: $((SECONDS - start)) s"
      done
    done
  done
done
/usr/bin/python3 "$root/bench/osu_summary.py" "$out"/raw/smpi-*.tsv --tsv "$out/summary.tsv" --md "$out/summary.md" --wide
echo "p2p_sweep.sh: $out/summary.md"
if [ "$plots" != none ]; then
  /usr/bin/python3 "$root/bench/osu_plot.py" "$out/summary.tsv" --out "$plots"
fi
if [ "${CHECK:-0}" = 1 ] && awk -F'\t' 'NR > 1 && $NF == 1 { found = 1 } END { exit !found }' "$out/summary.tsv"; then
  echo "p2p_sweep.sh: cells below the target (bold in $out/summary.md)" >&2
  exit 1
fi
