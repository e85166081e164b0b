#!/bin/bash
# usage: lossy_certificate_check.sh LAUNCH... -- TEST_LOSSY_RULES
# Runs `test_lossy_rules certificate` (halo_update's Allreduces, and
# halo_reduce's Reduce and halo_scatter's Reduce_scatter_block, lossy by a
# site rule, site=halo_*; dot_products' exact; it checks adacomp_last_bound
# itself) with a report and ADACOMP_LOSSY_CHECK=on, and checks the report's
# certificates: each lossy site has one whose measured error is within its
# proven bound, and that within the bound in force; the exact site has
# none; the table and tools/adacomp-report print the lossy site's line.
set -euo pipefail
launch=()
while [ "$1" != -- ]; do launch+=("$1"); shift; done
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ADACOMP_REPORT=$dir/report.json ADACOMP_VERBOSE=1 ADACOMP_LOSSY_CHECK=on "${launch[@]}" "$1" certificate 2>"$dir/err" ||
  { cat "$dir/err"; exit 1; }
grep -E "^  Allreduce +[0-9]+ lossy  bound .* \(rel 0.0001 of .*\)  proven .*  measured .*halo_update" "$dir/err" ||
  { echo "FAIL: no lossy site line"; cat "$dir/err"; exit 1; }
python3 - "$dir/report.json" <<'PY'
import json, sys
sites = json.load(open(sys.argv[1]))["sites"]
def of(name):
    return [s for s in sites if s["call"] == "Allreduce" and name in s["site"]]
halo, dots = of("halo_update"), of("dot_products")
assert halo and dots, f"sites missing: {[s['site'] for s in sites]}"
for s in halo:
    c = s["certificate"]
    assert s["lossy_calls"] == s["calls"] // 2, s  # each rank counts its calls; lossy: per call
    assert c["bound_rel"] == 1e-4 and c["range"][1] > c["range"][0], c
    assert 0 < c["proven_abs"] <= c["bound_abs"] and c["holds"], c
    assert c["measured_abs"] is not None and 0 < c["measured_abs"] <= c["proven_abs"], c
    assert abs(c["bound_abs"] - 1e-4 * (c["range"][1] - c["range"][0])) <= 1e-12 * c["bound_abs"], c
for s in dots:
    assert "certificate" not in s and "lossy_calls" not in s, s
# The Reduce (measured at its root) and the Reduce_scatter_block.
for call, name in (("Reduce", "halo_reduce"), ("Reduce_scatter_block", "halo_scatter")):
    rows = [s for s in sites if s["call"] == call and name in s["site"]]
    assert rows, f"{call} site missing: {[s['site'] for s in sites]}"
    for s in rows:
        c = s["certificate"]
        assert 0 < c["proven_abs"] <= c["bound_abs"] and c["holds"], (call, c)
        assert c["measured_abs"] is not None and c["measured_abs"] <= c["proven_abs"], (call, c)
        print(f"ok: {call}: measured {c['measured_abs']:.4g} <= proven {c['proven_abs']:.4g}")
for s in halo:
    c = s["certificate"]
    print(f"ok: measured {c['measured_abs']:.4g} <= proven {c['proven_abs']:.4g} <= in force {c['bound_abs']:.4g}")
PY
"$(dirname "$0")/../tools/adacomp-report" "$dir/report.json" >"$dir/text"
# The section's rows are ordered by time, so the Allreduce's row is looked
# for among all of them (up to the blank line that ends the section).
sed -n '/^Lossy call sites/,/^$/p' "$dir/text" | grep -E "^Allreduce .*halo_update" ||
  { echo "FAIL: adacomp-report shows no certificate"; cat "$dir/text"; exit 1; }
