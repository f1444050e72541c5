#!/usr/bin/env bash
# A/A diffs (issue 42): how often `esp diff` calls a difference significant when nothing changed. Records LAUNCHES
# launches of one configuration, one after another (never two at once), then diffs disjoint sets of them against
# each other: pairs for one launch per side, and SPLITS random draws of 6 launches (3 vs 3) for three per side.
# Every row (serializer, operation, N) and every metric of duration, CPU and thread CPU is one test at alpha 0.05.
# "launch test" is what esp diff judges (Welch on launch means; never with one launch); "runs test" is Welch on the
# pooled runs, the verdict esp diff printed before the launch became the unit.
# docs/analyzer.md ("What a diff can and cannot claim") quotes its output.
# Usage: scripts/measure/aa-diff.sh [LAUNCHES] [SPLITS] [N] [SERIALIZERS]
set -euo pipefail
cd "$(dirname "$0")/../.."
launches=${1:-12}
splits=${2:-8}
n=${3:-1000}
serializers=${4:-Newtonsoft.Json,System.Text.Json,Google.Protobuf,DataContract}
dotnet build Cli -c Release -v q -nologo >/dev/null
esp="dotnet Cli/bin/Release/net10.0/esp.dll"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for l in $(seq "$launches"); do
  $esp record --out "$work/a$l" --n "$n" --runs 5 --serializers "$serializers" --quiet >/dev/null 2>&1
done
echo "load average after recording: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work" "$launches" "$splits" <<'PY'
import json, subprocess, sys, random
work, launches, splits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
metrics = ["durationMs", "cpuMs", "threadCpuMs"]
def diff(a, b):
    args = [f"{work}/a{i}" for i in a] + ["vs"] + [f"{work}/a{i}" for i in b]
    out = subprocess.run(["dotnet", "Cli/bin/Release/net10.0/esp.dll", "diff", *args, "--format", "json"], capture_output=True, text=True, check=True).stdout
    rows = [r for r in json.loads(out)["rows"] if r["presence"] == "both"]
    tests = [(r["metrics"][m]["noise"]["significant"], r["metrics"][m]["runNoise"]["significant"]) for r in rows for m in metrics if m in r["metrics"]]
    tags = [(t["noise"]["significant"], t["runNoise"]["significant"]) for r in rows for t in r["tags"]]
    return tests, tags
random.seed(42)
plans = {"1 vs 1": [([i], [i + 1]) for i in range(1, launches, 2)]}
plans["3 vs 3"] = [(s[:3], s[3:]) for s in (random.sample(range(1, launches + 1), 6) for _ in range(splits))]
print(f"{'launches per side':<18} {'diffs':>5} {'tests':>6} {'launch test sig':>16} {'runs test sig':>14} {'tags':>6} {'tags launch sig':>16} {'tags runs sig':>14}")
for name, plan in plans.items():
    tests, tags = [], []
    for a, b in plan:
        t, g = diff(a, b)
        tests += t; tags += g
    rate = lambda xs, i: f"{sum(1 for x in xs if x[i] is True)} ({sum(1 for x in xs if x[i] is True) / max(1, len(xs)):.1%})"
    print(f"{name:<18} {len(plan):>5} {len(tests):>6} {rate(tests, 0):>16} {rate(tests, 1):>14} {len(tags):>6} {rate(tags, 0):>16} {rate(tags, 1):>14}")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
