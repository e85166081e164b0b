#!/bin/bash
# usage: report_finalize_check.sh MPIEXEC_AND_FLAGS... -- PROBE LAUNCHER DEMO
# No rank enters PMPI_Finalize before rank 0 has printed and written the
# report (boundary/start.cpp runtime_stop): a rank that starts disconnecting while
# another still makes MPI progress can hang MPICH 4.0 over UCX's TCP
# transport. The probe, preloaded after the library, tells at each rank's
# PMPI_Finalize whether the report is complete; three runs, every rank.
set -u
dir=$(mktemp -d /tmp/adacomp-finalize.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mpiexec=()
while [ "$1" != "--" ]; do mpiexec+=("$1"); shift; done
shift
probe=$1
shift
for run in 1 2 3; do
  rm -f "$dir/r.json"
  out=$(PROBE_REPORT="$dir/r.json" ADACOMP_REPORT="$dir/r.json" ADACOMP_MODE=lossless \
        ADACOMP_VERBOSE=1 LD_PRELOAD="$probe" "${mpiexec[@]}" "$@" 1 3 2>&1) ||
    { echo "$out"; echo "FAIL: run $run failed"; exit 1; }
  complete=$(grep -c "^finalize probe: report complete at PMPI_Finalize" <<<"$out")
  probed=$(grep -c "^finalize probe:" <<<"$out")
  [ "$probed" = 2 ] && [ "$complete" = 2 ] ||
    { echo "$out"; echo "FAIL: run $run: $complete of $probed ranks found the report complete at PMPI_Finalize (2 of 2 expected)"; exit 1; }
done
echo "ok: every rank entered PMPI_Finalize after the report was written, 3 runs"
