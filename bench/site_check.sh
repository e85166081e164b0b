#!/bin/bash
# What a site runs to check AdaComp on its own cluster, and hands back: one
# summary of plain MPI against AdaComp's default settings on two real nodes.
#   bench/site_check.sh [--build DIR] [--out DIR] [--reps N] -- LAUNCH...
# LAUNCH starts 2 ranks, one on each of two nodes, the way the site starts
# jobs: `srun -N 2 -n 2`, or `mpirun -np 2 --map-by node --host a,b`
# (Open MPI), `mpiexec -n 2 -ppn 1 -hosts a,b` (MPICH, Intel MPI). LAUNCH_2X2
# (optional, one string) starts 4 ranks, 2 on each of the two nodes, for the
# OSU tests on that layout too. --build is the AdaComp build tree to check
# (default build/openmpi of this repository: tools/build.sh MPI builds it,
# benchmarks included); --out the folder for the results (default
# build/site-check); --reps the runs of each side (default 5), taking turns
# so that the cluster's noise hits both alike. Runs, each plain and with the
# adacomp launcher, no ADACOMP_* variable and no adacomp.conf:
#   1. the OSU-style latency, bandwidth, bidirectional bandwidth, message
#      rate and wildcard tests, 1 B to MAX [4M], every message checked
#      (adacomp-osu, as bench/osu.sh runs it on the emulated cluster);
#   2. the pass-through cost of an 8-byte ping-pong between the nodes
#      (adacomp-passthrough, as bench/passthrough.sh; CALLS [200000] a run);
#   3. the Intel MPI Benchmarks, when IMB-MPI1 is on PATH or named by IMB:
#      PingPong Sendrecv Allreduce Bcast Alltoall Reduce_scatter;
#   4. the library's instructions per call on this node (bench/instructions.sh:
#      callgrind, 2 local ranks), against the committed table.
# Writes OUT/summary.md (the one file to hand back: the build, the MPI, the
# nodes, every figure and the cells below 0.97x of plain) and OUT/raw/.
# Exits 1 when a run fails or checks wrong data.
set -uo pipefail
source "$(dirname "$0")/../tools/help.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/openmpi out=$root/build/site-check reps=5
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) echo "site_check.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ "${1:-}" = -- ] || { echo "site_check.sh: give the launcher after --" >&2; exit 2; }
shift
[ $# -gt 0 ] || { echo "site_check.sh: give the launcher after --" >&2; exit 2; }
launch=("$@")
read -ra launch4 <<<"${LAUNCH_2X2:-}"
# A launcher named by a relative path still runs from the work folder below.
[[ ${launch[0]} == */* ]] && launch[0]=$(realpath "${launch[0]}")
[[ ${#launch4[@]} -gt 0 && ${launch4[0]} == */* ]] && launch4[0]=$(realpath "${launch4[0]}")
for program in adacomp bench/adacomp-osu bench/adacomp-passthrough; do
  [ -x "$build/$program" ] || { echo "site_check.sh: no $build/$program (tools/build.sh MPI)" >&2; exit 2; }
done
flavor=$("$build/adacomp" --version | sed -n 's/.*(\([a-z0-9]*\))$/\1/p')  # "... (openmpi)"
for name in $(compgen -e | grep '^ADACOMP_' || true); do unset "$name"; done
mkdir -p "$out/raw" && out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"  # no ./adacomp.conf: default settings
failures=0
fail() { echo "site_check.sh: $*" | tee -a "$out/raw/failures.txt" >&2; failures=$((failures + 1)); }
: >"$out/raw/failures.txt"

# on SIDE STARTER PROGRAM...: PROGRAM started by the launcher array named
# STARTER, plain, or through the adacomp launcher on every rank (default).
on() {
  local s=$1
  local -n starter=$2
  shift 2
  if [ "$s" = default ]; then "${starter[@]}" "$build/adacomp" "$@"; else "${starter[@]}" "$@"; fi
}
# Each rep runs both sides, the first of them alternating.
sides_of() { [ $(($1 % 2)) = 1 ] && echo "plain default" || echo "default plain"; }

echo "site_check: the nodes" >&2
hosts=$("${launch[@]}" hostname 2>&1 | sort | uniq -c |
        awk '{ printf "%s%s (%d)", (NR > 1 ? ", " : ""), $2, $1 }')

echo "site_check: OSU-style point-to-point" >&2
osu_raw=$out/raw/osu.tsv
printf 'mpi\tlink\tlayout\trep\tside\ttest\tbytes\tvalue\tunit\titerations\twindow\n' >"$osu_raw"
osu_args=(--tests latency,bw,bibw,mbw_mr,wildcard --max "${MAX:-4M}" --sizes 4064,4128,65504,65568)
for rep in $(seq "$reps"); do
  for layout in 2x1 2x2; do
    starter=launch
    if [ "$layout" = 2x2 ]; then
      [ ${#launch4[@]} -gt 0 ] || continue
      starter=launch4
    fi
    for s in $(sides_of "$rep"); do
      if on "$s" "$starter" "$build/bench/adacomp-osu" "${osu_args[@]}" >run.out 2>run.err; then
        grep -P '^\w+\t\d' run.out | sed "s/^/$flavor\tsite\t$layout\t$rep\t$s\t/" >>"$osu_raw"
      else
        fail "OSU $layout run $rep $s failed: $(tail -2 run.err | tr '\n' ' ')"
      fi
    done
  done
done
python3 "$root/bench/osu_summary.py" "$osu_raw" --tsv "$out/raw/osu-summary.tsv" \
  --md "$out/raw/osu-summary.md" >/dev/null || fail "OSU summary failed"

echo "site_check: pass-through cost between the nodes" >&2
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
plain=() default=()
for rep in $(seq "$reps"); do
  for s in $(sides_of "$rep"); do
    ns=$(on "$s" launch "$build/bench/adacomp-passthrough" pingpong "${CALLS:-200000}" |
         grep -Eo 'median [0-9.]+' | cut -d' ' -f2)
    [ -n "$ns" ] || { fail "pass-through run $rep $s failed"; continue; }
    if [ "$s" = plain ]; then plain+=("$ns"); else default+=("$ns"); fi
  done
done
passthrough="not measured"
if [ ${#plain[@]} -gt 0 ] && [ ${#default[@]} -gt 0 ]; then
  passthrough=$(awk -v p="$(median "${plain[@]}")" -v d="$(median "${default[@]}")" \
    'BEGIN { printf "%.1f ns plain, %.1f ns default: %+.1f ns per message", p, d, d - p }')
fi

imb=${IMB:-$(command -v IMB-MPI1 || true)}
imb_table="not run: no IMB-MPI1 (on PATH, or IMB=path)"
if [ -n "$imb" ]; then
  echo "site_check: Intel MPI Benchmarks" >&2
  mkdir -p "$out/raw/imb"
  for rep in $(seq "$reps"); do
    for s in $(sides_of "$rep"); do
      on "$s" launch "$imb" -npmin 2 -msglog 18 -time 1 \
        PingPong Sendrecv Allreduce Bcast Alltoall Reduce_scatter >"$out/raw/imb/$s-$rep.txt" 2>&1 ||
        fail "IMB run $rep $s failed"
    done
  done
  imb_table=$(python3 "$root/bench/imb_summary.py" "$flavor" "$("$build/adacomp" --version)" \
              "$out/raw/imb" 2>&1) || fail "IMB summary failed"
fi

echo "site_check: instructions per call on this node" >&2
instructions=$("$root/bench/instructions.sh" "$flavor" --check "$build" 2>&1) ||
  fail "instructions per call above the committed table"

{
  echo "# AdaComp site check"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| build | $("$build/adacomp" --version) |"
  echo "| launcher | \`${launch[*]}\`${launch4:+; 2x2: \`${launch4[*]}\`} |"
  echo "| nodes (ranks) | $hosts |"
  echo "| runs of each side | $reps, alternating |"
  echo "| date | $(date -u +%Y-%m-%dT%H:%MZ) |"
  echo "| failed runs | $failures |"
  echo
  echo "## Point-to-point (adacomp-osu; ratio above 1: AdaComp faster)"
  echo
  sed 's/^#/##/' "$out/raw/osu-summary.md" 2>/dev/null || echo "no summary"  # under this heading
  echo
  echo "## Pass-through cost between the nodes (8-byte ping-pong, median)"
  echo
  echo "$passthrough"
  echo
  echo "## Intel MPI Benchmarks"
  echo
  echo "$imb_table"
  echo
  echo "## Instructions per call on this node (bench/instructions.sh)"
  echo
  echo '```'
  echo "$instructions"
  echo '```'
  if [ -s "$out/raw/failures.txt" ]; then
    echo
    echo "## Failed runs"
    echo
    sed 's/^/- /' "$out/raw/failures.txt"
  fi
} >"$out/summary.md"
echo "site_check: $out/summary.md"
[ "$failures" = 0 ]
