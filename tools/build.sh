#!/bin/bash
# Builds AdaComp against one MPI:
#   tools/build.sh MPI [BUILD_DIR [CMAKE_OPTION...] [--target TARGET]]
# (default build/<MPI>): everything, tests, demo and benchmarks included
# (-DBUILD_TESTING=ON), as the test suite needs. MPI is one of
#   openmpi, mpich   Debian's (mpicc.openmpi, mpirun.mpich, ...)
#   openmpi5, mpich5, impi
#                    Open MPI 5, MPICH 5, Intel MPI, each in its virtual
#                    environment under build/venv (tools/install-mpi.sh
#                    installs it there first if needed)
#   mpiabi           the MPI-5 standard ABI: mpicc_abi on PATH, else MPICH 5's
#   env              the MPI in $MPI_HOME, else the one whose mpicc is on PATH
#   /a/prefix        the MPI installed there (PREFIX/bin/mpicc ...)
#   smpi             SimGrid's simulator (docs/scale.md)
# The build's names (libadacomp-<flavour>.so ...) come from the mpi.h it
# compiles against (cmake/mpi_flavor.cmake), not from MPI. Fortran is that
# MPI's own wrapper (mpif90 beside mpicc), or off where it has none.
# CMAKE_OPTIONs (-DNAME=VALUE) come after the defaults; --target builds that
# target alone (tools/install.sh builds adacomp_installed).
set -euo pipefail
source "$(dirname "$0")/help.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: tools/build.sh openmpi|mpich|openmpi5|mpich5|impi|mpiabi|env|PREFIX|smpi [BUILD_DIR [CMAKE_OPTION...] [--target TARGET]]"
mpi=${1:?$usage}
build=${2:-$root/build/$(basename "$mpi")}
options=() target=()
for arg in "${@:3}"; do
  if [ "$arg" = --target ]; then target=(--target)
  elif [ ${#target[@]} = 1 ]; then target+=("$arg")
  else options+=("$arg"); fi
done
# wrappers BINDIR SUFFIX: the MPI whose wrappers are BINDIR/mpicc$SUFFIX ...
# (mpicc_abi: the standard ABI's, launched by the MPI's own mpiexec);
# Fortran only if that MPI has its own (never another MPI's mpif90).
wrappers() {
  local bin=$1 suffix=$2
  [ -x "$bin/mpicc$suffix" ] || { echo "tools/build.sh: no $bin/mpicc$suffix" >&2; exit 2; }
  # Intel MPI's wrappers find their MPI through I_MPI_ROOT.
  [ -x "$bin/impi_info" ] && export I_MPI_ROOT=${I_MPI_ROOT:-$(dirname "$bin")}
  cmake_mpi=(-DMPI_C_COMPILER="$bin/mpicc$suffix" -DMPI_CXX_COMPILER="$bin/mpicxx$suffix")
  # mpiexec, the standard's launcher (Intel MPI's mpirun fails to start
  # ranks outside its own environment script); Debian's pair: mpirun.<mpi>.
  local launcher=$bin/mpiexec$suffix
  [ "$suffix" = ".openmpi" ] || [ "$suffix" = ".mpich" ] && launcher=$bin/mpirun$suffix
  [ -x "$launcher" ] || launcher=$bin/mpiexec
  cmake_mpi+=(-DMPIEXEC_EXECUTABLE="$launcher")
  if [ -x "$bin/mpif90$suffix" ] && fortran_modules "$bin/mpif90$suffix"; then
    cmake_mpi+=(-DMPI_Fortran_COMPILER="$bin/mpif90$suffix")
  else
    cmake_mpi+=(-DADACOMP_FORTRAN=OFF)
  fi
}
# Whether a Fortran wrapper's MPI ships its modules (use mpi): Intel MPI's
# wheel has only mpif.h, and its wrapper names an include directory that is
# not there (include/gfortran/VERSION), which FindMPI refuses.
fortran_modules() {
  local dirs
  dirs=$("$1" -show 2>/dev/null | tr ' ' '\n' | sed -n 's/^-I"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p')
  for dir in $dirs; do [ -d "$dir" ] || return 1; done
}
case $mpi in
  openmpi|mpich) wrappers /usr/bin ".$mpi" ;;
  openmpi5|mpich5|impi) wrappers "$("$root/tools/install-mpi.sh" "$mpi")/bin" "" ;;
  mpiabi)
    if command -v mpicc_abi >/dev/null; then bin=$(dirname "$(command -v mpicc_abi)")
    else bin=$("$root/tools/install-mpi.sh" mpich5)/bin; fi
    wrappers "$bin" _abi ;;
  env)
    if [ -n "${MPI_HOME:-}" ]; then bin=$MPI_HOME/bin
    else bin=$(dirname "$(command -v mpicc)") || { echo "tools/build.sh: no MPI_HOME and no mpicc on PATH" >&2; exit 2; }; fi
    wrappers "$bin" "" ;;
  smpi) cmake_mpi=(-DADACOMP_SMPI=ON) && export CC=smpicc CXX=smpicxx ;;
  /*) wrappers "$mpi/bin" "" ;;
  *) echo "unknown MPI '$mpi'; $usage" >&2; exit 2 ;;
esac
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON "${cmake_mpi[@]}" "${options[@]}" \
  >"$build/cmake.log" 2>&1 || { cat "$build/cmake.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" "${target[@]}"
