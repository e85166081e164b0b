#!/bin/sh
# Builds the codec decoders' libFuzzer targets with clang (ASan + UBSan on
# the codec library too) in BUILD_DIR and runs each for its share of
# SECONDS_TOTAL, starting from seeds of valid payloads. Exits nonzero if any
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
add_subdirectory("$SRC/src/codec" codec)
add_subdirectory("$SRC/fuzz" fuzz)
CMAKE
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link -g -O1"
cmake -S "$BUILD/project" -B "$BUILD/tree" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DADACOMP_FUZZ=ON \
  -DCMAKE_C_FLAGS="$SAN" -DCMAKE_CXX_FLAGS="$SAN" >/dev/null
cmake --build "$BUILD/tree" -j2 >/dev/null

CODECS="stored zstd lz4 fpc blosc quant zfp truncate to_f32 bitplane quant_fast quant_zstd quant_grid"
N=$(echo $CODECS | wc -w)
EACH=$((TOTAL / N))
[ "$EACH" -ge 1 ] || EACH=1
mkdir -p "$BUILD/artifacts"
status=0
for c in $CODECS; do
  corpus="$BUILD/corpus/$c"
  mkdir -p "$corpus"
  "$BUILD/tree/fuzz/fuzz_make_seeds" "$corpus" "$c" >/dev/null
  if ! "$BUILD/tree/fuzz/fuzz_decode_$c" -max_total_time="$EACH" -max_len=65536 \
      -artifact_prefix="$BUILD/artifacts/$c-" -print_final_stats=0 "$corpus" \
      >"$BUILD/fuzz_$c.log" 2>&1; then
    echo "fuzz_decode_$c: FAILED (see $BUILD/fuzz_$c.log)" >&2
    tail -30 "$BUILD/fuzz_$c.log" >&2
    status=1
  else
    echo "fuzz_decode_$c: ok ($(grep -c . "$BUILD/fuzz_$c.log") log lines, ${EACH}s)"
  fi
done
exit $status
