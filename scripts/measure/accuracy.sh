#!/usr/bin/env bash
# How right the CPU figures are, against truths the analyzer does not compute (docs/analyzer.md#accuracy):
#  1. the benchmark recorded with the kernel session AND EventPipe's sampler (--eventpipe-samples on), so both
#     sources see the same runs: per serializer, the kernel's CPU, EventPipe's, and the benchmark's own thread CPU
#     clock; the Reflection tag share by each source; the share of EventPipe samples stopped at a GC poll;
#  2. the known-answer workload (Tests/Workloads/KnownAnswer) recorded the same way: each part's share of CPU by
#     stack tags, kernel and EventPipe, against the share the workload measured with its thread CPU clock.
# Usage: scripts/measure/accuracy.sh [benchmark options...]
set -euo pipefail
cd "$(dirname "$0")/../.."
bench_args=("$@")
[ ${#bench_args[@]} -eq 0 ] && bench_args=(--test deserialize --n 20000 --runs 8 --serializers Google.Protobuf,System.Text.Json,Newtonsoft.Json,Reflection --quiet)

dotnet build EtwSerializerProfiler.sln -c Release -v q -nologo >/dev/null
esp="dotnet Cli/bin/Release/net10.0/esp.dll"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; $(perf --version)"

echo; echo "## 1. Benchmark: kernel vs EventPipe vs thread CPU clock"
$esp record --out "$work/bench" --eventpipe-samples on "${bench_args[@]}" >/dev/null 2>&1
$esp analyze "$work/bench" 2>/dev/null | sed -n '/CPU sources compared/,/^$/p'

echo "## 2. Known-answer workload: each part's share of the parts' CPU"
ka=Tests/Workloads/KnownAnswer/bin/Release/net10.0/KnownAnswer.dll
$esp record --out "$work/ka" --eventpipe-samples on -- dotnet "$ka" --runs 7 --run-ms 250 --truth "$work/truth.json" >/dev/null 2>&1
python3 - "$work" <<'PY'
import json, subprocess, sys
work = sys.argv[1]
parts = ["Reflection", "Arithmetic", "Allocation"]
tags = f"{work}/parts.stacktags"
open(tags, "w").write('<?xml version="1.0" encoding="utf-8"?>\n<Tag Name="">\n  <Tag Name="Known answer">\n' + "".join(
    f'    <Tag Name="{p} part" Priority="30"><Entrypoint Module="KnownAnswer.*" Method="EtwSerializerProfiler.Workloads.PartsWorkload::{p}Part*"/></Tag>\n' for p in parts)
    + "  </Tag>\n</Tag>\n")
truth = [t for t in json.load(open(f"{work}/truth.json")) if t["Run"] > 0]
tms = [sum(t[p + "Ms"] for t in truth) for p in parts]
rows = {"thread CPU clock (truth)": [x / sum(tms) for x in tms]}
for name, extra in (("kernel session", []), ("EventPipe sampler", ["--no-kernel"])):
    out = subprocess.run(["dotnet", "Cli/bin/Release/net10.0/esp.dll", "analyze", f"{work}/ka", "--stacktags", tags, "--format", "json", *extra],
                         capture_output=True, text=True, check=True).stdout
    runs = [r for r in json.loads(out)["runs"] if not r["warmup"]]
    ms = [sum(r["tags"].get(f"Known answer\\{p} part", 0) for r in runs) for p in parts]
    rows[name] = [x / sum(ms) for x in ms]
print("| source | " + " | ".join(parts) + " |")
print("|---|" + "---|" * len(parts))
for name, shares in rows.items():
    cells = [f"{s:.1%}" + ("" if name.startswith("thread") else f" ({(s - rows['thread CPU clock (truth)'][i]) * 100:+.1f} pt)") for i, s in enumerate(shares)]
    print(f"| {name} | " + " | ".join(cells) + " |")
PY
