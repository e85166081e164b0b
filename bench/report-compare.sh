#!/bin/bash
# "Did AdaComp help my job, and where?" asked as a user would, on the
# emulated cluster (tools/cluster.sh): tests/report/app.c (Allreduce, Bcast,
# Sendrecv and Alltoall of a smooth field every step, results checked) run
# through the `adacomp` launcher once with ADACOMP_MODE=raw and once with the
# default settings (plus EXTRA settings, e.g. ADACOMP_REL_ERROR_BOUND=1e-4),
# then adacomp-report's summary of the second, `compare raw default`, and
# its HTML page (the comparison plotted, then both runs).
#   bench/report-compare.sh [openmpi|mpich] [LAYOUT=2x2] [RATE=1gbit] [STEPS=20] [KB=4096] [EXTRA K=V...]
# Writes bench/results/report-compare-<flavor>-<layout>-<rate>.{txt,html} and the
# two JSON reports beside them (REPORT_OUT=DIR: there instead). Timings: run
# on an otherwise idle machine.
set -euo pipefail
source "$(dirname "$0")/../tools/help.sh"
flavor=${1:-openmpi} layout=${2:-2x2} rate=${3:-1gbit} steps=${4:-20} kb=${5:-4096}
extra=("${@:6}")
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/$flavor
[ -x "$build/tests/report-app" ] && [ -x "$build/adacomp" ] ||
  cmake --build "$build" --target report-app adacomp_installed >/dev/null
out=${REPORT_OUT:-$root/bench/results}
name=report-compare-$flavor-$layout-$rate
mkdir -p "$out"
if [[ $layout =~ ^([0-9]+)x[0-9]+$ ]]; then nodes=${BASH_REMATCH[1]}; else nodes=$(tr ',' '\n' <<<"$layout" | wc -l); fi
export CLUSTER_PREFIX=${CLUSTER_PREFIX:-adacomp-rc-$$}
trap '"$root/tools/cluster.sh" down' EXIT
unset ADACOMP_MODE ADACOMP_REL_ERROR_BOUND ADACOMP_ERROR_BOUND ADACOMP_CONFIG ADACOMP_REPORT
"$root/tools/cluster.sh" up "$nodes" "$rate" >/dev/null
run() {  # run LABEL K=V...
  local label=$1 envs=() kv
  shift
  for kv in "ADACOMP_REPORT=$out/$name-$label.json" "$@"; do envs+=(--env "$kv"); done
  echo "=== $label: $*"
  "$root/tools/cluster.sh" run "$flavor" "$layout" "${envs[@]}" --timeout 600 -- \
    "$build/adacomp" "$build/tests/report-app" "$steps" "$kb"
}
run raw ADACOMP_MODE=raw
run default ${extra[@]+"${extra[@]}"}
report=$root/tools/adacomp-report
{
  "$report" "$out/$name-default.json"
  echo
  "$report" compare "$out/$name-raw.json" "$out/$name-default.json"
} | tee "$out/$name.txt"
"$report" compare --html "$out/$name.html" "$out/$name-raw.json" "$out/$name-default.json" >/dev/null
