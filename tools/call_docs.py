#!/usr/bin/env python3
"""The docs' lists of the calls AdaComp intercepts and which of them it
compresses, generated from the one table of intercepted calls,
src/boundary/mpi_calls.txt (read by gen_entries.py's parser).

A call's group follows from its line: a call with a datatype argument
carries a payload; one with a peer (dest, source, a message handle) is
point-to-point; one with a request is nonblocking or (named *_init)
persistent. So adding a line to the table is all it takes to list the call.

Each document holds a generated block between marker lines:
  markdown  <!-- calls: generated ... -->          ...  <!-- calls: end -->
  roff      .\\" calls: generated ...               ...  .\\" calls: end

usage: call_docs.py check|write [FILE...]   (FILE relative to the source
       tree; default: docs/user-guide.md, man/adacomp.1, docs/nonblocking.md). check:
       exit 1 naming each stale list, a file without one, and each line of
       README.md, man/ or docs/ that calls a call of the table "not
       intercepted"; write: regenerate the lists in place
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from gen_entries import parse  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir)
TABLE = os.path.join(ROOT, "src", "boundary", "mpi_calls.txt")
MARK = "calls: generated from src/boundary/mpi_calls.txt by tools/call_docs.py; do not edit"
END = "calls: end"

# (group, what happens to its calls), in the order of group() below.
GROUPS = [
    ("Collectives",
     "compressed from ADACOMP_THRESHOLD_LOSSLESS on: under the default settings where data "
     "crosses a node boundary and the runtime model measures that coding pays; in a forced "
     "mode always (on a communicator that spans nodes, what crosses them). Reductions need a "
     "predefined contiguous type and a commutative operation"),
    ("Nonblocking and persistent collectives",
     "compressed like their blocking forms only with ADACOMP_NONBLOCKING=on, and then only "
     "where the runtime model does not decide (a forced mode, or ADACOMP_MODEL=off) and the "
     "library's private communicators for the call exist (made by the communicator's "
     "constructor, or by a first blocking compressed collective on it: making them would "
     "block); otherwise they are MPI's own"),
    ("Point-to-point",
     "lossless: coded where coding pays on the link (every message in a forced mode), as a "
     "marker on the application's communicator and a body on the library's; every other "
     "message, and those between ranks of one node on a communicator that spans nodes, "
     "straight through MPI"),
    ("Intercepted without a payload of their own",
     "completion, probes, communicator constructors, start-up and control, which serve "
     "the calls above"),
]


def group(call):
    names = {p.name for p in call.params}
    types = {p.base for p in call.params}
    if not names & {"datatype", "sendtype", "recvtype"}:
        return 3
    if names & {"dest", "source"} or "MPI_Message" in types:
        return 2
    return 1 if "MPI_Request" in types else 0


def groups():
    """Per group, [(name, MPI-4 only?)] in the table's order."""
    out = [[] for _ in GROUPS]
    for call in parse(TABLE):
        out[group(call)].append(("MPI_" + call.name, call.has("mpi4")))
    return out


FOOT = ("Calls with an element count also have their MPI-4 large-count form ({c}, ...). "
        "MPI-4 calls exist only in MPICH builds (Open MPI 4.1 has none). Every other MPI "
        "call goes to MPI unchanged.")


def markdown():
    lines = ["<!-- %s -->" % MARK]
    for (title, what), calls in zip(GROUPS, groups()):
        names = ", ".join("`%s`%s" % (n, " (MPI-4)" if v4 else "") for n, v4 in calls)
        lines.append("- **%s.** %s. %s." % (title, what[0].upper() + what[1:], names))
    lines += ["", FOOT.format(c="`MPI_Allreduce_c`"), "<!-- %s -->" % END]
    return lines


def roff():
    lines = ['.\\" %s' % MARK, ".nh", ".ad l"]  # call names: no hyphens, no stretched gaps
    for (title, what), calls in zip(GROUPS, groups()):
        names = ", ".join(n + (" (MPI-4)" if v4 else "") for n, v4 in calls)
        text = "%s. %s." % (what[0].upper() + what[1:], names)
        lines += [".TP", ".B " + title.replace("-", "\\-"), text.replace("-", "\\-")]
    lines += [".PP", FOOT.format(c="MPI_Allreduce_c").replace("-", "\\-"), ".hy", ".ad b",
              '.\\" %s' % END]
    return lines


def block_re(path):
    if path.endswith(".md"):
        return re.compile(r"^<!-- %s -->\n.*?^<!-- %s -->\n" % (re.escape(MARK), re.escape(END)),
                          re.M | re.S), markdown
    return re.compile(r'^\.\\" %s\n.*?^\.\\" %s\n' % (re.escape(MARK), re.escape(END)),
                      re.M | re.S), roff


# The documents that hold a generated list, and those whose statements
# that a call is "not intercepted" are checked against the table.
LISTS = ["docs/user-guide.md", "man/adacomp.1", "docs/nonblocking.md"]


def scanned():
    docs = [os.path.join("docs", f) for f in sorted(os.listdir(os.path.join(ROOT, "docs")))
            if f.endswith(".md")]
    return ["README.md"] + [os.path.join("man", f) for f in sorted(os.listdir(
        os.path.join(ROOT, "man")))] + docs


def contradictions(path):
    """Lines that call a call of the table "not intercepted"."""
    table = {c.name for c in parse(TABLE)}
    out = []
    for n, line in enumerate(open(os.path.join(ROOT, path)), 1):
        if "not intercepted" in line:
            named = set(re.findall(r"MPI_(\w+)", line)) | set(re.findall(r"`(\w+)`", line))
            for name in sorted(named & table):
                out.append("%s:%d: says MPI_%s is not intercepted; it is in %s"
                           % (path, n, name, os.path.relpath(TABLE, ROOT)))
    return out


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    if len(argv) < 2 or argv[1] not in ("check", "write"):
        sys.stderr.write(__doc__.split("\n\n")[-1] + "\n")
        return 2
    errors = 0
    for rel in argv[2:] or LISTS:
        path = os.path.join(ROOT, rel)
        text = open(path).read()
        pattern, render = block_re(path)
        fresh = "\n".join(render()) + "\n"
        found = pattern.findall(text)
        if not found:
            print("%s: no generated list of calls (markers '%s')" % (rel, MARK))
            errors += 1
        elif argv[1] == "write":
            open(path, "w").write(pattern.sub(lambda m: fresh, text))
        elif any(block != fresh for block in found):
            print("%s: the list of calls differs from src/boundary/mpi_calls.txt; "
                  "run tools/call_docs.py write %s" % (rel, rel))
            errors += 1
    if argv[1] == "check":
        for line in (c for rel in scanned() for c in contradictions(rel)):
            print(line)
            errors += 1
    if not errors and argv[1] == "check":
        print("call_docs: the lists of calls match the call table")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
