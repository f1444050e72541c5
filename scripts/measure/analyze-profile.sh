#!/usr/bin/env bash
# Where one cold `esp analyze FOLDER --no-cache` spends its CPU, by part (docs/speed.md#where-the-cpu-goes): perf
# records it, and each sample goes to the first part found on its stack from the root. ESP is esp.dll (run with the
# runtime's perf map, W^X off) or the native esp (scripts/publish-native.sh), whose symbols name every method.
# Precompiled (ReadyToRun) code is in no perf map: for the managed build's parts, profile an IL build
# (-p:EspReadyToRun=false).
# Usage: scripts/measure/analyze-profile.sh TRACE_FOLDER [ESP]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
folder=${1:?usage: analyze-profile.sh TRACE_FOLDER [ESP]}
esp=${2:-$root/Cli/bin/Release/net10.0/esp.dll}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
run=("$esp"); [[ "$esp" == *.dll ]] && run=(dotnet "$esp")
# 3: the perf map alone (1 adds a /tmp/jit-PID.dump nothing here reads).
DOTNET_PerfMapEnabled=3 DOTNET_EnableWriteXorExecute=0 perf record -q -F 1999 -g -o "$work/perf.data" \
  "${run[@]}" analyze "$folder" --no-cache --format text --out /dev/null 2>/dev/null
perf script -i "$work/perf.data" 2>/dev/null >"$work/perf.txt"
# The profiled process's map goes with the profile (named by its pid, which is its main thread's id).
for tid in $(grep -oE '^\S.*\s([0-9]+)\s+[0-9]+\.[0-9]+:' "$work/perf.txt" | grep -oE '[0-9]+\s+[0-9]+\.[0-9]+:$' | cut -d' ' -f1 | sort -u); do
  rm -f "/tmp/perf-$tid.map" "/tmp/perfinfo-$tid.map"
done
python3 - "$work/perf.txt" <<'PY'
import sys, re, collections
# The first part found from the root names the sample. Names match both builds: "PerfScriptReader::Read" (perf map)
# and "..._PerfScriptReader__Read" (native symbols).
parts = [
    ("ETLX conversion (a damaged trace, or --etlx)", ["CreateFromEventPipeDataFile", "TraceLog::.ctor", "TraceLog__.ctor"]),
    ("reading the perf text (its own thread)", ["PerfScriptReader"]),
    ("exception and lock-wait side files", ["ExceptionFiles", "StackFile"]),
    ("charging samples to runs and tags", ["SampleCharger", "KernelChunkPass", "CpuStage"]),
    ("tracing-cost estimates", ["TracingCostEstimate"]),
    ("findings", ["FindingEngine"]),
    ("verdicts and reports", ["Verdicts", "AnalysisReport", "ReportDocument", "Exporter"]),
    ("results.json", ["BenchmarkResults", "JoinInProcessResults"]),
]
passes = ["EventPipeEventSource::Process", "EventPipeEventSource__Process", "TraceLogEventSource::Process", "TraceLogEventSource__Process"]
total, jit = collections.Counter(), collections.Counter()
def method(f):
    # The frame's method alone: a perf-map frame also names its parameters' types, and RawPass(..., ExceptionFiles, ...)
    # read as the side files (the whole EventPipe pass, 31% of an IL build's CPU).
    head = f.split("(")[0].split()
    return head[-1] if head else f
def part(frames):  # root first
    frames = [method(f) for f in frames]
    # The GC first: a collection runs on the thread whose allocation triggered it, so by the parts it would count
    # as whatever allocated last (a fifth of the native esp's CPU read as 4%).
    if any("gc_heap" in f or "GCHeap" in f for f in frames): return "GC"
    for i, f in enumerate(frames):
        for name, pats in parts:
            if any(p in f for p in pats): return name
        if any(p in f for p in passes):
            own = any("EtwSerializerProfiler" in g for g in frames[i + 1:])
            return "the EventPipe pass: esp's stages" if own else "the EventPipe pass: TraceEvent's parsing"
    return "other: start-up, naming, the rest"
comm, frames = None, []
def flush():
    if not frames: return
    key = "tier-1 recompiles (background thread)" if comm.startswith(".NET Tiered") else part(frames[::-1])
    total[key] += 1
    if any("libclrjit" in f for f in frames): jit[key] += 1
for line in open(sys.argv[1], errors="replace"):
    if not line.strip(): flush(); comm, frames = None, []; continue
    if comm is None:
        m = re.match(r"^(.*?)\s+\d+\s+[\d.]+:", line); comm = m.group(1).strip() if m else "?"; continue
    frames.append(line.strip())
flush()
n = sum(total.values())
print(f"{n / 1999:.2f} s of samples; JIT (libclrjit on the stack) {sum(jit.values()) / 1999:.2f} s\n")
print("| part | CPU | share | of which JIT |\n|---|---|---|---|")
for k, v in total.most_common(): print(f"| {k} | {v / 1999:.2f} s | {100 * v / n:.0f}% | {jit[k] / 1999:.2f} s |")
PY
