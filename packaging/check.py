#!/usr/bin/env python3
"""Checks the packaging files without Spack or a module system: the Spack
recipe parses, runs against a stub of spack.package, declares what the issue
asks (mpi, zstd, lz4, c-blosc, zfp; variants; BSD-3-Clause), and passes only
CMake options that exist, and its versions exist (no missing tag); every
@VAR@ in the templates is one CMake sets; the modules have what a site
expects (help, whatis, a conflict, the MPI check, man's default path); every
setting is in the user guide's table and in adacomp.conf(5)."""
import ast
import os
import re
import subprocess
import sys
import types

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
errors = []
recorded = {"depends_on": [], "variant": [], "version": [], "license": [], "conflicts": []}


def directive(name):
    def record(*args, **kwargs):
        recorded[name].append((args, kwargs))
    return record


class Define:
    def __init__(self, name, value):
        self.name, self.value = name, value


class CMakePackage:
    run_tests = False

    def define(self, name, value):
        return Define(name, value)

    def define_from_variant(self, name, variant):
        if variant not in [a[0] for a, _ in recorded["variant"]]:
            errors.append("define_from_variant: no variant %r" % variant)
        return Define(name, variant)


stub = types.ModuleType("spack.package")
for name in recorded:
    setattr(stub, name, directive(name))
stub.maintainers = lambda *a: None
stub.CMakePackage = CMakePackage
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = stub

path = os.path.join(root, "packaging", "spack", "package.py")
source = open(path).read()
ast.parse(source, path)  # a syntax error fails here, with its line
namespace = {}
exec(compile(source, path, "exec"), namespace)
pkg = namespace.get("Adacomp")
if pkg is None or not issubclass(pkg, CMakePackage):
    errors.append("no class Adacomp(CMakePackage)")
else:
    deps = {a[0].split("@")[0] for a, _ in recorded["depends_on"]}
    for need in ("mpi", "zstd", "lz4", "c-blosc", "zfp", "cmake", "pkgconfig"):
        if need not in deps:
            errors.append("missing depends_on(%r)" % need)
    if ("BSD-3-Clause",) not in [a for a, _ in recorded["license"]]:
        errors.append("license is not BSD-3-Clause")
    if not recorded["version"] or not recorded["variant"]:
        errors.append("no version or no variant")
    # A version must point at something the repository has: a tag that
    # does not exist makes `spack install adacomp@X` fail at fetch.
    tags = subprocess.run(["git", "-C", root, "tag", "-l"], capture_output=True,
                          text=True).stdout.split()
    for args, kwargs in recorded["version"]:
        if "tag" in kwargs and kwargs["tag"] not in tags:
            errors.append("version %s: tag %s does not exist" % (args[0], kwargs["tag"]))
    if not (pkg.__doc__ or "").strip() or not getattr(pkg, "homepage", ""):
        errors.append("docstring and homepage required")

    mpi = types.SimpleNamespace(mpicc="mpicc", mpicxx="mpicxx")
    instance = pkg.__new__(pkg)
    instance.spec = {"mpi": mpi}
    cmake_text = open(os.path.join(root, "CMakeLists.txt")).read()
    for d in instance.cmake_args():
        if d.name not in ("MPI_C_COMPILER", "MPI_CXX_COMPILER", "BUILD_TESTING") and \
                not re.search(r"option\(%s\b" % d.name, cmake_text):
            errors.append("cmake_args passes %s, which CMakeLists.txt does not define" % d.name)

# Template placeholders must be variables CMake sets before configuring them.
cmake_all = ""
for d, _, files in os.walk(root):
    if "/build" in d or "/.git" in d:
        continue
    for f in files:
        if f == "CMakeLists.txt" or f.endswith(".cmake"):
            cmake_all += open(os.path.join(d, f)).read()
builtin = {"PROJECT_VERSION", "CMAKE_INSTALL_BINDIR", "CMAKE_INSTALL_LIBDIR",
           "CMAKE_INSTALL_MANDIR", "CMAKE_INSTALL_INCLUDEDIR", "PACKAGE_INIT",
           "MPIEXEC_EXECUTABLE"}
for rel in ("packaging/modules/adacomp.lua.in", "packaging/modules/adacomp.tcl.in",
            "packaging/pkgconfig/adacomp.pc.in", "tools/adacomp.in"):
    text = open(os.path.join(root, rel)).read()
    for var in set(re.findall(r"@([A-Za-z_]+)@", text)) - builtin:
        if not re.search(r"set\(%s\b|RELATIVE_PATH %s\b" % (var, var), cmake_all):
            errors.append("%s: @%s@ is never set" % (rel, var))
if not open(os.path.join(root, "packaging/modules/adacomp.tcl.in")).read().startswith("#%Module"):
    errors.append("adacomp.tcl.in: no #%Module header")

# What a site expects of a module (tests/modules_check.sh loads them): help,
# whatis, no two flavours at once, the MPI checked, man's default path kept.
expect = {
    "packaging/modules/adacomp.tcl.in": [r"proc ModulesHelp", r"module-whatis", r"conflict ",
                                         r"module-info mode load", r"append-path\s+MANPATH\s+\{\}"],
    "packaging/modules/adacomp.lua.in": [r"help\(\[\[", r"whatis\(", r'family\("adacomp"\)',
                                         r"LmodError\(", r'append_path\("MANPATH", ""\)'],
}
for rel, patterns in expect.items():
    text = open(os.path.join(root, rel)).read()
    for pattern in patterns:
        if not re.search(pattern, text):
            errors.append("%s: lacks /%s/" % (rel, pattern))

# Every setting the library accepts is documented where users look: the
# user guide's settings table and the installed man page adacomp.conf(5).
config_cpp = open(os.path.join(root, "src/decision/config.cpp")).read()
guide = open(os.path.join(root, "docs/user-guide.md")).read()
man5 = open(os.path.join(root, "man/adacomp.conf.5")).read()
for key in re.findall(r'\{"(ADACOMP_[A-Z_]+)", "(?!ADACOMP_)', config_cpp):
    if not re.search(r"^\| [^|]*`%s`" % key, guide, re.M):
        errors.append("docs/user-guide.md: %s is not in the settings table" % key)
    if not re.search(r"^\.B [^\n]*\b%s\b" % key, man5, re.M):
        errors.append("man/adacomp.conf.5: %s is not documented" % key)

for e in errors:
    print("packaging:", e)
print("packaging: %s" % ("FAILED" if errors else "recipe and templates ok"))
sys.exit(1 if errors else 0)
