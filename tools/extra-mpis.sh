#!/bin/bash
# The MPIs beside Debian's pair (docs/mpis.md), run by tools/run-tests.sh or
# alone:   tools/extra-mpis.sh [MPI ...]   (default: openmpi5 mpich5 impi mpiabi)
# Each MPI is installed into its cached virtual environment under build/venv
# (tools/install-mpi.sh), built into build/<MPI> and run through its short
# suite (tools/mpi-short-suite.sh). Then, for those of them named:
#   MPICH's own test suite on MPICH 5 (tests/peer/mpich-suite.py): each
#   program of coll and pt2pt once, on 2 ranks, under forced coding;
#   MPICH 5's build and the standard ABI's installed side by side in one
#   prefix: each installed tree works (tests/install_check.sh), neither
#   overwrites the other's files, and their modules load one at a time
#   (tests/modules_check.sh);
#   the wrong-MPI pairs that the builds' own wrong_mpi tests leave out:
#   Open MPI 4's build (Debian's, built here if missing) under Open MPI 5,
#   MPICH 5's under Intel MPI, Intel MPI's under MPICH 5, the standard ABI's
#   under Open MPI 5 (which has no standard ABI) and a standard-ABI program
#   under MPICH 5's build.
# PEER_SUITE=0 leaves out MPICH's test suite. Prints each stage with the time
# since the start, and closes with "N passed, N failed"; exits non-zero on
# any failure.
set -uo pipefail
source "$(dirname "$0")/help.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
mpis=("$@")
[ $# -gt 0 ] || mpis=(openmpi5 mpich5 impi mpiabi)
"$root/tools/install-deps.sh" || exit 1
SECONDS=0
passed=0 failed=0
stage() { echo "=== [extra MPIs $(printf %3d $((SECONDS / 60)))m$(printf %02d $((SECONDS % 60)))s] $*"; }
# check NAME COMMAND...: one counted check.
check() {
  local name=$1
  shift
  stage "$name"
  if "$@"; then
    passed=$((passed + 1))
  else
    stage "$name FAILED"; failed=$((failed + 1))
  fi
}
have() { [[ " ${mpis[*]} " == *" $1 "* ]]; }
for mpi in "${mpis[@]}"; do
  check "$mpi: short suite (tools/mpi-short-suite.sh)" "$root/tools/mpi-short-suite.sh" "$mpi"
done

# MPICH's test suite on MPICH 5: each program of coll and pt2pt once, on at
# most 2 ranks (MPICH busy-polls: 3 ranks on 2 cores crawl), under forced
# coding: 190 runs in about 3 minutes, the suite's build (kept in
# build/peer/mpich5) about 2 minutes of CPU. Every setting on up to 4 ranks:
# `tests/peer/mpich-suite.py matrix mpich5`.
peer_suite() {
  local suite=$root/tests/peer/mpich-suite.py
  python3 "$suite" build mpich5 coll pt2pt &&
    python3 "$suite" run mpich5 A coll pt2pt --np-max 2 --once \
      --out "$root/build/peer/results/ci-mpich5.tsv"
  local status=$?
  python3 "$suite" table "$root/build/peer/results/ci-mpich5.tsv"
  return $status
}
if have mpich5 && [ "${PEER_SUITE:-1}" != 0 ]; then
  mkdir -p "$root/build/peer/results"
  check "mpich5: MPICH's test suite with AdaComp (coll pt2pt: A; np <= 2)" peer_suite
fi

# Two builds in one prefix: MPICH 5's (flavour mpich, the plain names) and
# the standard ABI's, each installed from the tree its short suite built.
side_by_side() {
  local prefix flavor build status=0
  prefix=$(mktemp -d /tmp/adacomp-prefix.XXXXXX)
  BUILD_ROOT=$root/build "$root/tools/install.sh" "$prefix" mpich5 mpiabi || status=1
  for pair in mpich:mpich5 mpiabi:mpiabi; do
    flavor=${pair%:*} build=$root/build/${pair#*:}
    [ $status = 0 ] || break
    # The program install_check.sh runs under the installed launcher.
    cmake --build "$build" --target adacomp-demo >/dev/null || { status=1; break; }
    # The installed library is the one its own build made (same build ID).
    [ "$(build_id "$prefix/lib/libadacomp-$flavor.so")" = "$(build_id "$build/libadacomp-$flavor.so")" ] ||
      { echo "FAIL: $prefix/lib/libadacomp-$flavor.so is not $build's"; status=1; }
    "$root/tests/install_check.sh" "$flavor" "$prefix" "$build" || status=1
  done
  if [ $status = 0 ]; then
    "$root/tests/modules_check.sh" "$prefix" || status=1
    "$prefix/bin/adacomp" --version | grep -q "(mpich)" ||
      { echo "FAIL: the plain names are not MPICH 5's build"; status=1; }
  fi
  rm -rf "$prefix"
  return $status
}
build_id() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }
if have mpich5 && have mpiabi; then
  check "side-by-side install (mpich5 + mpiabi in one prefix)" side_by_side
fi

# Each pair: BUILD_DIR OTHER_MPI FLAVOUR_NAMED (tests/wrong_mpi_check.sh).
pairs=()
if have openmpi5; then
  [ -x "$root/build/openmpi/adacomp" ] ||
    "$root/tools/build.sh" openmpi "$root/build/openmpi" --target adacomp_installed >/dev/null
  pairs+=("openmpi openmpi5 openmpi5")
fi
have mpich5 && have impi && pairs+=("mpich5 impi impi" "impi mpich5 mpich")
have mpiabi && have openmpi5 && pairs+=("mpiabi openmpi5 openmpi5")
have mpiabi && have mpich5 && pairs+=("mpich5 mpiabi mpiabi")
for pair in "${pairs[@]}"; do
  read -r build other expected <<<"$pair"
  check "wrong MPI: $build's build under a program of $other" \
    "$root/tests/wrong_mpi_check.sh" "$root/build/$build" "$other" "$expected"
done
stage "done"
echo "extra MPIs: $passed passed, $failed failed"
[ $failed = 0 ]
