#!/usr/bin/env bash
# What the Linux kernel session (perf) costs and what EventPipe's own sampler costs beside it, measured on the same
# benchmark, interleaved ROUNDS times: untraced; EventPipe only (--kernel off, its sampler on); EventPipe + kernel
# session with EventPipe's sampler on; EventPipe + kernel session with it off (the default). Per mode: the measured
# runs' summed Stopwatch time and summed thread CPU time (the benchmark's own, in-process), the trace folder's size,
# and the time `esp analyze` takes on it (with the kernel data, and with --no-kernel on the same folder).
# Usage: scripts/measure/kernel-session.sh [ROUNDS] [benchmark options...]   (docs/recorder.md shows the results)
# The default options pin one warm-up run and one call per run (--warmup 1 --ops 1, as the documented figures were
# measured), so every mode measures the same calls.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}; shift || true
bench_args=("$@")
[ ${#bench_args[@]} -eq 0 ] && bench_args=(--test deserialize --n 20000 --warmup 1 --runs 11 --ops 1 --serializers Google.Protobuf,System.Text.Json,Newtonsoft.Json,Reflection --quiet)

dotnet build Cli -c Release -v q -nologo >/dev/null
bin=Cli/bin/Release/net10.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sums() { python3 -c "
import json,sys
r=[x for x in json.load(open(sys.argv[1]))['runs'] if not x['warmup']]
print(round(sum(x['durationMs'] for x in r),1), round(sum(x['cpuMs'] for x in r),1))" "$1"; }
seconds() { local s; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; echo "$(date +%s.%N) $s" | awk '{printf "%.2f", $1 - $2}'; }

printf '%-22s %5s %12s %12s %9s %10s %12s\n' mode round measured_ms thread_cpu_ms folder_MB analyze_s analyze_ep_s
for round in $(seq "$rounds"); do
  dotnet $bin/SerializerBenchmark.dll "${bench_args[@]}" --json "$work/none.json" >/dev/null
  read -r ms cpu < <(sums "$work/none.json")
  printf '%-22s %5s %12s %12s %9s %10s %12s\n' untraced "$round" "$ms" "$cpu" - - -
  for mode in "eventpipe-only:--kernel off" "kernel+eventpipe-sampler:--eventpipe-samples on" "kernel (default):"; do
    name=${mode%%:*}; opts=${mode#*:}
    rm -rf "$work/t"
    # shellcheck disable=SC2086
    dotnet $bin/esp.dll record --out "$work/t" $opts "${bench_args[@]}" >/dev/null 2>&1
    read -r ms cpu < <(sums "$work/t/results.json")
    mb=$(du -sm --apparent-size "$work/t" | cut -f1)
    rm -f "$work"/t/*.etlx
    full=$(seconds dotnet $bin/esp.dll analyze "$work/t" --no-cache)
    ep=$(seconds dotnet $bin/esp.dll analyze "$work/t" --no-cache --no-kernel)
    printf '%-22s %5s %12s %12s %9s %10s %12s\n' "$name" "$round" "$ms" "$cpu" "$mb" "$full" "$ep"
  done
done
