#!/bin/bash
# Builds AdaComp against one MPI:
#   tools/build.sh openmpi|mpich|smpi [BUILD_DIR [CMAKE_OPTION...] [--target TARGET]]
# (default build/<mpi>): everything, tests, demo and benchmarks included
# (-DBUILD_TESTING=ON), as the test suite needs. CMAKE_OPTIONs (-DNAME=VALUE)
# come after the defaults; --target builds that target alone (tools/install.sh
# builds adacomp_installed). The library is built against the MPI it runs
# with; smpi builds it for SimGrid's simulator (docs/scale.md).
set -euo pipefail
source "$(dirname "$0")/help.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
flavor=${1:?usage: tools/build.sh openmpi|mpich|smpi [BUILD_DIR [CMAKE_OPTION...] [--target TARGET]]}
build=${2:-$root/build/$flavor}
options=() target=()
for arg in "${@:3}"; do
  if [ "$arg" = --target ]; then target=(--target)
  elif [ ${#target[@]} = 1 ]; then target+=("$arg")
  else options+=("$arg"); fi
done
case $flavor in
  openmpi|mpich) mpi=(-DMPI_C_COMPILER=mpicc.$flavor -DMPI_CXX_COMPILER=mpicxx.$flavor
                      -DMPI_Fortran_COMPILER=mpif90.$flavor -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.$flavor) ;;
  smpi) mpi=(-DADACOMP_SMPI=ON) && export CC=smpicc CXX=smpicxx ;;
  *) echo "unknown MPI '$flavor' (openmpi|mpich|smpi)" >&2; exit 2 ;;
esac
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON "${mpi[@]}" "${options[@]}" \
  >"$build/cmake.log" 2>&1 || { cat "$build/cmake.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" "${target[@]}"
