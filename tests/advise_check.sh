#!/bin/bash
# The advisor and the capture on the solver of docs/lossy-scopes.md
# (bench/cg.c), 2 ranks as 2 nodes, every call coded (the model off,
# point-to-point framed, T2 at 64K as tests/cg_check.sh has it):
#   plain     no advice: the reference iterations;
#   advised   ADACOMP_ADVISE=on: every sampled site's row has the advice,
#             within the sampling bounds; `adacomp-report advise` writes
#             rules whose lossy ones select the exchange alone, the dot
#             products' Allreduces left as comments;
#   ruled     the rules pasted back (ADACOMP_LOSSY_RULES=@FILE): the same
#             iterations as plain, converged, every coded exchange lossy,
#             the dot products exact;
#   captured  ADACOMP_CAPTURE=DIR: at most ADACOMP_SAMPLE_COUNT files per
#             site and rank, each read by adacomp-codecs; malformed capture
#             files get a clear error.
# usage: advise_check.sh MPIEXEC... -- ADACOMP_LAUNCHER ADACOMP_CG ADACOMP_CODECS ADACOMP_REPORT
set -u
mpiexec=()
while [ "$1" != "--" ]; do mpiexec+=("$1"); shift; done
shift
launch=("$1" "$2") codecs=$3 report=$4
dir=$(mktemp -d /tmp/adacomp-advise.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export ADACOMP_NODE_MAP=1,1 ADACOMP_MODEL=off ADACOMP_P2P_ROUTE=framed ADACOMP_THRESHOLD_LOSSY=64K
fail() { echo "FAIL: $*"; exit 1; }
run() {  # NAME ENV...: the solver's output in $dir/NAME.out, its report in $dir/NAME.json
  local name=$1
  shift
  env ADACOMP_REPORT="$dir/$name.json" "$@" "${mpiexec[@]}" "${launch[@]}" 64 8192 300 1e-8 \
    >"$dir/$name.out" 2>&1 || { cat "$dir/$name.out"; fail "$name run failed"; }
}
run plain
run advised ADACOMP_ADVISE=on ADACOMP_SAMPLE_COUNT=3 ADACOMP_SAMPLE_BYTES=32K
"$report" advise "$dir/advised.json" >"$dir/rules" || fail "adacomp-report advise failed"
cat "$dir/rules"
run ruled "ADACOMP_LOSSY_RULES=@$dir/rules"
run captured "ADACOMP_CAPTURE=$dir/capture" ADACOMP_SAMPLE_COUNT=2 ADACOMP_SAMPLE_BYTES=16K
python3 - "$dir" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
def result(name):
    out = dict(l.split(None, 1) for l in open(f"{d}/{name}.out") if l[:1].isalpha() and " " in l)
    return int(out["iterations"]), float(out["residual"]), json.load(open(f"{d}/{name}.json"))
plain, advised, ruled = result("plain"), result("advised"), result("ruled")
assert all("advice" not in s for s in plain[2]["sites"]), "advice without ADACOMP_ADVISE"
# Advice on every site with a payload, within the bounds: 3 samples of at
# most 32 KB per site and rank.
sites = {s["call"]: s for s in advised[2]["sites"] if "advice" in s}
assert {"Sendrecv", "Allreduce"} <= set(sites), sites.keys()
for s in advised[2]["sites"]:
    a = s.get("advice")
    if not a:
        continue
    assert 0 < a["samples"] <= 3 * 2 and a["sample_bytes"] <= a["samples"] * 32768, s
    assert a["type"] == "double" and a["lossy_possible"] and a["lossless"], s
    assert a["codecs"] and all(c["ratio"] > 0 and c["MBps"] > 0 for c in a["codecs"]), s
print("advised: %d sites with advice" % len([s for s in advised[2]["sites"] if "advice" in s]))
rules = open(f"{d}/rules").read().splitlines()
active = [r for r in rules if r and not r.startswith("#")]
assert active and all("op=send" in r for r in active), active
assert any(r.startswith("# lossy") and "op=allreduce" in r for r in rules), rules
# The rules pasted back: the exchange lossy, the dot products exact, the
# iterations unchanged.
ops = ruled[2]["operations"]
print("plain", plain[:2], "ruled", ruled[:2], "send lossy", ops["send"]["lossy_calls"],
      "of", ops["send"]["compressed_calls"])
assert ruled[0] == plain[0] and ruled[1] <= 1e-8, (ruled[:2], plain[:2])
assert ops["send"]["lossy_calls"] > 0 and ops["send"]["lossy_calls"] == ops["send"]["compressed_calls"]
assert ops["allreduce"]["lossy_calls"] == 0, ops["allreduce"]
PY
# The capture: at most 2 files per site and rank, 16 KB each.
files=("$dir"/capture/*.acap)
[ -e "${files[0]}" ] || fail "no capture file"
sites=$(grep -c . <<<"$(python3 -c "import json,sys; [print(s['site'], s['call']) for s in json.load(open(sys.argv[1]))['sites'] if 'advice' in s]" "$dir/advised.json")")
[ "${#files[@]}" -le $((2 * 2 * sites)) ] || fail "${#files[@]} capture files for $sites sites"
for f in "${files[@]}"; do
  [ "$(wc -c <"$f")" -le $((16384 + 512)) ] || fail "$f is over the 16 KB sample"
done
send=$(ls "$dir"/capture/*Sendrecv*.acap | head -1)
"$codecs" "$send" --min-time 0.01 >"$dir/codecs.out" || { cat "$dir/codecs.out"; fail "adacomp-codecs on $send"; }
grep -q "capture: Sendrecv" "$dir/codecs.out" && grep -q "quant_zstd .*within bound" "$dir/codecs.out" ||
  { cat "$dir/codecs.out"; fail "adacomp-codecs did not read the capture"; }
# Malformed captures: each a clear error naming the fault, exit status 2.
malformed() {  # NAME EXPECTED: $dir/NAME holds the file
  local out
  out=$("$codecs" "$dir/$1" 2>&1)
  [ $? = 2 ] && grep -q "malformed capture file: .*$2" <<<"$out" || fail "$1: '$out'"
}
head -c 300 "$send" >"$dir/truncated"
malformed truncated "bytes '16384' but"
sed '0,/^type f64$/s//type f16/' "$send" >"$dir/badtype"
malformed badtype "type 'f16'"
sed '0,/^count /s/^count .*/count 7/' "$send" >"$dir/badcount"
malformed badcount "count '7'"
printf 'adacomp-capture 1\ncall Send\n' >"$dir/noend"
malformed noend "not ended by an empty line"
printf 'adacomp-capture 1\ncall Send\n\n' >"$dir/nokeys"
malformed nokeys "no 'site' line"
{ printf 'adacomp-capture 1\n'; head -c 9000 /dev/zero | tr '\0' 'x'; } >"$dir/long"
malformed long "not ended"
echo "advise and capture: pass"
