#!/bin/bash
# usage: config_check.sh BUILD_DIR MPIEXEC_AND_FLAGS...
# Settings sources and their order, as the ADACOMP_VERBOSE banner names
# them: ./adacomp.conf, or ADACOMP_CONFIG instead of it, then the
# environment key by key; ADACOMP_ROOT/DIR/HOME (module systems) ignored;
# `never` accepted for thresholds; a file for the other MPI and a bound with
# a forced lossless mode refused. (The site files: install_check.sh.)
set -u
build=$1
shift
dir=$(mktemp -d /tmp/adacomp-config.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; [ -f "$dir/out" ] && cat "$dir/out"; exit 1; }
run() { (cd "$dir" && env "$@" ADACOMP_VERBOSE=1 "${mpiexec[@]}" "$build/adacomp" \
           "$build/demo/adacomp-demo" 0.1 1 >"$dir/out" 2>&1) || fail "run failed: $*"; }
mpiexec=("$@")
banner() { grep -q -- "$1" "$dir/out" || fail "banner lacks '$1'"; }

printf 'ADACOMP_MODE = lossless\nADACOMP_THRESHOLD_LOSSLESS = 8K\n' >"$dir/adacomp.conf"
printf 'ADACOMP_MODE = raw\n' >"$dir/other.conf"
run ADACOMP_THRESHOLD_LOSSLESS=4K
banner "mode=lossless, thresholds lossless=4096 "
banner "settings from adacomp.conf: ADACOMP_MODE ADACOMP_THRESHOLD_LOSSLESS; environment: ADACOMP_THRESHOLD_LOSSLESS ADACOMP_VERBOSE$"
run ADACOMP_CONFIG="$dir/other.conf"
banner "mode=raw, thresholds lossless=65536 "
banner "settings from ADACOMP_CONFIG $dir/other.conf: ADACOMP_MODE; environment: ADACOMP_VERBOSE$"
rm "$dir/adacomp.conf"
run ADACOMP_ROOT=/opt/adacomp ADACOMP_DIR=/opt/adacomp ADACOMP_HOME=/opt/adacomp \
    ADACOMP_THRESHOLD_LOSSY=never ADACOMP_THRESHOLD_PIPELINE=never
banner "thresholds lossless=65536 lossy=never pipeline=never bytes"
banner "settings from environment: ADACOMP_THRESHOLD_LOSSY ADACOMP_THRESHOLD_PIPELINE ADACOMP_VERBOSE$"
[ "$(grep -c '^adacomp .* (for ' "$dir/out")" -eq 1 ] || fail "banner not printed once"
# T1 left unset: 8K across a slow link (a calibrated 1 Gbit/s between two
# declared nodes), 64K across a fast one; a T1 the user set stays.
run ADACOMP_NODE_MAP=1,1 ADACOMP_LINK_BANDWIDTH=1.25e8
banner "mode=pipelined, thresholds lossless=8192 "
run ADACOMP_NODE_MAP=1,1 ADACOMP_LINK_BANDWIDTH=1.25e9
banner "mode=pipelined, thresholds lossless=65536 "
run ADACOMP_NODE_MAP=1,1 ADACOMP_LINK_BANDWIDTH=1.25e8 ADACOMP_THRESHOLD_LOSSLESS=64K
banner "mode=pipelined, thresholds lossless=65536 "

# Refused at MPI_Init, once per job: a file recorded for the other MPI (named,
# with both MPIs), and a bound with a forced lossless mode (both variables).
refused() {  # REGEX ENV...
  local regex=$1
  shift
  (cd "$dir" && env "$@" "${mpiexec[@]}" "$build/adacomp" "$build/demo/adacomp-demo" 0.1 1 \
     >"$dir/out" 2>&1) && fail "not refused: $*"
  [ "$(grep -Ec "$regex" "$dir/out")" -eq 1 ] || fail "no single /$regex/"
}
case $("$build/adacomp" --version) in
  *"(openmpi)") other=mpich theirs=MPICH ours="Open MPI" ;;
  *) other=openmpi theirs="Open MPI" ours=MPICH ;;
esac
# The eager limit as MPI_Init set it: Open MPI's btl_tcp_eager_limit, read
# from its variable registry (runtime/eager_limit.cpp); MPICH is not asked.
run OMPI_MCA_btl_tcp_eager_limit=8192
if [ "$ours" = "Open MPI" ]; then banner "eager limit=8192$"; else banner "eager limit=65536$"; fi

printf 'ADACOMP_MPI = %s\nADACOMP_MODE = lossless\n' "$other" >"$dir/other.conf"
refused "$dir/other.conf holds settings for $theirs .* built for $ours [0-9]" ADACOMP_CONFIG="$dir/other.conf"
refused "ADACOMP_MODE=lossless and ADACOMP_REL_ERROR_BOUND are both set" ADACOMP_MODE=lossless \
  ADACOMP_REL_ERROR_BOUND=1e-4
echo "ok: settings sources, order, ignored variables and never; T1 by the link; the eager limit; other" \
  "MPI's file and a bound with lossless refused"
