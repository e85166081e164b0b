#!/bin/bash
# Builds AdaComp against one MPI: tools/build.sh openmpi|mpich [BUILD_DIR]
# (default build/<mpi>). The library is built against the MPI it runs with.
set -euo pipefail
flavor=${1:?usage: tools/build.sh openmpi|mpich [BUILD_DIR]}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/build/$flavor}
case $flavor in
  openmpi|mpich) ;;
  *) echo "unknown MPI '$flavor' (openmpi|mpich)" >&2; exit 2 ;;
esac
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DMPI_C_COMPILER=mpicc.$flavor -DMPI_CXX_COMPILER=mpicxx.$flavor \
  -DMPI_Fortran_COMPILER=mpif90.$flavor \
  -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.$flavor >"$build/cmake.log" 2>&1 ||
  { cat "$build/cmake.log"; exit 1; }
cmake --build "$build" -j"$(nproc)"
