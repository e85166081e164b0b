#!/bin/bash
# usage: install_check.sh FLAVOR PREFIX BUILD_DIR [--install]
# The installed tree works on its own: every tool answers --help and
# --version (also through a symlink elsewhere), the installed calibrator and
# launcher find the library, a consumer builds with find_package(AdaComp)
# and with pkg-config and runs, the docs are all there and their links
# resolve, the site configuration is read first (the
# shared file, then this MPI's; one for another MPI refused), and
# adacomp-report reads the report of a real run. The MPI is BUILD_DIR's
# (its compiler wrapper and launcher), FLAVOR the build's flavour
# (openmpi, openmpi5, mpich, impi, mpiabi). With --install, installs
# BUILD_DIR into PREFIX first. Used by ctest (one flavour, its own prefix)
# and by tools/run-tests.sh and tools/extra-mpis.sh (two flavours in one
# prefix).
set -u
flavor=$1 prefix=$2 build=$(cd "$3" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
if [ "${4-}" = --install ]; then
  rm -rf "$prefix"
  cmake --install "$build" --prefix "$prefix" >/dev/null || fail "cmake --install"
fi
cc=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
run=("$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")")
[ -x "$(dirname "$cc")/impi_info" ] && export I_MPI_ROOT=${I_MPI_ROOT:-$(dirname "$(dirname "$cc")")}
case $flavor in openmpi*) run+=(--oversubscribe --allow-run-as-root) ;; esac
run+=(-np)
# This build's MPI, as --version names it: "adacomp-X 0.1.0 for MPI NAME (X)".
mpi=$("$build/adacomp" --version | sed 's/.* for \(.*\) ([a-z0-9]*)$/\1/')
# A site file recorded for another MPI, and that MPI's name in the refusal.
other=mpich other_name=MPICH
[ "$flavor" = mpich ] && other=openmpi5 other_name="Open MPI 5"
dir=$(mktemp -d /tmp/adacomp-install.XXXXXX)
trap 'rm -rf "$dir"' EXIT
bin=$prefix/bin

for f in include/adacomp.h lib/libadacomp-$flavor.so lib/libadacomp-$flavor.so.0 \
         lib/pkgconfig/adacomp-$flavor.pc lib/cmake/AdaComp/AdaCompConfig.cmake \
         lib/cmake/AdaComp/AdaCompTargets-$flavor.cmake share/man/man1/adacomp.1 \
         share/man/man5/adacomp.conf.5 share/doc/adacomp/LICENSE share/doc/adacomp/CHANGELOG.md \
         share/adacomp/modulefiles/adacomp-$flavor.lua; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
# Every doc with its images, and every relative link of the installed
# markdown files resolves there (README.md -> docs/..., docs/ -> images/...).
for f in README.md docs/report.md docs/testing.md docs/images/report-demo.png docs/images/scale-speedup_link.png; do
  [ -e "$prefix/share/doc/adacomp/$f" ] || fail "share/doc/adacomp/$f not installed"
done
python3 "$(dirname "$0")/docs_links.py" "$prefix/share/doc/adacomp" || fail "broken links in the installed docs"
[ "$(readelf -d "$prefix/lib/libadacomp-$flavor.so" | grep -o 'soname: \[.*\]')" = \
  "soname: [libadacomp-$flavor.so.0]" ] || fail "SONAME"

# Every installed command: --help (exit 0, usage on stdout), --version
# (naming the MPI for the MPI-specific ones), also from a symlink.
mkdir "$dir/links"
for tool in "adacomp-$flavor" "adacomp-calibrate-$flavor" adacomp-codecs adacomp-report; do
  [ -x "$bin/$tool" ] || fail "$tool not installed"
  ln -s "$bin/$tool" "$dir/links/$tool"
  for t in "$bin/$tool" "$dir/links/$tool"; do
    "$t" --help </dev/null | grep -q "usage" || fail "$t --help"
    v=$("$t" --version) || fail "$t --version"
    case $tool in *-$flavor) echo "$v" | grep -qF "for $mpi" || fail "$t --version: $v" ;; esac
  done
done
# Man pages (plain roff: no man-db needed to check them).
for page in man1/adacomp.1 man1/adacomp-calibrate.1 man1/adacomp-codecs.1 man1/adacomp-report.1 \
            man5/adacomp.conf.5; do
  head -1 "$prefix/share/man/$page" | grep -q '^\.TH ' || fail "man page $page"
done
grep -qx ".so man1/adacomp.1" "$prefix/share/man/man1/adacomp-$flavor.1" || fail "man page adacomp-$flavor.1"

# The installed calibrator starts (it used to miss its library) and writes
# a conf that names its hosts, bound and date.
(cd "$dir" && "${run[@]}" 2 "$bin/adacomp-calibrate-$flavor" --allow-one-host --min 1K --max 2K \
   --budget 0.001 --out "$dir/cal.conf" >"$dir/cal.out" 2>&1) ||
  { cat "$dir/cal.out"; fail "installed adacomp-calibrate-$flavor"; }
