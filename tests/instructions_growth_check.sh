#!/bin/bash
# bench/instructions.sh --check must fail when counts grew: against the
# committed table with every count halved, the pass-through route's counts
# read as grown 100%.
#   tests/instructions_growth_check.sh openmpi|mpich BUILD_DIR
set -euo pipefail
flavor=$1 build=$2
root=$(cd "$(dirname "$0")/.." && pwd)
halved=$(mktemp)
trap 'rm -f "$halved"' EXIT
awk -F'\t' -v OFS='\t' 'NR > 1 { $3 = int($3 / 2) } 1' \
  "$root/bench/instructions/expected-$flavor.tsv" >"$halved"
ROUTES=passthrough INSTRUCTIONS_TABLE=$halved exec "$root/tests/expect_failure.sh" \
  "GROWN over 20%" "$root/bench/instructions.sh" "$flavor" --check "$build"
