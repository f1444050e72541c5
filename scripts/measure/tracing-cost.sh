#!/usr/bin/env bash
# What the default profile costs every case of the default benchmark, measured in the benchmark's own process
# (esp record --tracing-cost): one recording, then a summary (median, range, cases at most +3%) by the thread CPU
# clock and by the Stopwatch, every case's figures, and the cases whose thread CPU interval lies above +3%. docs/recorder.md#what-tracing-costs
# shows the results. Usage: scripts/measure/tracing-cost.sh [runs per block (6)] [more esp record options...]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-6}; shift || true
dotnet build Cli -c Release -v q -nologo >/dev/null
bin=Cli/bin/Release/net10.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
load_before=$(cut -d' ' -f1 /proc/loadavg)
start=$(date +%s)
dotnet $bin/esp.dll record --out "$work/t" --tracing-cost --tracing-cost-runs "$runs" --quiet "$@" >"$work/record.log" 2>&1 \
  || { echo "recording failed: $(tail -1 "$work/record.log")"; exit 1; }
seconds=$(( $(date +%s) - start ))
dotnet $bin/esp.dll analyze "$work/t" --format json > "$work/a.json"
python3 - "$work/a.json" "$load_before" "$(cut -d' ' -f1 /proc/loadavg)" "$seconds" <<'PY'
import json, statistics, sys
path, before, after, seconds = sys.argv[1:]
cases = [s for s in json.load(open(path))["serializers"] if s.get("tracingCostCpuPercent") is not None]
print(f"{len(cases)} cases, {seconds} s in all, load average {before} before, {after} after")
print("| figure | median | range | cases at most +3% |")
print("|---|---|---|---|")
for name, point, ci in (("thread CPU", "tracingCostCpuPercent", "tracingCostCpuCi"), ("Stopwatch", "tracingCostPercent", "tracingCostCi")):
    v = [c[point] for c in cases]
    print(f"| {name} | {statistics.median(v):+.1f}% | {min(v):+.1f}% to {max(v):+.1f}% | {sum(x <= 3 for x in v)}; "
          f"{sum(c[ci][0] <= 3 for c in cases)} with the interval's low end at most +3% |")
print("\n| case | thread CPU (95% interval) | Stopwatch (95% interval) |")
print("|---|---|---|")
for c in cases:
    cl, ch = c["tracingCostCpuCi"]; sl, sh = c["tracingCostCi"]
    print(f"| {c['serializer']} {c['operation']} N={c['objects']:,} | {c['tracingCostCpuPercent']:+.1f}% ({cl:+.1f} to {ch:+.1f}) "
          f"| {c['tracingCostPercent']:+.1f}% ({sl:+.1f} to {sh:+.1f}) |")
above = [c for c in cases if c["tracingCostCpuCi"][0] > 3]
if above:
    print("\nThread CPU interval above +3%:")
    for c in above:
        lo, hi = c["tracingCostCpuCi"]
        print(f"- {c['serializer']} {c['operation']} N={c['objects']}: {c['tracingCostCpuPercent']:+.1f}% ({lo:+.1f} to {hi:+.1f})")
PY
