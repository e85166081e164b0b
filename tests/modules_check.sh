#!/bin/bash
# usage: modules_check.sh PREFIX
# The environment modules of every build installed in PREFIX, loaded as a
# site would: with Lmod (the .lua file) and with Environment Modules (the Tcl
# file), each from PREFIX/share/adacomp/modulefiles and through symlinks in a
# site's module tree; and the Tcl file with Lmod. Loaded, the paths are
# normalised and point into PREFIX, `man ls` still resolves (MANPATH keeps
# man's default path, set or not before), LD_LIBRARY_PATH and LD_PRELOAD are
# untouched (the launcher preloads; tools carry a RUNPATH); unloaded, the
# environment is as before; help and whatis answer; the two MPIs' modules are
# never loaded together; a module whose MPI launcher is missing refuses to load.
set -u
prefix=$(cd "$1" && pwd -P)
mods=$prefix/share/adacomp/modulefiles
lmod=/usr/share/lmod/lmod/libexec/lmod
# Environment Modules conflicts with lmod as a package: tools/install-deps.sh
# unpacks it there.
modulecmd=$(compgen -G "/opt/adacomp-deps/environment-modules/usr/lib/*/modulecmd.tcl" | head -1)
system="" where="" flavor=""
fail() { echo "FAIL: [$system $where $flavor] $*"; [ -s "$dir/err" ] && cat "$dir/err"; exit 1; }
[ -x "$lmod" ] && [ -n "$modulecmd" ] || fail "Lmod or Environment Modules missing (tools/install-deps.sh)"
man -w ls >/dev/null 2>&1 || fail "man -w ls fails without any module (man-db or man pages missing)"
dir=$(mktemp -d /tmp/adacomp-modules.XXXXXX)
trap 'rm -rf "$dir"' EXIT
flavors=$(cd "$mods" && ls adacomp-*.lua | sed 's/^adacomp-//; s/\.lua$//')
[ -n "$flavors" ] || fail "no modulefiles in $mods"
mkdir "$dir/site" "$dir/tcl" "$dir/nompi" "$dir/home"
for f in $flavors; do
  ln -s "$mods/adacomp-$f" "$mods/adacomp-$f.lua" "$dir/site/"
  ln -s "$mods/adacomp-$f" "$dir/tcl/"
  # Copies whose MPI launcher does not exist (the check comes first: the
  # prefix they would find from their place does not matter).
  sed 's|file isfile {[^}]*}|file isfile {/nonexistent/mpirun}|' "$mods/adacomp-$f" >"$dir/nompi/adacomp-$f"
  sed 's|isFile("[^"]*")|isFile("/nonexistent/mpirun")|' "$mods/adacomp-$f.lua" \
    >"$dir/nompi/adacomp-$f.lua"
done

# The module command of $system, evaluated in this shell; its messages in $dir/err.
module() {
  local out
  case $system in
    lmod) out=$("$lmod" bash "$@" 2>"$dir/err") ;;
    modules) out=$(tclsh "$modulecmd" bash "$@" 2>"$dir/err") ;;
  esac
  eval "$out"
}
# A shell with no module loaded, MODULEPATH=$1 and MANPATH=$2 (unset if empty).
fresh() {
  unset LOADEDMODULES _LMFILES_ MANPATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH ADACOMP_ROOT \
        LD_LIBRARY_PATH LD_PRELOAD $(compgen -v | grep -E '^(__LMOD|_ModuleTable|LMOD|__MODULES|MODULES)')
  export HOME=$dir/home MODULEPATH=$1 PATH=/usr/local/bin:/usr/bin:/bin
  [ -z "$2" ] || export MANPATH=$2
}
loaded() { tr : '\n' <<<"${LOADEDMODULES-}" | grep -c '^adacomp-'; }

