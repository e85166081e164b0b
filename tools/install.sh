#!/bin/bash
# Builds and installs AdaComp for both MPIs into one prefix, side by side:
#   tools/install.sh PREFIX [openmpi|mpich ...]     (default: openmpi mpich)
# Each build's library and tools carry its MPI in their names
# (libadacomp-openmpi.so, adacomp-mpich, ...); the first flavour named also
# gets the plain names (adacomp, adacomp-calibrate, libadacomp.so,
# adacomp.pc, find_package(AdaComp) without a component). Build trees:
# build/<flavour> (BUILD_ROOT to change).
set -euo pipefail
prefix=${1:?usage: tools/install.sh PREFIX [openmpi|mpich ...]}
shift
flavors=("${@:-openmpi}")
[ $# -gt 0 ] || flavors=(openmpi mpich)
root=$(cd "$(dirname "$0")/.." && pwd)
build_root=${BUILD_ROOT:-$root/build}
# The default flavour last, so its plain names are the ones left in place.
default=${flavors[0]}
order=("${flavors[@]:1}" "$default")
for flavor in "${order[@]}"; do
  build=$build_root/$flavor
  "$root/tools/build.sh" "$flavor" "$build" >/dev/null
  names=OFF
  [ "$flavor" = "$default" ] && names=ON
  cmake -S "$root" -B "$build" -DADACOMP_DEFAULT_NAMES=$names >/dev/null
  cmake --install "$build" --prefix "$prefix" >/dev/null
  echo "adacomp: installed the $flavor build in $prefix (default names: $names)"
done
