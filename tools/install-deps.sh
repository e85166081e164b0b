#!/bin/bash
# Installs everything AdaComp needs on Debian 12 (run as root). Idempotent:
# runs no apt at all when everything is present.
set -euo pipefail
source "$(dirname "$0")/help.sh"
packages=(
  build-essential cmake pkg-config git
  openmpi-bin libopenmpi-dev mpich libmpich-dev gfortran
  libzstd-dev liblz4-dev libzfp-dev libblosc-dev
  clang-14 libclang-rt-14-dev
  iproute2 python3 python3-numpy python3-matplotlib
  libucx-dev  # tools/cluster.sh builds its MPICH finalize fix against UCX
  python3-dev python3-venv  # mpi4py's suite: built from its sdist in a virtualenv
  # The library under SMPI (tools/build.sh smpi, docs/scale.md). Not `simgrid`:
  # no package of that name exists, libsimgrid-dev only provides it, so
  # dpkg never reports it installed and every run would call apt.
  libsimgrid-dev
  lmod tcl man-db  # tests/modules_check.sh: the modules under Lmod, `man -w`
)
# Environment Modules, the other module system, conflicts with lmod as a
# package: tests/modules_check.sh runs its modulecmd.tcl (Tcl only) from the
# package unpacked here.
modules_root=/opt/adacomp-deps/environment-modules
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
have_modules=$(compgen -G "$modules_root/usr/lib/*/modulecmd.tcl" || true)
[ ${#missing[@]} -eq 0 ] && [ -n "$have_modules" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  echo "adacomp: installing ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ -z "$have_modules" ]; then
  echo "adacomp: unpacking environment-modules in $modules_root"
  download=$(mktemp -d)
  trap 'rm -rf "$download"' EXIT
  chown _apt "$download" 2>/dev/null || true  # apt downloads as _apt where it can
  (cd "$download" && apt-get download -qq environment-modules)
  mkdir -p "$modules_root"
  dpkg-deb -x "$download"/environment-modules_*.deb "$modules_root"
fi
