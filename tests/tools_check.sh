#!/bin/bash
# usage: tools_check.sh BUILD_DIR MPIEXEC_AND_FLAGS...
# adacomp-calibrate on shared memory: it must write a configuration the
# library accepts, holding only what it measured (lossy results only with a
# bound, which it names), and a CSV of every measurement; adacomp-bench must
# run all modes with correct results and write its CSV, on doubles of the 2-D
# field and on floats of the 3-D one.
set -u
build=$1
shift
dir=$(mktemp -d /tmp/adacomp-tools.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

calibrate=$(echo "$build"/tools/calibrate/adacomp-calibrate-*)
mpi=${calibrate##*-}
"$calibrate" --help | grep -q "ADACOMP_ERROR_BOUND (absolute) or ADACOMP_REL_ERROR_BOUND" ||
  fail "--help does not say where the error bound comes from"
"$@" "$calibrate" --allow-one-host --max 64K --budget 0.005 \
  --out "$dir/a.conf" --csv "$dir/a.csv" 2>"$dir/cal.err" || { cat "$dir/cal.err"; fail "calibrate exited $?"; }
# One node: the link inside it is recorded, the network is not, and it says so.
# No bound: no lossy tier measured, so no lossy threshold or codec written.
for key in ADACOMP_MPI ADACOMP_MODE ADACOMP_THRESHOLD_LOSSLESS ADACOMP_THRESHOLD_PIPELINE \
           ADACOMP_INTRA_BANDWIDTH ADACOMP_INTRA_LATENCY; do
  grep -Eq "^$key = [0-9a-z.e+-]+$" "$dir/a.conf" || fail "$key missing or malformed"
done
grep -qx "ADACOMP_MPI = $mpi" "$dir/a.conf" || fail "the conf does not record its MPI ($mpi)"
grep -q "^ADACOMP_LINK_" "$dir/a.conf" && fail "a one-node calibration wrote the network link"
grep -Eq "^ADACOMP_THRESHOLD_LOSSY|lossy from|quant" "$dir/a.conf" &&
  fail "a calibration without a bound wrote lossy results"
grep -q "^# Error bound: none" "$dir/a.conf" || fail "the conf does not say no bound was used"
grep -q "WARNING: all 2 ranks run on one host" "$dir/cal.err" || fail "no one-host warning"
[ "$(head -1 "$dir/a.csv")" = "op,tier,bytes,median_s,max_abs_err,ok" ] || fail "CSV header"
# 3 ops x 7 sizes (1K..64K) x 3 tiers (no bound: raw, lossless, pipelined).
rows=$(($(wc -l <"$dir/a.csv") - 1))
[ "$rows" -eq 63 ] || fail "expected 63 CSV rows, got $rows"
grep -q ',0$' "$dir/a.csv" && fail "a calibration measurement was wrong"
# With a bound: the lossy tier measured and its threshold written, the bound
# named (and not set), the lossy codecs timed at it.
ADACOMP_REL_ERROR_BOUND=1e-4 "$@" "$calibrate" --allow-one-host --max 16K --budget 0.005 \
  --out "$dir/b.conf" 2>"$dir/cal.err" || { cat "$dir/cal.err"; fail "calibrate with a bound exited $?"; }
grep -Eq "^ADACOMP_THRESHOLD_LOSSY = [0-9a-z]+$" "$dir/b.conf" || fail "no lossy threshold with a bound"
grep -q "^# Error bound: ADACOMP_REL_ERROR_BOUND=1e-4," "$dir/b.conf" || fail "the bound is not named"
grep -Eq "^ADACOMP_(REL_)?ERROR_BOUND" "$dir/b.conf" && fail "the conf sets the error bound"
[ "$(grep -c "^#   quant_.* at ADACOMP_REL_ERROR_BOUND=1e-4$" "$dir/b.conf")" -eq 2 ] ||
  fail "lossy codecs not timed at the bound"
# The library must accept what the calibrator wrote.
for conf in a b; do
  ADACOMP_CONFIG=$dir/$conf.conf ADACOMP_VERBOSE=1 "$@" "$build/demo/adacomp-demo" 0.1 2 \
    >"$dir/demo.out" 2>&1 || { cat "$dir/demo.out"; fail "library rejected the calibrated $conf.conf"; }
done

ADACOMP_REL_ERROR_BOUND=1e-4 "$@" "$build/bench/adacomp-bench" --max 128K --budget 0.005 \
  --csv "$dir/b.csv" >"$dir/bench.out" || { cat "$dir/bench.out"; fail "bench exited $?"; }
rows=$(($(wc -l <"$dir/b.csv") - 1))
[ "$rows" -eq 144 ] || fail "expected 144 bench rows (3 ops x 8 sizes x 6 modes), got $rows"
# Floats (MPI_FLOAT) of the 3-D field at an absolute bound, as lossy
# Allreduce's float32 target is measured (docs/benchmarks.md).
ADACOMP_ERROR_BOUND=1e-4 "$@" "$build/bench/adacomp-bench" --type f32 --field heat3d \
  --modes plain,lossless,lossy --min 64K --max 256K --budget 0.005 --csv "$dir/f.csv" \
  >"$dir/bench.out" || { cat "$dir/bench.out"; fail "bench on floats exited $?"; }
rows=$(($(wc -l <"$dir/f.csv") - 1))
[ "$rows" -eq 27 ] || fail "expected 27 float bench rows (3 ops x 3 sizes x 3 modes), got $rows"
# Halo exchange: every message bit-exact in the exact variants, within the
# bound in the hinted one; on data where one block changes per step,
# inter-step coding must beat per-message coding.
# Lossless forced: on one node the default policy leaves point-to-point alone.
ADACOMP_MODE=lossless "$@" "$build/bench/adacomp-bench-halo" --bytes 256K --steps 6 --csv "$dir/h.csv" \
  >"$dir/halo.out" || { cat "$dir/halo.out"; fail "halo bench exited $?"; }
rows=$(($(wc -l <"$dir/h.csv") - 1))
[ "$rows" -eq 12 ] || fail "expected 12 halo rows (3 data sets x 4 variants), got $rows"
grep -q ',0$' "$dir/h.csv" && fail "a halo message was wrong"
ratio() { awk -F, -v d="$1" -v v="$2" '$1 == d && $2 == v { print $6 }' "$dir/h.csv"; }
awk -v x="$(ratio patch interstep)" -v l="$(ratio patch lossless)" 'BEGIN { exit !(x > 3 * l) }' ||
  fail "inter-step ratio $(ratio patch interstep) not 3x the lossless ratio $(ratio patch lossless) on patch data"
echo "ok: calibration, bench and halo outputs well formed, all results correct"
