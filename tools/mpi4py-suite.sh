#!/bin/bash
# mpi4py's own test suite with and without AdaComp preloaded (lossless,
# thresholds forced to 0), on 1 and 2 ranks, against one MPI:
#   tools/mpi4py-suite.sh openmpi|mpich [BUILD_DIR] [WORK_DIR]
# Downloads the mpi4py sdist with pip, builds it against the system MPI in a
# virtualenv under WORK_DIR (default build/mpi4py-<mpi>), and prints one
# summary line per run: passed, failed, skipped (errors count as failed).
# Spawn tests are off (MPI4PY_TEST_SPAWN=0): they hang under mpirun as root.
set -uo pipefail
flavor=${1:?usage: tools/mpi4py-suite.sh openmpi|mpich [BUILD_DIR] [WORK_DIR]}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/build/$flavor}
work=${3:-$root/build/mpi4py-$flavor}
version=${MPI4PY_VERSION:-4.1.2}
lib=$build/libadacomp.so
[ -f "$lib" ] || { echo "no $lib: run tools/build.sh $flavor first" >&2; exit 1; }
mkdir -p "$work"
if [ ! -x "$work/venv/bin/python" ] || ! "$work/venv/bin/python" -c 'import mpi4py' 2>/dev/null; then
  python3 -m venv "$work/venv" || exit 1
  (cd "$work" && pip download --no-deps --no-binary mpi4py "mpi4py==$version" -d . >pip.log 2>&1) ||
    { cat "$work/pip.log"; exit 1; }
  tar -xzf "$work/mpi4py-$version.tar.gz" -C "$work"
  MPICC=mpicc.$flavor "$work/venv/bin/pip" install --no-binary mpi4py \
    "$work/mpi4py-$version.tar.gz" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
fi
tests=$work/mpi4py-$version/test
launch=(/usr/bin/mpirun.$flavor)
[ "$flavor" = openmpi ] && launch+=(--oversubscribe --allow-run-as-root)
status=0
for np in 1 2; do
  for with in no yes; do
    log=$work/suite-np$np-$with.log
    env=(MPI4PY_TEST_SPAWN=0)
    [ $with = yes ] && env+=(LD_PRELOAD=$lib ADACOMP_MODE=lossless ADACOMP_THRESHOLD_LOSSLESS=0
                             ADACOMP_REPORT=$work/report-np$np.json)
    timeout 1200 "${launch[@]}" -np $np env "${env[@]}" "$work/venv/bin/python" \
      "$tests/main.py" -q >"$log" 2>&1
    rc=$?
    summary=$(python3 - "$log" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
ran = sum(int(m) for m in re.findall(r"Ran (\d+) test", text))  # ranks interleave lines
failed = sum(int(m) for m in re.findall(r"failures=(\d+)", text))
errors = sum(int(m) for m in re.findall(r"errors=(\d+)", text))
skipped = sum(int(m) for m in re.findall(r"skipped=(\d+)", text))
print(f"passed={ran - failed - errors - skipped} failed={failed + errors} skipped={skipped}")
PY
)
    echo "mpi4py $version $flavor np=$np adacomp=$with: $summary rc=$rc"
    [ $with = yes ] && [ $rc -ne 0 ] && status=1
  done
done
exit $status
