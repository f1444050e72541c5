#!/usr/bin/env bash
# Where cold analysis spends its CPU, by stage (docs/analyzer.md#speed): perf records one whole
# `esp analyze FOLDER --no-cache` with the runtime's perf map (W^X off, else perf sees jitted code only as
# memfd:doublemapper), and each sample is given to the first stage method on its stack from the root. Precompiled
# (ReadyToRun) code is in no perf map: profile an IL build (-p:EspReadyToRun=false) to name every stage.
# Usage: scripts/measure/analyze-profile.sh TRACE_FOLDER [ESP_DLL]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
folder=${1:?usage: analyze-profile.sh TRACE_FOLDER [ESP_DLL]}
esp=${2:-$root/Cli/bin/Release/net10.0/esp.dll}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0 perf record -q -F 1999 -g -o "$work/perf.data" \
  dotnet "$esp" analyze "$folder" --no-cache --format text --out /dev/null 2>/dev/null
perf script -i "$work/perf.data" 2>/dev/null >"$work/perf.txt"
python3 - "$work/perf.txt" <<'PY'
import sys, re, collections
stages = [  # the first found from the root names the sample
 ("TraceLog's ETLX conversion", "CreateFromEventPipeDataFile"), ("reopening the ETLX", "TraceLog::.ctor"),
 ("ManagedCodeMap's pass", "ManagedCodeMap::FromNetTrace"), ("perf text", "PerfScriptReader::Read"),
 ("manifest.json", "KernelSessionAnalysis::PeriodFromManifest"), ("kernel session, other", "KernelSessionAnalysis::Load"),
 ("charging samples", "SampleCharger::"), ("PassState.Finish, other", "PassState::Finish"),
 ("the pass", "TraceLogEventSource::Process"), ("naming stacks after the raw pass", "PassState::CodeKnown"),
 ("the raw pass: reading events", "EventPipeEventSource::Process"), ("the raw pass, other", "TraceAnalyzer::RawPass"), ("KernelSessionAnalysis.Apply", "KernelSessionAnalysis::Apply"),
 ("findings", "FindingEngine::Detect"), ("results.json", "JoinInProcessResults"),
 ("analyze, other", "TraceAnalyzer::Analyze"), ("report and output", "AnalyzeVerb::Run"), ("command line", "EspCommandLine")]
total, jit = collections.Counter(), collections.Counter()
def flush(comm, frames):
    if not frames: return
    if comm.startswith(".NET Tiered"): key = "tier-1 recompiles (background thread)"
    elif comm.startswith(".NET BGC"): key = "background GC"
    else: key = next((n for n, p in stages if any(p in f for f in frames)), f"other ({comm})")
    total[key] += 1
    if any("libclrjit" in f for f in frames): jit[key] += 1
comm, frames = None, []
for line in open(sys.argv[1], errors="replace"):
    if not line.strip(): flush(comm, frames); comm, frames = None, []; continue
    if comm is None:
        m = re.match(r"^(.*?)\s+\d+\s+[\d.]+:", line); comm = m.group(1).strip() if m else "?"; continue
    frames.append(line.strip())
flush(comm, frames)
n = sum(total.values())
print(f"{n / 1999:.2f} s of samples; JIT (libclrjit on the stack) {sum(jit.values()) / 1999:.2f} s\n")
print("| stage | CPU | share | of which JIT |\n|---|---|---|---|")
for k, v in total.most_common(): print(f"| {k} | {v / 1999:.2f} s | {100 * v / n:.0f}% | {jit[k] / 1999:.2f} s |")
PY
