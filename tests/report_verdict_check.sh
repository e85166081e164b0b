#!/bin/bash
# usage: report_verdict_check.sh MPIEXEC_AND_FLAGS... -- PROGRAM
# PROGRAM is tests/mpi/report_sites.cpp on 2 ranks. Checks the report's
# answers (docs/report.md), each from a real run:
#  - one host, default settings: the verdict says one host, not the
#    thresholds or the model;
#  - two declined "nodes" (ADACOMP_NODE_MAP) with the thresholds out of
#    reach: below_threshold, and the link measured at MPI_Init, with the
#    route class, in the banner and both reports;
#  - a forced lossless run on a calibrated slow link: a gain in seconds,
#    estimated from the bytes kept off each node's link (the sentence says so),
#    point-to-point bytes counted once (send row only), settings with
#    their values and sources (environment, a conf file, default), call
#    sites naming this program's functions and file, per-rank rows, the
#    report written into a directory under an mpiP-style name;
#  - lossy Allreduce (reduction on codes): codec time above zero;
#  - the adaptive model across two "nodes": what it settled on per size class;
#  - MPI_Pcontrol regions: level 0 codes nothing; only rank 0 calling it
#    neither hangs nor changes results;
#  - unwritable report paths refused at MPI_Init with the reason.
set -u
dir=$(mktemp -d /tmp/adacomp-verdict.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mpiexec=()
while [ "$1" != "--" ]; do mpiexec+=("$1"); shift; done
shift
program=$1
fail() { echo "FAIL: $*"; exit 1; }

# run NAME ENV... -- ARGS...: the program with ENV; report in $dir/NAME.json
run() {
  local name=$1 env=()
  shift
  while [ "$1" != "--" ]; do env+=("$1"); shift; done
  shift
  env ADACOMP_REPORT="$dir/$name.json" ADACOMP_VERBOSE=1 "${env[@]}" \
    "${mpiexec[@]}" "$program" "$@" >"$dir/$name.out" 2>&1 ||
    { cat "$dir/$name.out"; fail "$name: run failed"; }
  [ -s "$dir/$name.json" ] || { cat "$dir/$name.out"; fail "$name: no report"; }
}

# check NAME PYTHON: PYTHON sees the report as r and the text output as out.
check() {
  python3 - "$dir/$1.json" "$dir/$1.out" "$2" <<'PY' || { cat "$dir/$1.out"; fail "$1: report"; }
import json, sys
r = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
v = r["verdict"]
ops = r["operations"]
def setting(key):
    return next(s for s in r["settings"] if s["key"] == key)
exec(sys.argv[3])
PY
  echo "ok: $1"
}

run one_host -- plain
check one_host '
assert r["schema"] == 2, r["schema"]
assert v["reason"] == "one_host", v
assert "one host" in v["text"] and "threshold" not in v["text"] and "model" not in v["text"], v
assert v["next_step"] and v["saved_s"] == 0 and v["mpi_s"] > 0 and v["wall_s"] > 0, v
assert "adacomp: AdaComp passed everything through because the job ran on one host" in out, out
assert r["link"]["source"] == "none", r["link"]
'

run below ADACOMP_NODE_MAP=1,1 ADACOMP_THRESHOLD_LOSSLESS=never ADACOMP_INTERSTEP=off -- plain
check below '
assert v["reason"] == "below_threshold", v
assert "ADACOMP_THRESHOLD_LOSSLESS = never" in v["text"], v
l = r["link"]
assert l["source"] == "measured" and l["bandwidth_Bps"] > 0 and l["latency_s"] > 0, l
assert "measured at MPI_Init" in out, out
# The link and the route class: in the banner, the text report and the JSON.
route = l["p2p_between_nodes"]
assert route in ("direct", "framed") and l["probed_Bps"] == l["bandwidth_Bps"], l
assert l["raised_in_run"] is False, l
assert "(measured at MPI_Init); point-to-point between nodes " + route in out, out
assert "point-to-point between nodes: " + route in out, out
'

conf=$dir/site.conf
echo "ADACOMP_ZSTD_LEVEL=3" >"$conf"
mkdir "$dir/reports"
env ADACOMP_REPORT="$dir/reports/" ADACOMP_VERBOSE=2 ADACOMP_MODE=lossless ADACOMP_THRESHOLD_LOSSLESS=4K \
    ADACOMP_LINK_BANDWIDTH=1e6 ADACOMP_LINK_LATENCY=1e-4 ADACOMP_CONFIG="$conf" SLURM_JOB_ID=77 \
    "${mpiexec[@]}" "$program" plain >"$dir/gain.out" 2>&1 || { cat "$dir/gain.out"; fail "gain: run failed"; }
name=$(cd "$dir/reports" && ls) || fail "no report in the directory"
[[ $name =~ ^test_report_sites\.77\.[0-9]+\.[0-9]{8}-[0-9]{6}\.adacomp\.json$ ]] ||
  fail "report name in a directory: '$name'"
mv "$dir/reports/$name" "$dir/gain.json"
# An existing directory named without the final '/' is a directory too.
ADACOMP_REPORT="$dir/reports" "${mpiexec[@]}" "$program" plain >/dev/null 2>&1 || fail "directory run"
ls "$dir/reports"/test_report_sites.*.adacomp.json >/dev/null || fail "no report in '$dir/reports'"
check gain '
assert v["reason"] == "coded" and v["saved_s"] > 0 and 0 < v["share_of_run"], v
assert v["text"].startswith("AdaComp saved about ") and " s in MPI per rank (" in v["text"], v
assert v["text"].endswith("estimated from the bytes coded calls kept off each node'"'"'s link at 1 MB/s, less codec time"), v
assert "adacomp: AdaComp saved about" in out and "adacomp: next step:" in out, out
# One node (no map): the bytes kept off its link over the bandwidth, less
# the codec time per rank.
raw = sum(o["bytes_in"] - o["bytes_wire"] for o in ops.values())
codec = sum(o["seconds_compress"] + o["seconds_decompress"] for o in ops.values())
assert abs(v["saved_s"] - (raw / 1e6 - codec / 2)) < 1e-3 * abs(v["saved_s"]) + 1e-6, (v, raw, codec)
assert r["link"]["source"] == "calibrated" and r["link"]["bandwidth_Bps"] == 1e6, r["link"]
# Point-to-point: counted once, on the send row.
s, rv = ops["send"], ops["recv"]
assert s["compressed_calls"] == 48 and 0 < s["bytes_wire"] < s["bytes_in"], s
assert rv["compressed_calls"] == 48 and rv["bytes_in"] == rv["bytes_wire"] == 0, rv
assert rv["seconds_decompress"] > 0 and rv["saved_s"] < 0 < s["saved_s"], (s, rv)
# Settings: values and where each came from.
assert setting("ADACOMP_MODE") == {"key": "ADACOMP_MODE", "value": "lossless", "source": "environment"}
assert setting("ADACOMP_ZSTD_LEVEL")["value"] == "3" and setting("ADACOMP_ZSTD_LEVEL")["source"].endswith("site.conf")
assert setting("ADACOMP_LOSSY_CODEC") == {"key": "ADACOMP_LOSSY_CODEC", "value": "auto", "source": "default"}
assert "ADACOMP_MODE = lossless (environment)" in out, out
# Call sites: the functions of this program and file, with their figures.
def site(call, function):
    """The sites of `call` in `function`, summed (a function may call it twice)."""
    rows = [x for x in r["sites"] if x["call"] == call and x["site"].startswith(function)]
    assert rows, (call, function, r["sites"])
    total = {k: sum(x[k] for x in rows) for k in ("calls", "time_s", "bytes", "wire_bytes")}
    total["saved_s"] = None if None in [x["saved_s"] for x in rows] else sum(x["saved_s"] for x in rows)
    return total
a = site("Allreduce", "exchange_sums(int) (report_sites.cpp:")
assert a["calls"] == 48 and a["bytes"] == 48 << 20, a
assert 0 < a["wire_bytes"] and a["time_s"] > 0 and a["saved_s"] is not None, a
m = site("Send", "pass_messages(int) (report_sites.cpp:")
assert m["calls"] == 48 and m["saved_s"] > 0, m
assert site("Recv", "pass_messages(int) (report_sites.cpp:")["calls"] == 48
assert "call sites by time" in out and "exchange_sums(int) (report_sites.cpp:" in out, out
# Per-rank rows.
rk = r["ranks"]
assert [x["rank"] for x in rk] == [0, 1] and all(x["mpi_s"] > 0 and x["calls"] >= 72 for x in rk), rk
assert all(x["wire_bytes"] > 0 and x["saved_s"] > 0 for x in rk), rk
assert r["rank_cov"]["mpi_s"] >= 0 and "per rank: rank host" in out, r["rank_cov"]
'

run lossy ADACOMP_MODE=lossy ADACOMP_ERROR_BOUND=1e-3 ADACOMP_THRESHOLD_LOSSLESS=0 -- plain 1e-3
check lossy '
a = ops["allreduce"]
assert a["lossy_calls"] == 48 and a["compressed_calls"] >= 48, a
assert a["seconds_compress"] > 0 and a["seconds_decompress"] > 0, a
'

run settled ADACOMP_NODE_MAP=1,1 ADACOMP_LINK_BANDWIDTH=1e6 -- plain
check settled '
if v["reason"] == "coded":  # two nodes: each node'"'"'s link saved half the bytes
    raw = sum(o["bytes_in"] - o["bytes_wire"] for o in ops.values())
    codec = sum(o["seconds_compress"] + o["seconds_decompress"] for o in ops.values())
    assert abs(v["saved_s"] - (raw / 2e6 - codec / 2)) < 1e-3 * abs(v["saved_s"]) + 1e-6, (v, raw, codec)
st = ops["allreduce"]["settled"]
assert st and all(x["size_class"] and x["codec"] and x["path"] for x in st), st
assert any("-byte class:" in line for line in out.splitlines()), out
'

run pcontrol ADACOMP_MODE=lossless ADACOMP_THRESHOLD_LOSSLESS=4K -- pcontrol
check pcontrol '
reg = {g["level"]: {o["op"]: o for o in g["ops"]} for g in r["regions"]}
assert set(reg) == {0, 1}, reg.keys()
assert reg[0]["allreduce"]["calls"] == 16 and reg[0]["allreduce"]["compressed_calls"] == 0, reg[0]
assert reg[0]["allreduce"]["bytes_in"] == reg[0]["allreduce"]["bytes_wire"] == 0, reg[0]
assert reg[0]["send"]["calls"] == 16 and reg[0]["send"]["compressed_calls"] == 0, reg[0]
assert reg[1]["allreduce"]["compressed_calls"] == 32 and reg[1]["send"]["compressed_calls"] == 32, reg[1]
assert ops["allreduce"]["calls"] >= 48, ops["allreduce"]
'
run mixed ADACOMP_MODE=lossless ADACOMP_THRESHOLD_LOSSLESS=4K -- mixed
check mixed '
assert "mixed: ok" in out, out
'
run mixed_lossy ADACOMP_MODE=lossy ADACOMP_ERROR_BOUND=1e-3 ADACOMP_THRESHOLD_LOSSLESS=0 -- mixed 1e-3
check mixed_lossy '
assert "mixed: ok" in out, out
'

# Unwritable report paths stop the job at MPI_Init, with the reason.
touch "$dir/file"
for bad in "/nonexistent/dir/:cannot write into directory '/nonexistent/dir/': No such file or directory" \
           "$dir/file/r.json:cannot write '$dir/file/r.json': Not a directory"; do
  path=${bad%%:*} reason=${bad#*:}
  out=$(ADACOMP_REPORT=$path "${mpiexec[@]}" "$program" plain 2>&1) &&
    { echo "$out"; fail "unwritable report path '$path' accepted"; }
  grep -qF "adacomp: configuration error: ADACOMP_REPORT: $reason" <<<"$out" ||
    { echo "$out"; fail "no reason for '$path'"; }
done
echo "ok: report verdicts, sites, settings, regions, paths"
