#!/bin/bash
# Instructions AdaComp itself executes per intercepted call, on each route,
# counted exactly (valgrind's callgrind on rank 0 of adacomp-instructions,
# 2 ranks on this host):
#   passthrough  one node: every call passes straight to MPI
#   direct       two declared nodes (ADACOMP_NODE_MAP=1,1), the route
#                between them direct (ADACOMP_P2P_ROUTE=direct)
#   framed       the same, the route framed: messages as sent, not coded
#   coded        framed, forced lossless from 1 KB, 4 KB messages: every
#                message and collective coded (the codec's work included)
# What is counted: the instructions inside the library's MPI_<Name> entry
# points, less everything inside the PMPI_<Name> calls they make (callgrind
# toggles collection on entering and leaving each MPI_* and PMPI_*
# function), so MPI's own progress and polling, which vary from run to run,
# are not in it, while the library's code, libc and libstdc++ on its behalf
# are. Per call: a dump holding exactly ROUNDS rounds (bench/instructions.c)
# divided by the calls of the round. Prints a TSV (call, route, instructions
# per call) and, with --check, compares it with
# bench/instructions/expected-<mpi>.tsv and fails when any count grows more
# than 20% over it (INSTRUCTIONS_TABLE: another table); --write rewrites
# that table. The counts of the first three routes are the same in every
# run; the coded route's move by a few in 10,000 (the codecs' own timing).
#   bench/instructions.sh [openmpi|mpich] [--check | --write] [BUILD_DIR]
# ROUTES picks routes (default all four), ROUNDS the rounds (default 1000).
set -euo pipefail
flavor=${1:-openmpi}
mode=${2:-print}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${3:-$root/build/$flavor}
routes=${ROUTES:-passthrough direct framed coded}
rounds=${ROUNDS:-1000}
expected=${INSTRUCTIONS_TABLE:-$root/bench/instructions/expected-$flavor.tsv}
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (callgrind)" >&2; exit 2; }
if [ ! -x "$build/bench/adacomp-instructions" ] || [ ! -x "$build/adacomp" ]; then
  "$root/tools/build.sh" "$flavor" "$build" --target adacomp >/dev/null
  cmake --build "$build" --target adacomp-instructions >/dev/null
fi
for name in $(compgen -e | grep '^ADACOMP_' || true); do unset "$name"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"  # no ./adacomp.conf: default settings
launch=(mpirun.$flavor -np 2)
[ "$flavor" = openmpi ] && launch+=(--allow-run-as-root)
# The library the launcher preloads (valgrind runs the program itself, not
# the launcher's shell).
library=$build/libadacomp-$flavor.so
# Rank 0 under callgrind, rank 1 as it is: only rank 0's counts are read.
cat >"$work/rank0-counted" <<'EOF'
#!/bin/bash
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
[ "$rank" = 0 ] || exec "$@"
exec valgrind --tool=callgrind --collect-atstart=no --toggle-collect='MPI_*' \
  --toggle-collect='PMPI_*' --callgrind-out-file="$COUNTS.%p" "$@" 2>"$COUNTS.log"
EOF
chmod +x "$work/rank0-counted"
# The calls of one round (bench/instructions.c) and how often each is made.
calls="Send:1 Recv:1 Isend:2 Irecv:2 Wait:2 Waitall:1 Test:1 Iprobe:1 Allreduce:1 Bcast:1"
table=$work/table.tsv
for route in $routes; do
  bytes=8 settings=()
  case $route in
    passthrough) ;;
    direct) settings=(ADACOMP_NODE_MAP=1,1 ADACOMP_P2P_ROUTE=direct ADACOMP_LINK_BANDWIDTH=1.25e8) ;;
    framed) settings=(ADACOMP_NODE_MAP=1,1 ADACOMP_P2P_ROUTE=framed ADACOMP_LINK_BANDWIDTH=1.25e8) ;;
    coded) settings=(ADACOMP_NODE_MAP=1,1 ADACOMP_P2P_ROUTE=framed ADACOMP_LINK_BANDWIDTH=1.25e8
                     ADACOMP_MODE=lossless ADACOMP_THRESHOLD_LOSSLESS=1K)
           bytes=4096 ;;
    *) echo "instructions.sh: unknown route '$route' (passthrough direct framed coded)" >&2; exit 2 ;;
  esac
  env "${settings[@]}" COUNTS="$work/$route" LD_PRELOAD="$library" "${launch[@]}" \
    "$work/rank0-counted" "$build/bench/adacomp-instructions" "$rounds" "$bytes" >/dev/null
  dumps=("$work/$route".*.1) dump=${dumps[0]}
  [ -f "$dump" ] || { echo "instructions.sh: no callgrind dump for $route:" >&2; cat "$work/$route.log" >&2; exit 1; }
  callgrind_annotate --inclusive=yes --threshold=100 "$dump" >"$work/$route.annotated"
  for entry in $calls; do
    call=${entry%:*} per_round=${entry#*:}
    # The library's entry point, not MPI's (both are named MPI_<call>).
    total=$(awk -v fn="MPI_$call" '$0 ~ /libadacomp/ {
              for (i = 1; i <= NF; ++i) { n = split($i, part, ":"); if (part[n] == fn) { gsub(",", "", $1); print $1; exit } } }' \
            "$work/$route.annotated")
    printf '%s\t%s\t%d\n' "$call" "$route" $(( (${total:-0} + rounds * per_round / 2) / (rounds * per_round) ))
  done >>"$table"
done
case $mode in
  print) printf 'call\troute\tinstructions\n'; cat "$table" ;;
  --write) mkdir -p "$(dirname "$expected")"
           { printf 'call\troute\tinstructions\n'; cat "$table"; } >"$expected"
           cat "$expected" ;;
  --check)
    [ -f "$expected" ] || { echo "instructions.sh: no committed table $expected" >&2; exit 2; }
    awk -F'\t' 'NR == FNR { if (FNR > 1) want[$1 "/" $2] = $3; next }
                { key = $1 "/" $2; if (!(key in want)) { print "not in the table: " key; bad = 1; next }
                  grown = $3 > want[key] * 1.2
                  printf "%-10s %-12s %7d  (table %d)%s\n", $1, $2, $3, want[key], grown ? "  GROWN over 20%" : ""
                  bad = bad || grown }
                END { exit bad }' "$expected" "$table" ;;
  *) echo "usage: bench/instructions.sh [openmpi|mpich] [--check | --write] [BUILD_DIR]" >&2; exit 2 ;;
esac
