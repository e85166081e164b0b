"""Command line of adacomp-report."""
import argparse
import os
import sys

from . import advise, compare, csvout, html, plots, text
from .model import SUPPORTED_SCHEMA, ReportError, load, load_many

VERSION = "0.1.0"

SUMMARY_HELP = """\
usage: adacomp-report [--plot DIR] [--csv FILE] [--html FILE] [--ranks] REPORT.json...
       adacomp-report compare [--csv FILE] [--html FILE] A.json B.json
       adacomp-report advise [--bound rel=X|abs=X] REPORT.json

Summarises AdaComp JSON reports (written with ADACOMP_REPORT=FILE): per
report, the verdict (did AdaComp help, and what to do next), the run and its
settings, where the time went, what was compressed and what it saved, and
when present call sites, ranks and MPI_Pcontrol regions.

  --plot DIR    one PNG per report, named after it (run-7.json: DIR/run-7.png);
                a report with nothing to plot gets a message instead
  --csv FILE    one CSV of every report: a row per operation, MPI call, call
                site, rank and region (column `table` says which)
  --html FILE   one self-contained HTML summary (plots embedded) of every report
  --ranks       list every rank (by default, the 3 least and most busy in MPI)

  compare A B   B against A (e.g. A run with ADACOMP_MODE=raw, B with the
                default settings; or before and after a change): per
                operation and MPI call, time and bytes moved (coded calls at
                their frames' size) side by side with the ratio B/A; per
                call site and region what changed; the totals (time in MPI,
                wall, codec time, net time saved); --csv FILE writes the rows,
                --html FILE a page with the comparison (plotted) and both runs

  advise R     rules for ADACOMP_LOSSY_RULES from a report written with
                ADACOMP_ADVISE=on: the lossy candidates ranked by what they
                would save, the sites that may have to stay exact (small
                reductions: dot products, norms) as comments for your
                judgment, and the sites that cannot be lossy; --bound
                writes the rules with that bound instead of the sampled one

A file that cannot be read (missing, truncated, not a report, a newer
schema) is named on stderr and skipped; the others are processed.
Exit status: 0 when at least one report was read (compare: both), 1 when
none could be, 2 for a usage error. Plots and HTML need matplotlib.
The JSON schema: docs/report.md (share/doc/adacomp/docs/report.md when installed).
"""


def warn(msg):
    sys.stderr.write("adacomp-report: %s\n" % msg)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write(SUMMARY_HELP.split("\n\n")[0] + "\nadacomp-report: %s\n" % message)
        sys.exit(2)


def summary_main(args):
    p = Parser(add_help=False)
    p.add_argument("--plot", metavar="DIR")
    p.add_argument("--csv", metavar="FILE")
    p.add_argument("--html", metavar="FILE")
    p.add_argument("--ranks", action="store_true")
    p.add_argument("reports", nargs="+")
    a = p.parse_args(args)
    reports, summaries = [], []
    for r in load_many(a.reports, warn):
        try:
            summaries.append(text.summary(r, a.ranks))
            reports.append(r)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            warn("skipping %s: malformed report (%s: %s)" % (r.path, type(e).__name__, e))
    if not reports:
        warn("no report could be read")
        return 1
    print("\n\n".join(summaries))
    if a.csv:
        csvout.write(a.csv, reports)
        print("wrote", a.csv)
    try:
        if a.plot:
            os.makedirs(a.plot, exist_ok=True)
            for r, name in zip(reports, plots.file_names(reports, a.plot)):
                png, why = plots.figure_png(r)
                if png:
                    with open(name, "wb") as f:
                        f.write(png)
                    print("wrote", name)
                else:
                    print("%s: %s" % (r.path, why))
        if a.html:
            html.write(a.html, reports)
            print("wrote", a.html)
    except plots.NoMatplotlib as e:
        warn(str(e))
        return 1
    return 0


def compare_main(args):
    p = Parser(add_help=False)
    p.add_argument("--csv", metavar="FILE")
    p.add_argument("--html", metavar="FILE")
    p.add_argument("a")
    p.add_argument("b")
    a = p.parse_args(args)
    pair = []
    for path in (a.a, a.b):
        try:
            pair.append(load(path))
        except ReportError as e:
            warn("cannot compare: %s: %s" % (path, e))
            return 1
    print(compare.compare(*pair))
    if a.csv:
        csvout.write_compare(a.csv, compare.all_rows(*pair))
        print("wrote", a.csv)
    if a.html:
        html.write(a.html, pair, pair)
        print("wrote", a.html)
    return 0


def advise_main(args):
    p = Parser(add_help=False)
    p.add_argument("--bound", metavar="rel=X|abs=X")
    p.add_argument("report")
    a = p.parse_args(args)
    if a.bound and not (a.bound.startswith(("rel=", "abs=")) and _number(a.bound[4:]) > 0):
        p.error("--bound takes rel=X or abs=X, X a number over 0, not '%s'" % a.bound)
    try:
        report = load(a.report)
    except ReportError as e:
        warn("cannot advise: %s: %s" % (a.report, e))
        return 1
    rules = advise.advise(report, a.bound)
    if rules is None:
        warn("%s has no advice: run with ADACOMP_ADVISE=on" % a.report)
        return 1
    sys.stdout.write(rules)
    return 0


def _number(text):
    try:
        return float(text)
    except ValueError:
        return 0


def main(argv):
    args = argv[1:]
    if not args:
        sys.stderr.write(SUMMARY_HELP.split("\n\n")[0] + "\n")
        return 2
    if args[0] in ("-h", "--help"):
        sys.stdout.write(SUMMARY_HELP)
        return 0
    if args[0] in ("-V", "--version"):
        print("adacomp-report %s (report schema up to %d)" % (VERSION, SUPPORTED_SCHEMA))
        return 0
    if args[0] == "compare":
        return compare_main(args[1:])
    if args[0] == "advise":
        return advise_main(args[1:])
    return summary_main(args)
