#!/usr/bin/env bash
# Tracing overhead, measured: the same benchmark run untraced, under `esp record` (default profile) and under
# dotnet-trace with the comparable providers, interleaved ROUNDS times. Reports the benchmark's own measured time
# (sum of in-process Stopwatch durations, warm-up runs excluded) and trace bytes per second of benchmark.
# Usage: scripts/measure/overhead.sh [ROUNDS] [benchmark options...]   (docs/recorder.md shows the results)
# The default options pin one warm-up run and one call per run (--warmup 1 --ops 1: the structure the documented
# figures were measured with), so every mode measures the same calls; with --ops auto each mode's pilot could differ.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}; shift || true
bench_args=("$@")
[ ${#bench_args[@]} -eq 0 ] && bench_args=(--n 10000 --warmup 1 --runs 4 --ops 1 --serializers Google.Protobuf,System.Text.Json,DataContract,Newtonsoft.Json,Reflection --quiet)

dotnet build Cli -c Release -v q -nologo >/dev/null
bin=Cli/bin/Release/net10.0
dt=${DOTNET_TRACE:-$(command -v dotnet-trace || echo /tmp/dt/dotnet-trace)}
work=$(mktemp -d)

measured_ms() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; print(round(sum(x['durationMs'] for x in r if not x['warmup']),2))" "$1"; }

printf '%-12s %5s %12s %10s %10s %12s\n' mode round measured_ms wall_s trace_MB MB_per_s
for round in $(seq "$rounds"); do
  start=$(date +%s.%N)
  dotnet $bin/SerializerBenchmark.dll "${bench_args[@]}" --json "$work/none.json" >/dev/null
  wall=$(echo "$(date +%s.%N) - $start" | awk '{print $1 - $3}')
  printf '%-12s %5s %12s %10.2f %10s %12s\n' untraced "$round" "$(measured_ms "$work/none.json")" "$wall" - -

  rm -rf "$work/esp"
  start=$(date +%s.%N)
  dotnet $bin/esp.dll record --out "$work/esp" "${bench_args[@]}" >/dev/null 2>&1
  wall=$(echo "$(date +%s.%N) - $start" | awk '{print $1 - $3}')
  size=$(stat -c %s "$work/esp/trace.nettrace")
  printf '%-12s %5s %12s %10.2f %10.2f %12.2f\n' esp-default "$round" "$(measured_ms "$work/esp/results.json")" "$wall" "$(awk "BEGIN{print $size/1048576}")" "$(awk "BEGIN{print $size/1048576/$wall}")"

  if [ -x "$dt" ]; then
    start=$(date +%s.%N)
    # Comparable to the default profile: CPU samples, CLR GC/Loader/Jit/Contention/Exception/WaitHandle at Verbose, the run events.
    "$dt" collect -o "$work/dt.nettrace" --providers "Microsoft-DotNETCore-SampleProfiler,Microsoft-Windows-DotNETRuntime:0x4000000C019:5,EtwSerializerProfiler-Runs:0xFFFFFFFFFFFFFFFF:4" \
      -- dotnet $bin/SerializerBenchmark.dll "${bench_args[@]}" --json "$work/dt.json" >/dev/null 2>&1
    wall=$(echo "$(date +%s.%N) - $start" | awk '{print $1 - $3}')
    size=$(stat -c %s "$work/dt.nettrace")
    printf '%-12s %5s %12s %10.2f %10.2f %12.2f\n' dotnet-trace "$round" "$(measured_ms "$work/dt.json")" "$wall" "$(awk "BEGIN{print $size/1048576}")" "$(awk "BEGIN{print $size/1048576/$wall}")"
  fi
done
rm -rf "$work"
