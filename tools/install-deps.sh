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
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "adacomp: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
