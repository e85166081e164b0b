#!/bin/bash
# The folder switches of one call's walk: builds the
# library with -finstrument-functions in BUILD (default build/walk-openmpi),
# runs tools/walk/walk_trace.c on 2 ranks declared as 2 nodes, forced
# lossless, and prints tools/walk/walk.py's count and walk for rank 0's call.
#   tools/walk/walk.sh [CALL [BYTES [BUILD]]]   CALL: allreduce | iallreduce | send
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
call=${1:-allreduce} bytes=${2:-1048576} build=${3:-$root/build/walk-openmpi}
flags="-gdwarf-4 -finstrument-functions -finstrument-functions-exclude-file-list=/usr/include"
"$root/tools/build.sh" openmpi "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_C_FLAGS=$flags" --target adacomp >/dev/null
mpicc.openmpi -O1 -rdynamic -o "$build/walk_trace" "$root/tools/walk/walk_trace.c" -ldl
out=$(mktemp)
trap 'rm -f "$out"' EXIT
ADACOMP_NODE_MAP=1,1 ADACOMP_MODE=lossless ADACOMP_NONBLOCKING=on \
  timeout 120 mpirun.openmpi --oversubscribe --allow-run-as-root -np 2 \
  -x ADACOMP_NODE_MAP -x ADACOMP_MODE -x ADACOMP_NONBLOCKING \
  -x LD_PRELOAD="$build/libadacomp-openmpi.so" "$build/walk_trace" "$call" "$bytes" "$out"
python3 "$root/tools/walk/walk.py" "$out"
