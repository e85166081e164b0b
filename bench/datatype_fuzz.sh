#!/bin/bash
# The differential datatype test's long run (tests/mpi/datatype, docs/testing.md
# "Datatypes"): more seeds, more types, every setting, on one or both MPIs.
# Prints each run's coverage line and, at the end, the types, calls and
# differences summed; exits non-zero on any difference or failed run.
#   bench/datatype_fuzz.sh [SEEDS [TYPES]]     (default SEEDS "1 2 3 4 5", TYPES 500)
# Subsets through the environment: MPIS [openmpi mpich], SETTINGS [raw
# lossless lossy nodes], NP [2] ranks (nodes: NP ranks as NP nodes),
# TIMEOUT [1800] seconds per run, BUILD_PREFIX [build/] (MPI m's build is
# BUILD_PREFIXm, built with tests: tools/build.sh m).
# A run that fails is run again with plain MPI against itself (--plain-twice):
# where that fails too, the installed MPI cannot be the oracle for that seed
# (MPICH 4.0.2's own Send fails on some types with blocks of no elements or
# zero strides, as on seeds 1 and 3; seed 50, the one CI runs, is clear) and
# the run counts as "plain MPI failed", not against the library.
# A difference prints the line that replays it:
#   mpirun -np NP build/m/tests/test_datatype_fuzz --seed S --first K --types 1 --family NAME
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
read -ra seeds <<<"${1:-1 2 3 4 5}"
types=${2:-500}
read -ra mpis <<<"${MPIS:-openmpi mpich}"
read -ra settings <<<"${SETTINGS:-raw lossless lossy nodes}"
np=${NP:-2} timeout=${TIMEOUT:-1800}
build_prefix=${BUILD_PREFIX:-build/}
[[ $build_prefix = /* ]] || build_prefix=$root/$build_prefix
for name in $(compgen -e | grep '^ADACOMP_' || true); do unset "$name"; done

forced=(ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_THRESHOLD_P2P=0 ADACOMP_NONBLOCKING=on)
setting_env() {  # the same settings as tests/mpi/datatype/suites.cmake
  case $1 in
    raw) echo ADACOMP_MODE=raw ;;
    lossless) echo ADACOMP_MODE=lossless "${forced[@]}" ;;
    lossy) echo ADACOMP_MODE=lossy ADACOMP_REL_ERROR_BOUND=1e-4 ADACOMP_THRESHOLD_LOSSY=0 "${forced[@]}" ;;
    nodes) echo "ADACOMP_NODE_MAP=$(seq -s, "$np" | sed 's/[0-9]\+/1/g')" ;;
    *) echo "unknown setting '$1' (raw lossless lossy nodes)" >&2; exit 2 ;;
  esac
}

total_types=0 total_calls=0 total_differences=0 failed=0 plain_failed=0
for mpi in "${mpis[@]}"; do
  exe=${build_prefix}$mpi/tests/test_datatype_fuzz
  [ -x "$exe" ] || { echo "no $exe: build it with tools/build.sh $mpi" >&2; exit 2; }
  launch=(mpirun."$mpi" -np "$np")
  [ "$mpi" = openmpi ] && launch+=(--oversubscribe --allow-run-as-root)
  for setting in "${settings[@]}"; do
    read -ra env_vars <<<"$(setting_env "$setting")"
    for seed in "${seeds[@]}"; do
      start=$(date +%s)
      out=$(env "${env_vars[@]}" timeout "$timeout" "${launch[@]}" "$exe" --seed "$seed" \
              --types "$types" 2>&1)
      rc=$?
      summary=$(grep 'calls per rank' <<<"$out" | tail -1)
      printf '%-8s %-9s seed %-6s %4ss  %s\n' "$mpi" "$setting" "$seed" $(($(date +%s) - start)) \
        "${summary:-FAILED (exit $rc)}"
      if [ -z "$summary" ] && ! ADACOMP_MODE=raw timeout "$timeout" "${launch[@]}" "$exe" \
          --seed "$seed" --types "$types" --plain-twice >/dev/null 2>&1; then
        plain_failed=$((plain_failed + 1))
        echo "  plain MPI fails this seed too (--plain-twice): not counted against the library"
      elif [ -z "$summary" ] || [ $rc -ne 0 ]; then
        failed=$((failed + 1))
        grep -E 'DIFF|replay|rror|signal' <<<"$out" | head -20
      fi
      if [ -n "$summary" ]; then
        calls=$(sed -E 's/.* ([0-9]+) calls per rank.*/\1/' <<<"$summary")
        differences=$(sed -E 's/.* ([0-9]+) differences.*/\1/' <<<"$summary")
        total_types=$((total_types + types))
        total_calls=$((total_calls + calls))
        total_differences=$((total_differences + differences))
      fi
    done
  done
done
echo "datatype fuzz, long run: $total_types types, $total_calls calls per rank," \
     "$total_differences differences, $failed failed runs, $plain_failed where plain MPI failed"
[ "$total_differences" -eq 0 ] && [ "$failed" -eq 0 ]
