#!/bin/bash
# Builds and installs AdaComp for several MPIs into one prefix, side by side:
#   tools/install.sh PREFIX [MPI ...]     (default: openmpi mpich)
# MPI as tools/build.sh takes it (openmpi, mpich, openmpi5, mpich5, impi,
# mpiabi, ...). Each build's library and tools carry its MPI's flavour in
# their names (libadacomp-openmpi5.so, adacomp-impi, ...); the first named also
# gets the plain names (adacomp, adacomp-calibrate, libadacomp.so,
# adacomp.pc, find_package(AdaComp) without a component). Builds only what
# it installs (the library, launcher, calibrator and codecs tool), in trees
# configured without tests: BUILD_ROOT/<MPI> (default build/install). A
# tree the test suite built (BUILD_ROOT=build, as CI does) keeps its tests.
set -euo pipefail
source "$(dirname "$0")/help.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:?usage: tools/install.sh PREFIX [MPI ...]}
shift
flavors=("${@:-openmpi}")
[ $# -gt 0 ] || flavors=(openmpi mpich)
build_root=${BUILD_ROOT:-$root/build/install}
# The default flavour last, so its plain names are the ones left in place.
default=${flavors[0]}
order=("${flavors[@]:1}" "$default")
for flavor in "${order[@]}"; do
  build=$build_root/$flavor
  names=OFF
  [ "$flavor" = "$default" ] && names=ON
  testing=$(sed -n 's/^BUILD_TESTING:BOOL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
  "$root/tools/build.sh" "$flavor" "$build" -DBUILD_TESTING="${testing:-OFF}" \
    -DADACOMP_DEFAULT_NAMES=$names --target adacomp_installed >/dev/null
  cmake --install "$build" --prefix "$prefix" >/dev/null
  echo "adacomp: installed the $flavor build in $prefix (default names: $names)"
done
