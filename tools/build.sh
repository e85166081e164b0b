#!/bin/bash
# Builds AdaComp against one MPI: tools/build.sh openmpi|mpich|smpi [BUILD_DIR]
# (default build/<mpi>). The library is built against the MPI it runs with;
# smpi builds it for SimGrid's simulator (docs/scale.md).
set -euo pipefail
flavor=${1:?usage: tools/build.sh openmpi|mpich|smpi [BUILD_DIR]}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/build/$flavor}
case $flavor in
  openmpi|mpich|smpi) ;;
  *) echo "unknown MPI '$flavor' (openmpi|mpich|smpi)" >&2; exit 2 ;;
esac
mkdir -p "$build"
if [ "$flavor" = smpi ]; then
  CC=smpicc CXX=smpicxx cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DADACOMP_SMPI=ON >"$build/cmake.log" 2>&1 || { cat "$build/cmake.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)"
  exit
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DMPI_C_COMPILER=mpicc.$flavor -DMPI_CXX_COMPILER=mpicxx.$flavor \
  -DMPI_Fortran_COMPILER=mpif90.$flavor \
  -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.$flavor >"$build/cmake.log" 2>&1 ||
  { cat "$build/cmake.log"; exit 1; }
cmake --build "$build" -j"$(nproc)"
