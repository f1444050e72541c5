#!/usr/bin/env bash
# What each part of the default profile costs, per case, measured in the benchmark's own process: one
# `esp record --tracing-cost` per part, with the default profile minus that part (a scratch --profiles file), one
# recording at a time. Prints per case the tracing cost by the Stopwatch (with its 95% interval) and by the thread
# CPU clock, and the exceptions the trace counted. docs/recorder.md#what-tracing-costs shows the results.
# Usage: scripts/measure/tracing-cost-parts.sh [benchmark options...]
# Default options: the seeds' exception scenario.
set -euo pipefail
cd "$(dirname "$0")/../.."
bench_args=("$@")
[ ${#bench_args[@]} -eq 0 ] && bench_args=(--test deserialize --n 100 --payload-bytes 4096 --scenario base64-indented-linebreaks --serializers DataContract --warmup 1 --runs 2)

dotnet build Cli -c Release -v q -nologo >/dev/null
bin=Cli/bin/Release/net10.0
work=$(mktemp -d)
profiles="$work/profiles.json"

# The default profile, and the default minus one part each.
python3 - "$bin/Profiles/profiles.json" "$profiles" <<'EOF'
import copy, json, sys
src = json.load(open(sys.argv[1]))
default = next(p for p in src["profiles"] if p["name"] == "default")
out = [default]
def part(name, change):
    p = copy.deepcopy(default); p["name"] = name; change(p); out.append(p)
def without(*keywords):
    def change(p):
        for key in ("keywords", "stacklessKeywords", "stackKeywords"):
            if key in p["providers"][0]: p["providers"][0][key] = [k for k in p["providers"][0][key] if k not in keywords]
    return change
part("minus-exception", without("Exception"))
# The exceptions' events with stacks in the main session, as before the stackless sessions (docs/recorder.md#exceptions-without-stacks).
part("exceptions-with-stacks", lambda p: p["providers"][0].pop("stacklessKeywords", None))
# A stack on every event of the main session, as before stackKeywords (docs/recorder.md#stacks-only-where-read).
part("event-stacks", lambda p: [pr.pop("stackKeywords", None) for pr in p["providers"]])
part("minus-jit-loader", without("Jit", "Loader", "TypeDiagnostic"))
part("minus-gc", without("GC"))
part("minus-contention", without("Contention"))
part("minus-waithandle", without("WaitHandle"))
part("minus-verbose", lambda p: p["providers"][0].update(level="Informational"))  # allocation ticks, waits, verbose JIT events
part("minus-switch-stacks", lambda p: p["kernel"].update(perfStacks=["Profile"]))
part("minus-switches", lambda p: p["kernel"].update(keywords=["Process", "Thread", "ImageLoad", "Profile"], perfStacks=["Profile"]))
part("minus-cpu-samples", lambda p: p["kernel"].update(keywords=[k for k in p["kernel"]["keywords"] if k != "Profile"], perfStacks=[]))
# An interval set here holds on a virtual machine too (no virtualMachineCpuSamplingMs).
def every(ms):
    def change(p):
        p["cpuSamplingMs"] = ms
        p.pop("virtualMachineCpuSamplingMs", None)
    return change
part("samples-every-10ms", every(10))
# The sampler alone (perf's CPU samples and the run events), at 1 ms and at ten times the rate, with and without stacks
# (docs/recorder.md#the-sampler-alone).
def sampler(ms, stacks=True):
    def change(p):
        p["providers"] = [pr for pr in p["providers"] if pr["name"] == "EtwSerializerProfiler-Runs"]
        p["kernel"].update(keywords=["Process", "Thread", "ImageLoad", "Profile"], stacks=["Profile"] if stacks else [], perfStacks=["Profile"] if stacks else [])
        every(ms)(p)
    return change
part("sampler-only", sampler(1))
part("sampler-every-2ms", sampler(2))
part("sampler-every-0.1ms", sampler(0.1))
part("sampler-every-0.1ms-no-stacks", sampler(0.1, stacks=False))
json.dump({"profiles": out}, open(sys.argv[2], "w"), indent=1)
EOF

run() {
  local label=$1; shift
  rm -rf "$work/t"
  dotnet $bin/esp.dll record --out "$work/t" --tracing-cost --quiet "$@" "${bench_args[@]}" >"$work/record.log" 2>&1 || { echo "$label: recording failed: $(tail -1 "$work/record.log")"; return; }
  dotnet $bin/esp.dll analyze "$work/t" --format json > "$work/a.json" 2>/dev/null
  python3 - "$label" "$work/a.json" <<'EOF'
import json, sys
label, path = sys.argv[1:]
load = open("/proc/loadavg").read().split()[0]
for s in json.load(open(path))["serializers"]:
    ci = s.get("tracingCostCi") or [float("nan")] * 2
    print(f"{label:29} {s['serializer']:18} {s['operation']:11} {s['objects']:>6}  {s['tracingCostPercent']:+7.1f}% ({ci[0]:+.1f} to {ci[1]:+.1f})"
          f"  cpu {s.get('tracingCostCpuPercent') or 0:+7.1f}%  exceptions {s['exceptions']}  load {load}")
EOF
}

printf '%-29s %-18s %-11s %6s  %s\n' part serializer operation N "cost (Stopwatch, 95% interval), thread CPU, exceptions counted"
# PARTS="default event-stacks" picks rows; REPEAT=3 runs each pick that many times, alternating.
parts=${PARTS:-default exceptions-with-stacks event-stacks minus-exception minus-jit-loader minus-gc minus-contention minus-waithandle minus-verbose minus-switch-stacks minus-switches minus-cpu-samples samples-every-10ms no-perf sampler-not-perf no-eventpipe-stacks}
for _ in $(seq "${REPEAT:-1}"); do
  for p in $parts; do
    case $p in
      no-perf) run "$p" --kernel off --eventpipe-samples off ;;
      sampler-not-perf) run "$p" --kernel off ;;
      no-eventpipe-stacks) run "$p" --env DOTNET_EventPipeEnableStackwalk=0 ;;
      *) run "$p" --profiles "$profiles" --profile "$p" ;;
    esac
  done
done
rm -rf "$work"
