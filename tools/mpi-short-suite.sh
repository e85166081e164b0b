#!/bin/bash
# The short run for an MPI beside Debian's pair (tools/run-tests.sh runs it
# for each): tools/mpi-short-suite.sh openmpi5|mpich5|impi|mpiabi
# Installs that MPI into its cached venv (tools/install-mpi.sh), builds the
# library and the programs below into build/<MPI>, then runs through ctest:
#   the unit tests (codecs, wire, policy: no MPI);
#   forced lossless Allreduce, Reduce, Bcast (collectives: exact against
#   plain MPI, coded path checked) on 2 and 3 ranks, Alltoallv, Gather and
#   the other movements (gather) on 2 and 3, point-to-point (p2p) on 2 and 4,
#   the standard's point-to-point rules (p2p_conformance);
#   forced lossy Allreduce, Reduce_scatter and Bcast within the bound
#   (lossy_abs) on 2 and 4 ranks, each checked coded;
#   the wrong-MPI message (wrong_mpi: the pair in tests/CMakeLists.txt).
# Prints the seconds it took. Exits non-zero on any failure.
set -uo pipefail
source "$(dirname "$0")/help.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
mpi=${1:?usage: tools/mpi-short-suite.sh openmpi5|mpich5|impi|mpiabi}
build=$root/build/$mpi
mkdir -p "$root/build"  # a fresh clone has none: its log goes beside the tree
SECONDS=0
"$root/tools/build.sh" "$mpi" "$build" --target short_suite >"$build.log" 2>&1 ||
  { tail -40 "$build.log"; echo "$mpi: BUILD FAILED"; exit 1; }
echo "$mpi: built $("$build/adacomp" --version) in ${SECONDS}s"
tests='^(codec_(roundtrip|corrupt)|decision_.*|wire_.*|runtime_handle_table|collectives_np[23]|gather_np[23]'
tests+='|p2p_np[24]|p2p_conformance_forced_np[12]|lossy_abs_np[24]|wrong_mpi)$'
(cd "$build" && ctest --output-on-failure -j1 -R "$tests")
status=$?
echo "$mpi: short suite done in ${SECONDS}s"
exit $status
