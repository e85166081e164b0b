#!/bin/bash
# usage: tool_check.sh MPIEXEC_AND_FLAGS... -- LAUNCHER APP
# adacomp-report on two real reports: APP (tests/report/app.c) run through
# the launcher with ADACOMP_MODE=raw (A) and forced lossless across two
# declared nodes with a 1 Gbit/s link figure (B). Checks `compare A B`
# (every operation with times on both sides and ratios, totals, CSV), a
# batch with a truncated file, a file that is no report and a missing one
# (named, skipped, the rest processed; exit 1 only when none is readable),
# the CSV export's columns, plot names derived from the inputs and a report
# with nothing to plot, the self-contained HTML summary (and compare's), and the fields
# of schema 2 (verdict first, settings, sites, ranks, regions; fixture
# tests/report/schema2.json).
set -u
dir=$(mktemp -d /tmp/adacomp-reporttool.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mpiexec=()
while [ "$1" != "--" ]; do mpiexec+=("$1"); shift; done
shift
launcher=$1 app=$2
here=$(cd "$(dirname "$0")" && pwd)
tool=$here/../../tools/adacomp-report
fail() { echo "FAIL: $*"; exit 1; }
run() {  # run NAME ENV...: one report, NAME.json
  local name=$1; shift
  (cd "$dir" && env ADACOMP_REPORT="$name.json" ADACOMP_NODE_MAP=1,1 "$@" \
     "${mpiexec[@]}" "$launcher" "$app" 4 512 >"$name.out" 2>&1) || { cat "$dir/$name.out"; fail "$name run"; }
  grep -q "report-app ok" "$dir/$name.out" || { cat "$dir/$name.out"; fail "$name: wrong results"; }
}
run raw ADACOMP_MODE=raw
run lossless ADACOMP_MODE=lossless ADACOMP_LINK_BANDWIDTH=1.25e8
cd "$dir" || exit 1

# compare: every operation, with both times and their ratio; totals.
"$tool" compare raw.json lossless.json --csv compare.csv >compare.txt 2>compare.err ||
  { cat compare.txt compare.err; fail "compare"; }
cat compare.txt
for op in allreduce bcast alltoall; do
  grep -Eq "^$op +[0-9]+/[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x " compare.txt || fail "compare: no times and ratio for $op"
done
for line in "^  A  raw.json: 2 ranks .*(mode raw|ADACOMP_MODE=raw)" \
            "^  B  lossless.json: 2 ranks .*(mode lossless|ADACOMP_MODE=lossless)" \
            "^B spent [0-9.]+x A's time in intercepted MPI" \
            "^wall \(Init..Finalize\), mean per rank, s +[0-9.]+ +[0-9.]+ +[0-9.]+x" \
            "^in intercepted MPI, mean per rank, s +[0-9.]+ +[0-9.]+ +[0-9.]+x" \
            "^Sendrecv +8/8 +[0-9.]+ +[0-9.]+ +[0-9.]+x"; do
  grep -Eq -- "$line" compare.txt || fail "compare lacks /$line/"
done
python3 - <<'PY' || exit 1
import csv, json
rows = list(csv.DictReader(open("compare.csv")))
assert list(rows[0]) == ["table", "name", "calls_a", "calls_b", "compressed_a", "compressed_b",
                         "time_a_s", "time_b_s", "time_ratio", "moved_a", "moved_b", "moved_ratio",
                         "frames_a", "frames_b", "codec_a_s", "codec_b_s"], list(rows[0])
ops = {r["name"]: r for r in rows if r["table"] == "operation"}
for op in ("allreduce", "bcast", "alltoall"):
    r = ops[op]
    assert r["calls_a"] == r["calls_b"] == "8", r            # 2 ranks x 4 steps
    assert r["compressed_a"] == "0" and r["compressed_b"] == "8", r
    ratio = float(r["time_ratio"])
    assert abs(ratio - float(r["time_b_s"]) / float(r["time_a_s"])) < 1e-9 and 0.01 < ratio < 100, r
    assert 0 < int(r["moved_b"]) < 8 * 512 * 1024, r           # coded: less than the payload
    assert float(r["codec_b_s"]) > 0 == float(r["codec_a_s"]), r
    # With payload totals in the report (call sites, schema 2), the raw
    # run's bytes are known too and B moved fewer.
    if r["moved_a"]:
        assert 0 < float(r["moved_ratio"]) < 1, r
calls = {r["name"]: r for r in rows if r["table"] == "call"}
assert {"Allreduce", "Bcast", "Alltoall", "Sendrecv"} <= set(calls), calls.keys()
print("compare csv ok")
PY

# A batch: a truncated report, a JSON file that is no report, a missing file.
head -c 300 lossless.json >truncated.json
echo '{"hello": 1}' >other.json
"$tool" raw.json truncated.json other.json missing.json lossless.json --csv all.csv >batch.txt 2>batch.err ||
  { cat batch.txt batch.err; fail "batch with bad files exits nonzero"; }
[ "$(grep -c '^AdaComp report ' batch.txt)" = 2 ] || { cat batch.txt; fail "batch: not 2 summaries"; }
for f in truncated other missing; do
  grep -q "^adacomp-report: skipping $f.json: " batch.err || { cat batch.err; fail "batch: $f.json not named"; }
done
grep -q "truncated" batch.err || { cat batch.err; fail "batch: a truncated file is not called so"; }
"$tool" truncated.json other.json >none.txt 2>none.err && fail "batch of bad files exits 0"
[ $? = 1 ] && grep -q "no report could be read" none.err || { cat none.err; fail "batch of bad files: message"; }
"$tool" --help | grep -q "Exit status: 0 when at least one report was read" || fail "--help: exit status"

# CSV: columns, and a row per operation and call of each report.
python3 - <<'PY' || exit 1
import csv
rows = list(csv.DictReader(open("all.csv")))
assert list(rows[0]) == ["report", "table", "name", "region", "rank", "host", "calls",
                         "compressed_calls", "time_s", "bytes", "bytes_in", "bytes_wire", "ratio",
                         "codec_s", "saved_s", "net_s"], list(rows[0])
got = {(r["report"], r["table"], r["name"]) for r in rows}
for rep in ("raw.json", "lossless.json"):
    for op in ("allreduce", "bcast", "alltoall"):
        assert (rep, "operation", op) in got, (rep, op)
    assert (rep, "call", "Sendrecv") in got, rep
a = [r for r in rows if r["report"] == "lossless.json" and r["name"] == "allreduce"][0]
assert int(a["bytes_wire"]) < int(a["bytes_in"]) and float(a["ratio"]) > 1 and float(a["saved_s"]) > 0, a
print("csv ok")
PY

# Plots named after their inputs; a report with nothing to show gets a message.
mkdir sub && cp lossless.json sub/lossless.json
echo '{"allreduce": {"calls": 0}}' >empty.json
"$tool" --plot plots raw.json lossless.json sub/lossless.json empty.json >plots.txt 2>&1 ||
  { cat plots.txt; fail "--plot"; }
for f in raw lossless lossless-2; do [ -s "plots/$f.png" ] || { ls plots; fail "no plots/$f.png"; }; done
grep -q "^empty.json: nothing to plot" plots.txt || { cat plots.txt; fail "no message for an empty report"; }
[ "$(ls plots | wc -l)" = 3 ] || { ls plots; fail "a plot of nothing was written"; }

# HTML: one file, plots embedded, nothing fetched from elsewhere.
"$tool" --html job.html raw.json lossless.json >/dev/null || fail "--html"
python3 - <<'PY' || exit 1
import base64, re
page = open("job.html").read()
imgs = re.findall(r'<img alt="[^"]*" src="data:image/png;base64,([A-Za-z0-9+/=]+)">', page)
assert len(imgs) == 2 and all(base64.b64decode(i)[:8] == b"\x89PNG\r\n\x1a\n" for i in imgs), len(imgs)
assert not re.search(r'(src|href)="(?!data:)', page) and "<script" not in page and "<link" not in page
assert "<h2>raw.json</h2>" in page and "<h2>lossless.json</h2>" in page
assert "Compression by operation" in page
print("html ok")
PY

# The comparison as a page: the plot of B against A, then both runs.
"$tool" compare raw.json lossless.json --html compare.html >/dev/null || fail "compare --html"
python3 - <<'PY' || exit 1
import base64, re
page = open("compare.html").read()
imgs = re.findall(r'<img alt="[^"]*" src="data:image/png;base64,([A-Za-z0-9+/=]+)">', page)
assert len(imgs) == 3 and all(base64.b64decode(i)[:4] == b"\x89PNG" for i in imgs), len(imgs)
assert page.index("lossless.json (B) against raw.json (A)") < page.index("<h2>raw.json</h2>")
assert re.search(r"<td>allreduce</td><td class=\"n\">8</td><td class=\"n\">8</td>", page)
print("compare html ok")
PY

# Schema 2 (fields of the library's later reports): the verdict first, then
# the settings' values, call sites, ranks, regions and settled codecs.
"$tool" "$here/schema2.json" >s2.txt || { cat s2.txt; fail "schema 2 summary"; }
sed -n 2p s2.txt | grep -q "^  AdaComp saved 0.136 s of 1.8 s in MPI" || { cat s2.txt; fail "verdict not first"; }
for line in "^  Next step: " "^    ADACOMP_THRESHOLD_LOSSLESS = 64K +\(site " "measured at MPI_Init" \
            "^Allreduce +40 +4.2000 .* residual \(stencil.c:140\)" "coefficient of variation: mpi_s 0.13" \
            "^     3 n2 " "^1 +allreduce +36 +36 " "^  allreduce +1M..<2M +bitplane +lossless"; do
  grep -Eq -- "$line" s2.txt || { cat s2.txt; fail "schema 2 summary lacks /$line/"; }
done
"$tool" compare "$here/schema2.json" "$here/schema2.json" >s2c.txt || fail "schema 2 compare"
grep -Eq "^allreduce +40/40 +4.2000 +4.2000 +1.00x +23.1 MB +23.1 MB +1.00x" s2c.txt &&
  grep -Eq "^level 1 allreduce +36/36 +36/36 +18.9 MB +18.9 MB" s2c.txt &&
  grep -Eq "^Allreduce at residual \(stencil.c:140\) +40/40 " s2c.txt &&
  grep -q "^    defaults: MODE=adaptive" s2.txt || { cat s2c.txt s2.txt; fail "schema 2 compare rows, defaults"; }
echo "ok: compare, batch, csv, plots, html, schema 2"
