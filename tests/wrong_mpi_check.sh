#!/bin/bash
# usage: wrong_mpi_check.sh BUILD_DIR FLAVOR
# A program of the other MPI (both are installed here) run with this build
# must stop with one message naming both MPIs and the build to use: from the
# launcher (ldd), at MPI_Init when the library is preloaded by hand, and at
# MPI_Init when the program loads its MPI itself later (as python/mpi4py
# does: then this build's MPI is initialised, and the program's found loaded).
set -u
build=$1 flavor=$2
fail() { echo "FAIL: $*"; exit 1; }
case $flavor in
  openmpi) other=mpich; other_name=MPICH; mine="Open MPI"; run=(mpirun.mpich -np 2) ;;
  mpich) other=openmpi; other_name="Open MPI"; mine=MPICH
         run=(mpirun.openmpi --oversubscribe --allow-run-as-root -np 2) ;;
esac
dir=$(mktemp -d /tmp/adacomp-wrongmpi.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/plain.c" <<'C'
#include <mpi.h>
int main(int argc, char** argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
C
mpicc.$other "$dir/plain.c" -o "$dir/plain" || fail "cannot build a $other program"
"${run[@]}" "$build/adacomp" "$dir/plain" >"$dir/launcher.out" 2>&1 && fail "launcher accepted a $other program"
grep -q "built for $mine [0-9.]*, $dir/plain uses $other_name (.*): use .*adacomp-$other" "$dir/launcher.out" ||
  { cat "$dir/launcher.out"; fail "launcher message"; }
[ "$(grep -c 'built for' "$dir/launcher.out")" -eq 1 ] || fail "launcher message not printed once"
if [ $other = openmpi ]; then preload=(-x LD_PRELOAD="$build/libadacomp-$flavor.so")
else preload=(env LD_PRELOAD="$build/libadacomp-$flavor.so"); fi
timeout 60 "${run[@]}" "${preload[@]}" "$dir/plain" >"$dir/init.out" 2>&1 && fail "MPI_Init accepted $other_name"
grep -q "adacomp: built for $mine [0-9.]*, this program uses $other_name [0-9.]*: use adacomp-$other" "$dir/init.out" ||
  { cat "$dir/init.out"; fail "MPI_Init message"; }
[ "$(grep -c 'built for' "$dir/init.out")" -eq 1 ] || fail "MPI_Init message not printed once"
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
mpicc.$other -shared -fPIC "$dir/module.c" -o "$dir/module.so" && cc "$dir/host.c" -o "$dir/host" ||
  fail "cannot build the dlopen case"
timeout 60 "${run[@]}" "$build/adacomp" "$dir/host" "$dir/module.so" >"$dir/dlopen.out" 2>&1 &&
  fail "MPI_Init accepted $other_name loaded later"
grep -q "adacomp: built for $mine [0-9.]*, this program uses $other_name [0-9.]*: use adacomp-$other" "$dir/dlopen.out" ||
  { cat "$dir/dlopen.out"; fail "MPI_Init message (MPI loaded later)"; }
echo "ok: $(grep 'built for' "$dir/launcher.out")"
echo "ok: $(grep 'built for' "$dir/init.out")"
