#!/usr/bin/env bash
# The steady-state trend on an idle machine (issue 13): every serializer deserializing N=10,000 with the automatic
# warm-up, LAUNCHES launches; per case the time per operation of the last third of the measured runs over the first
# third's (median of each third, and the lower quartile the test uses), and how many cases fall within 10%.
# The test (Tests/Benchmark/SteadyStateRunTests.cs) allows 4x, set from this shared VM's noise under load; this
# script is the idle-machine figure docs/benchmark.md quotes. Usage: scripts/measure/steady-trend.sh [LAUNCHES]
set -euo pipefail
cd "$(dirname "$0")/../.."
launches=${1:-3}
dotnet build Benchmark -c Release -v q -nologo >/dev/null
bin=Benchmark/bin/Release/net10.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for l in $(seq "$launches"); do
  dotnet $bin/SerializerBenchmark.dll --test deserialize --n 10000 --runs 24 --warmup-max-ms 4000 --quiet --json "$work/r$l.json" >/dev/null
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work"/r*.json <<'PY'
import json, sys, statistics as st
def q1(v):
    v = sorted(v); at = (len(v) - 1) * 0.25; b = int(at)
    return v[b] + (v[min(b + 1, len(v) - 1)] - v[b]) * (at - b)
rows = []
for i, path in enumerate(sys.argv[1:], 1):
    r = json.load(open(path))
    steady = {w['serializer']: w['steadyState'] for w in r['warmups']}
    for s in sorted(steady):
        m = [x['durationMs'] / x.get('operations', 1) for x in sorted(r['runs'], key=lambda x: x['run'])
             if x['serializer'] == s and not x['warmup']]
        t = len(m) // 3
        rows.append((i, s, steady[s], st.median(m[-t:]) / st.median(m[:t]), q1(m[-t:]) / q1(m[:t])))
print(f"{'launch':>6}  {'serializer':<22} {'steady':>6}  {'median':>7}  {'q1':>6}")
for i, s, ok, med, q in rows:
    print(f"{i:>6}  {s:<22} {str(ok):>6}  {med:7.3f}  {q:6.3f}")
steady = [r for r in rows if r[2]]
within = sum(1 for r in steady if abs(r[3] - 1) <= 0.10)
print(f"steady cases: {len(steady)} of {len(rows)}; last third within 10% of the first (medians): {within} of {len(steady)}")
PY