# One flavour: load, check, unload; $2 is MANPATH before (empty: unset).
check_flavor() {
  local file=$1 manpath=$2 path0=$PATH
  module load "adacomp-$flavor" || fail "load failed"
  [ "${_LMFILES_-}" = "$file" ] || fail "loaded ${_LMFILES_-nothing}, not $file"
  [ "${PATH%%:*}" = "$prefix/bin" ] || fail "PATH=$PATH does not start with $prefix/bin"
  [ "$MANPATH" = "$prefix/share/man:${manpath:+$manpath:}" ] ||
    [ "$MANPATH" = "$prefix/share/man:${manpath:+$manpath:}:" ] ||  # Lmod writes '::'
    fail "MANPATH=$MANPATH: not $prefix/share/man, then ${manpath:-nothing}, then man's default path"
  [ "$CMAKE_PREFIX_PATH" = "$prefix" ] && [ "$ADACOMP_ROOT" = "$prefix" ] ||
    fail "CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH ADACOMP_ROOT=$ADACOMP_ROOT, not $prefix"
  for var in PATH MANPATH PKG_CONFIG_PATH; do
    case :${!var}: in *//*|*/./*|*/../*|*/.:*|*/..:*) fail "$var=${!var} is not normalised" ;; esac
  done
  [ -z "${LD_LIBRARY_PATH+set}${LD_PRELOAD+set}" ] || fail "LD_LIBRARY_PATH or LD_PRELOAD set"
  man -w ls >/dev/null 2>&1 || fail "man -w ls fails with MANPATH=$MANPATH"
  [ "$(man -w adacomp 2>&1)" = "$prefix/share/man/man1/adacomp.1" ] || fail "man -w adacomp"
  "adacomp-$flavor" --version | grep -q "($flavor)" || fail "adacomp-$flavor not on PATH"
  pkg-config --exists "adacomp-$flavor" || fail "pkg-config does not find adacomp-$flavor"
  module unload "adacomp-$flavor" || fail "unload failed"
  [ "$PATH" = "$path0" ] && [ "${MANPATH-}" = "$manpath" ] && [ "$(loaded)" = 0 ] ||
    fail "unload left PATH=$PATH MANPATH=${MANPATH-(unset)} LOADEDMODULES=${LOADEDMODULES-}"
  module help "adacomp-$flavor"
  grep -q "mpirun -np N adacomp-$flavor ./app" "$dir/err" || fail "help"
  module whatis "adacomp-$flavor"
  grep -q "transparent compression of MPI messages, built for" "$dir/err" || fail "whatis"
}

# Where the modules are found: the install, a site's links to both files,
# links to the Tcl files alone (Lmod prefers a .lua beside a Tcl file).
for system in lmod modules; do
  for where in install site tcl; do
    [ $system$where = modulestcl ] && continue
    path=$dir/$where
    [ $where = install ] && path=$mods
    for flavor in $flavors; do
      file=$path/adacomp-$flavor
      [ $system = lmod ] && [ $where != tcl ] && file=$file.lua
      for manpath in "" /usr/share/man; do
        (fresh "$path" "$manpath" && check_flavor "$file" "$manpath") || exit 1
      done
      # Without its MPI's launcher the module refuses, saying why.
      (fresh "$dir/nompi" "" && ! module load "adacomp-$flavor" && [ "$(loaded)" = 0 ] &&
       tr -s ' \n' '  ' <"$dir/err" | grep -q "adacomp-$flavor is built for .*, and its launcher") ||
        fail "loaded without its MPI launcher, or said nothing"
    done
    # Never both MPIs' modules: Lmod swaps one family member for the other,
    # a conflict refuses the second.
    set -- $flavors
    if [ $# = 2 ]; then
      flavor="$1+$2"
      (fresh "$path" "" && module load "adacomp-$1" && { module load "adacomp-$2"; true; } &&
       [ "$(loaded)" = 1 ]) || fail "both MPIs' modules loaded at once"
    fi
    flavor=""
  done
done
echo "ok: modules of" $flavors "under Lmod and Environment Modules, from $mods and linked elsewhere"
