#!/bin/bash
# OSU-style point-to-point benchmarks on the emulated cluster
# (tools/cluster.sh, 2 nodes): bench/osu_bench.c under plain MPI and under
# AdaComp with default settings (the adacomp launcher; no adacomp.conf, no
# ADACOMP_* variables) side by side, taking turns run by run (the first of
# the two alternates) so that machine noise hits both alike. Every run
# checks its data. Writes, under OUT_DIR (default bench/results/osu):
#   raw/<mpi>-<link>.tsv  every run's lines (replaced when that MPI and link run again)
#   summary.tsv, summary.md  medians over runs and default/plain per size
# and PLOTS/osu-<link>.png (bench/osu_plot.py; PLOTS defaults to bench/results).
#   bench/osu.sh [OUT_DIR]
# Subsets through the environment (defaults in brackets):
#   MPIS     [openmpi mpich]
#   LINKS    [unshaped 25gbit 10gbit 1gbit]   (tc rates, or unshaped)
#   LAYOUTS  [2x1 2x2]                        (nodes x ranks per node)
#   TESTS    [latency,bw,bibw,mbw_mr,wildcard]
#   REPS     [5]                              runs of each side
#   SIZES    [4064,4128,65504,65568]          besides the powers of two:
#            around Open MPI's shared-memory (4 KB) and TCP (64 KB) eager limits
#   MAX      [4M]; OSU_ARGS: more adacomp-osu options (e.g. --sample-time 0.01)
#   TIMEOUT  [300] seconds a run may take; a failed run is logged under
#            OUT_DIR/failures/, tried once more, listed in summary.md, and
#            makes the script exit 1 at the end
# More ranks than cores (2x2 on a 2-core machine): every wait of the tests
# that keep all ranks busy polls with sched_yield (--yield), so that a
# waiting rank gives its core to a working one; Open MPI's own waits yield
# too (mpi_yield_when_idle). MPICH 4.0 over UCX has no such setting (its
# MPIR_CVAR_POLLS_BEFORE_YIELD is ch3's): its blocking calls spin. The
# ranks a test leaves out sleep. Run it on an idle machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$root/bench/results/osu}" && cd "${1:-$root/bench/results/osu}" && pwd)
plots=$(mkdir -p "${PLOTS:-$root/bench/results}" && cd "${PLOTS:-$root/bench/results}" && pwd)
mpis=${MPIS:-openmpi mpich}
links=${LINKS:-unshaped 25gbit 10gbit 1gbit}
layouts=${LAYOUTS:-2x1 2x2}
reps=${REPS:-5}
args=(--tests "${TESTS:-latency,bw,bibw,mbw_mr,wildcard}" --max "${MAX:-4M}"
      --sizes "${SIZES:-4064,4128,65504,65568}")
read -ra extra <<<"${OSU_ARGS:-}"
args+=("${extra[@]}")
# Default settings: nothing of the caller's configuration reaches the ranks
# (tools/cluster.sh passes its environment on), and their working directory
# has no adacomp.conf.
for name in $(compgen -e | grep '^ADACOMP_' || true); do unset "$name"; done
work=$(mktemp -d)
cd "$work"
export CLUSTER_PREFIX=osu-$$
trap 'cd /; "$root/tools/cluster.sh" down; rm -rf "$work"' EXIT
mkdir -p "$out/raw"
failures=$work/failures
: >"$failures"
timeout=${TIMEOUT:-300}
for flavor in $mpis; do
  build=$root/build/$flavor
  if [ ! -x "$build/bench/adacomp-osu" ] || [ ! -x "$build/adacomp" ]; then
    "$root/tools/build.sh" "$flavor" "$build" --target adacomp >/dev/null
    cmake --build "$build" --target adacomp-osu >/dev/null
  fi
  for link in $links; do
    raw=$out/raw/$flavor-$link.tsv
    printf 'mpi\tlink\tlayout\trep\tside\ttest\tbytes\tvalue\tunit\titerations\twindow\n' >"$raw"
    "$root/tools/cluster.sh" up 2 "$link"
    for rep in $(seq "$reps"); do
      sides="plain default"
      [ $((rep % 2)) = 0 ] && sides="default plain"
      for layout in $layouts; do
        ranks=$(( ${layout%x*} * ${layout#*x} ))
        polling=() envs=()
        if [ "$ranks" -gt "$(nproc)" ]; then
          polling=(--yield)
          [ "$flavor" = openmpi ] && envs=(--env OMPI_MCA_mpi_yield_when_idle=1)
        fi
        for side in $sides; do
          program=("$build/bench/adacomp-osu")
          [ "$side" = default ] && program=("$build/adacomp" "${program[@]}")
          # A failed run (a hang past TIMEOUT, a data mismatch) is logged
          # and tried once more; its lines are not kept.
          for try in 1 2; do
            start=$SECONDS name="$flavor $link $layout run $rep/$reps $side"
            "$root/tools/cluster.sh" run "$flavor" "$layout" "${envs[@]}" --timeout "$timeout" -- \
              "${program[@]}" "${args[@]}" "${polling[@]}" >run.out 2>run.err && status=0 || status=$?
            if [ "$status" = 0 ]; then
              grep -P '^\w+\t\d' run.out | sed "s/^/$flavor\t$link\t$layout\t$rep\t$side\t/" >>"$raw"
              echo "$name: $((SECONDS - start)) s"
              break
            fi
            log=$out/failures/$flavor-$link-$layout-$rep-$side-$try.log
            mkdir -p "$out/failures" && cat run.out run.err >"$log"
            echo "$name (try $try): exit $status after $((SECONDS - start)) s, last result:" \
                 "$(grep -P '^\w+\t\d' run.out | tail -1 | tr '\t' ' '); $log" | tee -a "$failures" >&2
            "$root/tools/cluster.sh" up 2 "$link"  # anew: no rank of that job left running
          done
        done
      done
    done
    "$root/tools/cluster.sh" down
  done
done
/usr/bin/python3 "$root/bench/osu_summary.py" "$out"/raw/*.tsv --tsv "$out/summary.tsv" --md "$out/summary.md"
/usr/bin/python3 "$root/bench/osu_plot.py" "$out/summary.tsv" --out "$plots"
echo "osu.sh: $out/summary.md, plots in $plots/osu-<link>.png"
if [ -s "$failures" ]; then
  { echo; echo "## Failed runs (not in the tables)"; echo; sed 's/^/- /' "$failures"; } >>"$out/summary.md"
  echo "osu.sh: $(wc -l <"$failures") failed run(s), listed in $out/summary.md" >&2
  exit 1
fi
