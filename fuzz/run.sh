#!/bin/sh
# Builds the libFuzzer targets (the codec decoders, the reduction-on-codes
# payload, the frame header, the segment table and the inter-step record) with clang (ASan + UBSan on the codec library too) in
# BUILD_DIR and runs each for its share of SECONDS_TOTAL, starting from seeds of valid payloads. Exits nonzero if any
# target finds a crash, leak or sanitizer error (artifacts stay in
# BUILD_DIR/artifacts).
#   fuzz/run.sh BUILD_DIR SECONDS_TOTAL
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS_TOTAL" >&2
  exit 2
fi
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(mkdir -p "$1" && cd "$1" && pwd)
TOTAL=$2
CC=${CC_FUZZ:-clang-14}
CXX=${CXX_FUZZ:-clang++-14}

# A standalone project (codec library + fuzz targets only): fuzzing must not
# depend on the MPI core building.
mkdir -p "$BUILD/project"
cat > "$BUILD/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.18)
project(adacomp_fuzz LANGUAGES C CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
add_subdirectory("$SRC/src/frames/codec" codec)
add_subdirectory("$SRC/fuzz" fuzz)
CMAKE
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link -g -O1"
cmake -S "$BUILD/project" -B "$BUILD/tree" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DADACOMP_FUZZ=ON \
  -DCMAKE_C_FLAGS="$SAN" -DCMAKE_CXX_FLAGS="$SAN" >/dev/null
cmake --build "$BUILD/tree" -j2 >/dev/null

CODECS="stored zstd lz4 fpc blosc quant zfp truncate to_f32 bitplane quant_fast quant_zstd quant_grid"
# Each target: its name and its seed set (fuzz_make_seeds).
TARGETS=""
for c in $CODECS; do TARGETS="$TARGETS fuzz_decode_$c:$c"; done
TARGETS="$TARGETS fuzz_frame_header:frame_header fuzz_channel_record:channel_record"
TARGETS="$TARGETS fuzz_segments:segments fuzz_marker:marker fuzz_capture_file:capture"
N=$(echo $TARGETS | wc -w)
EACH=$((TOTAL / N))
[ "$EACH" -ge 1 ] || EACH=1
mkdir -p "$BUILD/artifacts"
status=0
for t in $TARGETS; do
  target=${t%%:*}
  seeds=${t#*:}
  corpus="$BUILD/corpus/$seeds"
  mkdir -p "$corpus"
  "$BUILD/tree/fuzz/fuzz_make_seeds" "$corpus" "$seeds" >/dev/null
  if ! "$BUILD/tree/fuzz/$target" -max_total_time="$EACH" -max_len=65536 \
      -artifact_prefix="$BUILD/artifacts/$seeds-" -print_final_stats=0 "$corpus" \
      >"$BUILD/$target.log" 2>&1; then
    echo "$target: FAILED (see $BUILD/$target.log)" >&2
    tail -30 "$BUILD/$target.log" >&2
    status=1
  else
    echo "$target: ok ($(grep -c . "$BUILD/$target.log") log lines, ${EACH}s)"
  fi
done
exit $status
