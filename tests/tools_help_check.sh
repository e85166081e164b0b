#!/bin/bash
# usage: tools_help_check.sh BUILD_DIR
# Every tool under tools/ and the built calibrator answer --help (exit 0,
# usage on stdout) without side effects: no file created in the working
# directory, HOME or the source tree, and none of the commands that change
# a machine run (apt, cmake, ip, mpirun, ...: stand-ins on PATH record any
# call). tools/install-deps.sh, run again once everything is installed (CI
# has run it first), calls no apt at all.
set -u
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/adacomp-help.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$dir/stubs" "$dir/cwd" "$dir/home"
for cmd in apt apt-get dpkg dpkg-deb cmake make ip tc pip pip3 mpirun mpirun.openmpi mpirun.mpich \
           mpiexec smpirun git; do
  printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\n' "$cmd" "$dir" >"$dir/stubs/$cmd"
  chmod +x "$dir/stubs/$cmd"
done
tree() { find "$root" -maxdepth 2 -not -path "$root/.git*" | sort; }
tree >"$dir/tree.before"

tools=$(find "$root/tools" -maxdepth 1 -type f -perm -u+x | sort)
for tool in $tools "$build"/tools/calibrate/adacomp-calibrate-*; do
  (cd "$dir/cwd" && HOME=$dir/home PATH=$dir/stubs:$PATH "$tool" --help >"$dir/out" 2>"$dir/err")
  rc=$?
  [ $rc = 0 ] || { cat "$dir/err"; fail "$tool --help exited $rc"; }
  [ -s "$dir/out" ] || fail "$tool --help printed no usage"
  [ -e "$dir/calls" ] && fail "$tool --help ran: $(cat "$dir/calls")"
  created=$(cd "$dir" && find cwd home -mindepth 1)
  [ -z "$created" ] || fail "$tool --help created $created"
done
tree | diff "$dir/tree.before" - >/dev/null || fail "--help changed the source tree: $(tree | diff "$dir/tree.before" -)"

# Idempotent: with every package present, no apt (dpkg-query alone decides).
PATH=$dir/stubs:$PATH "$root/tools/install-deps.sh" >"$dir/out" 2>&1 || { cat "$dir/out"; fail "install-deps.sh"; }
[ -e "$dir/calls" ] && fail "install-deps.sh ran apt although it had run before: $(cat "$dir/out" "$dir/calls")"
echo "ok: $(wc -w <<<"$tools") tools and the calibrator answer --help without side effects;" \
  "install-deps.sh is idempotent"