[ -s "$dir/cal.csv" ] || fail "calibration CSV not next to --out"

# Consumers: CMake package and pkg-config, each run on 2 ranks.
comp=()
[ -e "$prefix/lib/cmake/AdaComp/AdaCompDefault.cmake" ] &&
  grep -q "$flavor" "$prefix/lib/cmake/AdaComp/AdaCompDefault.cmake" || comp=(-DCOMPONENT=$flavor)
cmake -S "$(dirname "$0")/install" -B "$dir/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DMPI_C_COMPILER="$cc" "${comp[@]}" >"$dir/cmake.out" 2>&1 &&
  cmake --build "$dir/consumer" >>"$dir/cmake.out" 2>&1 || { cat "$dir/cmake.out"; fail "find_package consumer"; }
PKG_CONFIG_PATH=$prefix/lib/pkgconfig "$cc" "$(dirname "$0")/install/consumer.c" \
  $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs adacomp-$flavor) \
  -o "$dir/consumer-pc" || fail "pkg-config consumer"
for c in "$dir/consumer/consumer" "$dir/consumer-pc"; do
  out=$(ADACOMP_MODE=lossless ADACOMP_THRESHOLD_LOSSLESS=0 "${run[@]}" 2 "$c") || fail "$c: $out"
  echo "$out" | grep -q "allreduce correct, [1-9][0-9]* of [1-9][0-9]* calls compressed" || fail "$c: $out"
done

# The installed launcher preloads the installed library into a plain MPI
# program; the site files are read first, the shared one, then this MPI's,
# and the banner names them; the report of the run is read by
# adacomp-report. A shared site file recorded for the other MPI is refused.
# The prefix's own etc/ is put back at exit.
mkdir -p "$prefix/etc"
cp -a "$prefix/etc" "$dir/etc.bak"
trap 'rm -rf "$prefix/etc"; mv "$dir/etc.bak" "$prefix/etc"; rm -rf "$dir"' EXIT
site=$prefix/etc/adacomp.conf site_mpi=$prefix/etc/adacomp-$flavor.conf
printf 'ADACOMP_MODE = lossless\nADACOMP_THRESHOLD_LOSSLESS = 4K\n' >"$site"
printf 'ADACOMP_MPI = %s\nADACOMP_THRESHOLD_LOSSLESS = 8K\n' "$flavor" >"$site_mpi"
launch() { (cd "$dir" && ADACOMP_VERBOSE=1 ADACOMP_ROOT=$prefix ADACOMP_REPORT=$dir/run.json \
  "${run[@]}" 2 "$bin/adacomp-$flavor" "$build/demo/adacomp-demo" 1 2 >"$dir/run.out" 2>&1); }
launch || { cat "$dir/run.out"; fail "installed launcher run"; }
grep -q "settings from site $site: ADACOMP_MODE ADACOMP_THRESHOLD_LOSSLESS; site $site_mpi: ADACOMP_MPI ADACOMP_THRESHOLD_LOSSLESS; environment: ADACOMP_REPORT ADACOMP_VERBOSE" \
  "$dir/run.out" && grep -q "mode=lossless, thresholds lossless=8192 " "$dir/run.out" ||
  { cat "$dir/run.out"; fail "banner does not name both site files, this MPI's winning"; }
"$bin/adacomp-report" --plot "$dir/plots" "$dir/run.json" >"$dir/report.out" ||
  { cat "$dir/report.out"; fail "adacomp-report"; }
grep -Eq "^allreduce +[0-9]+ +[1-9]" "$dir/report.out" || { cat "$dir/report.out"; fail "report summary"; }
[ -s "$dir/plots/run.png" ] || fail "no plot"
# The installed package's other modules: compare, HTML.
"$bin/adacomp-report" compare "$dir/run.json" "$dir/run.json" --csv "$dir/c.csv" >"$dir/compare.out" &&
  grep -Eq "^allreduce +[0-9]+/[0-9]+ .* 1.00x" "$dir/compare.out" || { cat "$dir/compare.out"; fail "installed compare"; }
"$dir/links/adacomp-report" --html "$dir/run.html" "$dir/run.json" >/dev/null &&
  grep -q "data:image/png;base64," "$dir/run.html" || fail "installed --html"
printf 'ADACOMP_MPI = %s\n' "$other" >"$site"
rm "$site_mpi"
launch && fail "a site file for the other MPI was not refused"
grep -qF "$site holds settings for $other_name (ADACOMP_MPI = $other), and this library is built for $mpi:" "$dir/run.out" ||
  { cat "$dir/run.out"; fail "refusal does not name the site file and both MPIs"; }
echo "ok: $flavor install in $prefix complete and working"
