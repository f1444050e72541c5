#!/usr/bin/env bash
# Launch-to-launch noise (issue 42): the same benchmark case run untraced LAUNCHES times, one launch after another,
# never two at once. Per case: the mean time per operation of each launch's measured runs, the largest launch mean
# over the smallest (what a one-launch-per-side diff of identical configurations can show), and the median
# coefficient of variation of the runs inside one launch (the only noise a one-launch diff can see).
# docs/analyzer.md ("What a diff can and cannot claim") quotes its output; `esp diff` with one launch per side quotes
# the largest figure. Usage: scripts/measure/launch-noise.sh [LAUNCHES] [N] [SERIALIZERS] [TEST]
set -euo pipefail
cd "$(dirname "$0")/../.."
launches=${1:-5}
n=${2:-10000}
serializers=${3:-Newtonsoft.Json,System.Text.Json,DataContract,Google.Protobuf}
test=${4:-deserialize}
dotnet build Benchmark -c Release -v q -nologo >/dev/null
bin=Benchmark/bin/Release/net10.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for l in $(seq "$launches"); do
  dotnet $bin/SerializerBenchmark.dll --test "$test" --n "$n" --runs 5 --serializers "$serializers" --quiet --json "$work/r$l.json" >/dev/null
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work"/r*.json <<'PY'
import json, sys, statistics as st, itertools
# per metric: duration (Stopwatch) and the worker thread's CPU clock, each per operation
metrics = {"duration": "durationMs", "thread CPU": "cpuMs"}
for label, field in metrics.items():
    cases = {}
    for path in sys.argv[1:]:
        r = json.load(open(path))
        per = {}
        for x in r['runs']:
            if x['warmup'] or x.get(field) is None: continue
            per.setdefault((x['serializer'], x['operation'], x['objects']), []).append(x[field] / x.get('operations', 1))
        for k, v in per.items():
            cases.setdefault(k, []).append((st.mean(v), st.stdev(v) / st.mean(v) if len(v) > 1 else 0))
    print(f"{label}, ms per operation")
    print(f"{'case':<40} {'launch means':<56} {'max/min':>8} {'runs CV':>8}")
    pairs = []
    for k in sorted(cases):
        means = [m for m, _ in cases[k]]
        # every pair of launches of one case: the larger mean over the smaller, minus 1 (what a one-launch A/A diff shows)
        pairs += [max(a, b) / min(a, b) - 1 for a, b in itertools.combinations(means, 2)]
        cv = st.median(c for _, c in cases[k])
        print(f"{k[0] + ' ' + k[1] + ' N=' + str(k[2]):<40} {' '.join(f'{m:.3f}' for m in means):<56} {max(means) / min(means) - 1:+8.0%} {cv:8.1%}")
    pairs.sort()
    q = lambda p: pairs[min(len(pairs) - 1, int(p * len(pairs)))]
    print(f"{label}: pairs of launches of one case: {len(pairs)}; difference median {q(0.5):+.0%}, 90th percentile {q(0.9):+.0%}, 95th {q(0.95):+.0%}, largest {pairs[-1]:+.0%}")
    print()
PY
