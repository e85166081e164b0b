#!/bin/bash
# Real applications across emulated nodes: unmodified MPI programs
# under plain MPI and under AdaComp with default settings (the adacomp
# launcher; no adacomp.conf, no ADACOMP_* variables), side by side on the
# emulated cluster (tools/cluster.sh, 2 nodes), taking turns run by run.
# Every pair of runs must print identical results (compared bit for bit);
# a difference fails the script.
#   bench/apps.sh [OUT_DIR]           (default bench/results/apps)
# Applications (APPS, default "jacobi lammps"):
#   jacobi  bench/jacobi.c: 2-D heat stencil, Irecv/Isend/Waitall halo rows
#           and an Allreduce every 50 steps (JACOBI_ARGS, default "2048 600")
#   lammps  Debian's LAMMPS (`lmp`, built for Open MPI only) on its
#           Lennard-Jones melt benchmark bench/apps/in.lj (LAMMPS_ARGS,
#           default "-var side 20 -var steps 200": 32,000 atoms); skipped
#           under MPICH and where `lmp` is not installed (apt-get install lammps)
# Subsets through the environment: MPIS [openmpi mpich], LINKS [1gbit 10gbit],
# LAYOUTS [2x1 2x2], REPS [5], TIMEOUT [600] seconds per run, BUILD_PREFIX
# [build/] (MPI m's build is BUILD_PREFIXm, from the repository: build/dev-
# for build/dev-openmpi).
# Writes OUT_DIR/raw.tsv (every run) and OUT_DIR/summary.md (medians of the
# applications' own loop times, and plain/default: above 1 is faster).
# Run it on an idle machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$root/bench/results/apps}" && cd "${1:-$root/bench/results/apps}" && pwd)
reps=${REPS:-5} timeout=${TIMEOUT:-600}
read -ra jacobi_args <<<"${JACOBI_ARGS:-2048 600}"
read -ra lammps_args <<<"${LAMMPS_ARGS:--var side 20 -var steps 200}"
for name in $(compgen -e | grep '^ADACOMP_' || true); do unset "$name"; done
work=$(mktemp -d)
cd "$work"
export CLUSTER_PREFIX=apps-$$
trap 'cd /; "$root/tools/cluster.sh" down; rm -rf "$work"' EXIT
raw=$out/raw.tsv
printf 'mpi\tlink\tlayout\tapp\trep\tside\tseconds\tresult\n' >"$raw"
mismatches=0
build_prefix=${BUILD_PREFIX:-build/}
[[ $build_prefix = /* ]] || build_prefix=$root/$build_prefix  # relative to the repository

# run_app FLAVOR LAYOUT APP SIDE: prints "SECONDS<TAB>RESULT-HASH".
run_app() {
  local flavor=$1 layout=$2 app=$3 side=$4 build=$build_prefix$1 program
  case $app in
    jacobi) program=("$build/bench/adacomp-jacobi" "${jacobi_args[@]}") ;;
    lammps) program=(lmp -in "$root/bench/apps/in.lj" -log none -echo none "${lammps_args[@]}") ;;
  esac
  [ "$side" = default ] && program=("$build/adacomp" "${program[@]}")
  "$root/tools/cluster.sh" run "$flavor" "$layout" --env OMP_NUM_THREADS=1 --timeout "$timeout" -- \
    "${program[@]}" >run.out 2>run.err || { cat run.out run.err >&2; return 1; }
  local seconds result
  case $app in
    jacobi) seconds=$(awk '$1 == "time" {print $2}' run.out)
            result=$(grep -E '^(step|checksum) ' run.out | sha1sum | cut -c1-12) ;;
    lammps) seconds=$(awk '/^Loop time of/ {print $4}' run.out)
            result=$(awk '/^ *Step /{on=1; next} /^Loop time/{on=0} on' run.out | sha1sum | cut -c1-12) ;;
  esac
  printf '%s\t%s\n' "$seconds" "$result"
}

for flavor in ${MPIS:-openmpi mpich}; do
  build=$build_prefix$flavor
  [ -x "$build/bench/adacomp-jacobi" ] && [ -x "$build/adacomp" ] ||
    cmake --build "$build" --target adacomp-jacobi adacomp_installed >/dev/null
  apps=()
  for app in ${APPS:-jacobi lammps}; do
    if [ "$app" = lammps ] && { [ "$flavor" != openmpi ] || ! command -v lmp >/dev/null; }; then
      echo "apps.sh: lammps skipped under $flavor (Debian's lmp is built for Open MPI)" >&2
      continue
    fi
    apps+=("$app")
  done
  for link in ${LINKS:-1gbit 10gbit}; do
    "$root/tools/cluster.sh" up 2 "$link" >/dev/null
    for rep in $(seq "$reps"); do
      sides="plain default"
      [ $((rep % 2)) = 0 ] && sides="default plain"
      for layout in ${LAYOUTS:-2x1 2x2}; do
        for app in "${apps[@]}"; do
          declare -A results=()
          for side in $sides; do
            line=$(run_app "$flavor" "$layout" "$app" "$side")
            results[$side]=${line#*$'\t'}
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$flavor" "$link" "$layout" "$app" "$rep" "$side" \
              "$line" >>"$raw"
            echo "$flavor $link $layout $app run $rep/$reps $side: ${line%%$'\t'*} s"
          done
          if [ "${results[plain]}" != "${results[default]}" ]; then
            echo "apps.sh: $flavor $link $layout $app run $rep: results differ" >&2
            mismatches=$((mismatches + 1))
          fi
          unset results
        done
      done
    done
    "$root/tools/cluster.sh" down
  done
done
/usr/bin/python3 - "$raw" >"$out/summary.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
groups = {}
for r in rows:
    groups.setdefault((r["mpi"], r["app"], r["link"], r["layout"]), {}).setdefault(r["side"], []).append(
        (float(r["seconds"]), r["result"]))
print("# Real applications: plain MPI and AdaComp's default settings\n")
print("Medians of the applications' own loop times over runs taken in turn; "
      "plain/default above 1 means AdaComp was faster. *Same results*: every "
      "pair of runs printed identical output.\n")
print("| MPI | application | link | layout | runs | plain s | default s | plain/default | same results |")
print("|---|---|---|---|---:|---:|---:|---:|---|")
for (mpi, app, link, layout), sides in sorted(groups.items()):
    p = statistics.median(s for s, _ in sides.get("plain", []))
    d = statistics.median(s for s, _ in sides.get("default", []))
    same = len({h for v in sides.values() for _, h in v}) == 1
    print(f"| {mpi} | {app} | {link} | {layout} | {len(sides['plain'])} | {p:.3f} | {d:.3f} | "
          f"{p / d:.3f} | {'yes' if same else '**no**'} |")
PY
cat "$out/summary.md"
[ "$mismatches" = 0 ]
