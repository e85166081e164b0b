#!/bin/bash
# ASan + UBSan: builds the library and its MPI and unit tests with both
# sanitizers against Open MPI (BUILD_DIR, default build/asan-openmpi) and runs
# the Open MPI test suite on 1-2 ranks, plus the 2+2 node-aware checks (the
# 3+ rank, tool, launcher, cluster and configuration tests are left out: they
# run the same code, only longer).
# Any sanitizer report fails: UBSan does not recover, ASan stops at its first
# error, and the output is also searched for reports.
#
# ASAN_OPTIONS (set here; use the same by hand with mpirun -x or env):
#   detect_leaks=0            Open MPI keeps its allocations to exit (thousands
#                             of reports, none ours); no leak check
#   verify_asan_link_order=0  ASan is not first in a process that mpirun or the
#                             adacomp launcher starts through LD_PRELOAD
#   abort_on_error=1, halt_on_error=1
# UBSAN_OPTIONS: print_stacktrace=1:halt_on_error=1
set -uo pipefail
source "$(dirname "$0")/help.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/asan-openmpi}
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=None \
  -DMPI_C_COMPILER=mpicc.openmpi -DMPI_CXX_COMPILER=mpicxx.openmpi \
  -DMPI_Fortran_COMPILER=mpif90.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_Fortran_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >"$build/cmake.log" 2>&1 ||
  { cat "$build/cmake.log"; exit 1; }
# The library, the tests' executables (not the Fortran ones, tools or benchmarks),
# the solver a test runs (adacomp-cg) and the codecs tool the advisor's test
# reads its captures with (adacomp-codecs).
targets=$(cmake --build "$build" --target help | grep -Eo '(test_[a-z0-9_]+|[a-z0-9_]+_test|fake_cuda)$' |
          grep -v fortran | sort -u)
cmake --build "$build" -j"$(nproc)" --target adacomp adacomp-cg adacomp-codecs $targets >"$build/build.log" 2>&1 ||
  { tail -40 "$build/build.log"; exit 1; }
export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
log="$build/ctest.log"
# Node-aware paths: the 2+2 node-aware and point-to-point checks (four
# ranks); the collectives' whole matrix over node layouts and the emulated
# cluster run the same code, only longer. The instruction counts are the
# uninstrumented build's (its own ctest).
(cd "$build" && ctest --output-on-failure -j1 -LE cluster \
   -E 'np[3-8]|_raw_|recv_leak|calibrate|launcher|fortran|invalid_config|config_sources|mismatched|sender_settings|fatal|collectives_nodes|lossy_nodes|1_2_3|leaders|demo|install|tools_help|osu_|report_tool|report_verdict|instructions_per_call') \
  2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if grep -Eq 'ERROR: AddressSanitizer|runtime error:' "$log"; then
  echo "=== sanitizer reports:"; grep -E 'ERROR: AddressSanitizer|runtime error:' "$log" | sort | uniq -c
  status=1
fi
exit "$status"
