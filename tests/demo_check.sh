#!/bin/bash
# usage: demo_check.sh BUILD_DIR FLAVOR
# tools/demo.sh --short on this build: every expected line is there, every
# run moved bytes, and compression moved fewer than plain MPI. Skipped (77)
# without root, which the shaped network namespace needs.
set -u
build=$1 flavor=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: the demo needs root (ip netns)"; exit 77; }
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(DEMO_BUILD=$build "$root/tools/demo.sh" --short "$flavor" 2>&1) ||
  { echo "$out"; echo "FAIL: demo exited non-zero"; exit 1; }
echo "$out"
fail() { echo "FAIL: $*"; exit 1; }
block() {  # the lines of the run labelled $1, up to its wire bytes
  awk -v l="$1" 'index($0, l) == 1 { found = 1 }
                 found { print } found && /wire bytes for the whole run/ { exit }' <<<"$out"
}
wire() { block "$1" | awk '/wire bytes for the whole run/ { print $(NF-1) }'; }
raw=$(wire "raw MPI (no AdaComp):")
for label in "raw MPI (no AdaComp):" "AdaComp lossless:" "AdaComp pipelined lossless:" \
             "AdaComp pipelined lossy:"; do
  block "$label" | grep -q "allreduce 1.0 MB doubles x 2 ranks: median .* ms, max rel. error" ||
    fail "no result for $label"
  mb=$(wire "$label")
  awk -v m="${mb:-0}" 'BEGIN { exit !(m > 0) }' || fail "$label: wire bytes '${mb}'"
  [ "$label" = "raw MPI (no AdaComp):" ] ||
    awk -v m="$mb" -v r="$raw" 'BEGIN { exit !(m < r) }' || fail "$label: $mb MB not below raw $raw MB"
done
[ "$(grep -c '^adacomp: statistics summed over ranks' <<<"$out")" -eq 3 ] || fail "statistics tables"
for data in drift heat patch; do
  for variant in raw lossless interstep; do
    grep -Eq "^$data +$variant +[0-9.]+ +[0-9.]+ .* bit-exact$" <<<"$out" || fail "halo $data $variant"
  done
done
for label in "plain MPI:" "AdaComp, default settings:" "AdaComp, bound 1e-4 of range:"; do
  grep -A1 -F "$label" <<<"$out" | grep -q "bytes between the nodes: [0-9.]* MB" ||
    fail "cluster run '$label' missing"
done
echo "ok: demo figures complete and plausible"
