#!/usr/bin/env bash
# The benchmark checked against BenchmarkDotNet: the same serializers, data and N measured by BenchmarkDotNet
# (scripts/measure/BdnComparison: the benchmark's own serializer classes and data) and by the benchmark itself, untraced.
# LAUNCHES processes of each, interleaved and alternating which goes first, because on a shared machine a whole
# process can run 2x slower than the next. Writes a Markdown table: both means, the ratio and both spreads; the
# benchmark side takes the runs its results.json marks as measured (warmup = false), whatever its warm-up policy.
# Usage: scripts/measure/bdn-compare.sh [--launches L] [--serializers a,b] [--test deserialize] [--data bookshelf]
#          [--n 10000] [--out FILE] [--keep DIR] [--inprocess] [--bdn "ARGS"] [--no-build] [-- benchmark options...]
#   --bdn "ARGS"  more options for `BdnComparison run` (default "--iteration-count 15"; warm-up stays automatic)
#   --inprocess   BenchmarkDotNet's in-process toolchain (no project generated and built per launch)
#   --keep DIR    keep every launch's results and logs there (default: a temporary folder, deleted)
# docs/benchmark.md shows the results and how the two methods differ.
set -euo pipefail
cd "$(dirname "$0")/../.."

launches=3
serializers=Google.Protobuf,System.Text.Json,Newtonsoft.Json,XmlSerializer,DataContract
test=deserialize data=bookshelf n=10000 out="" keep="" build=1 inprocess=""
bdn_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --launches) launches=$2; shift 2 ;;
    --serializers) serializers=$2; shift 2 ;;
    --test) test=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --inprocess) inprocess=--inprocess; shift ;;
    --bdn) read -ra extra <<<"$2"; bdn_args+=("${extra[@]}"); shift 2 ;;
    --no-build) build=0; shift ;;
    --) shift; break ;;
    *) echo "error: unknown option $1 (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done
bench_args=("$@")
# 15 measured iterations bound the time (BenchmarkDotNet's own default runs up to 100 on a noisy machine).
[[ " ${bdn_args[*]} " == *" --iteration-count "* ]] || bdn_args=(--iteration-count 15 "${bdn_args[@]}")
case "$launches" in ''|*[!0-9]*|0) echo "error: --launches expects a whole number of at least 1, got '$launches'" >&2; exit 2 ;; esac

if [ "$build" = 1 ]; then
  dotnet build Cli -c Release -v q -nologo >/dev/null
  dotnet build scripts/measure/BdnComparison -c Release -v q -nologo >/dev/null
fi
bench=Cli/bin/Release/net10.0/SerializerBenchmark.dll
bdn=scripts/measure/BdnComparison/bin/Release/net10.0/BdnComparison.dll
for dll in "$bench" "$bdn"; do
  [ -f "$dll" ] || { echo "error: $dll is missing: build first (or drop --no-build)" >&2; exit 2; }
done
if [ -n "$keep" ]; then work=$keep; mkdir -p "$work"; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi

selection=(--serializers "$serializers" --test "$test" --data "$data" --n "$n")
load() { cut -d' ' -f1-3 /proc/loadavg; }
load_start=$(load)
failed=0

run_bdn() {
  echo "launch $1/$launches: BenchmarkDotNet" >&2
  dotnet "$bdn" run "${selection[@]}" "${bdn_args[@]}" $inprocess --artifacts "$work/bdn-artifacts-$1" --json "$work/bdn-$1.json" >"$work/bdn-$1.log" 2>&1 \
    || { echo "  BenchmarkDotNet launch $1 failed: $(tail -n 3 "$work/bdn-$1.log" | tr '\n' ' ')" >&2; failed=1; }
}
run_bench() {
  echo "launch $1/$launches: benchmark" >&2
  dotnet "$bench" "${selection[@]}" "${bench_args[@]}" --quiet --json "$work/bench-$1.json" >"$work/bench-$1.log" 2>&1 \
    || { echo "  benchmark launch $1 failed: $(tail -n 3 "$work/bench-$1.log" | tr '\n' ' ')" >&2; failed=1; }
}

for launch in $(seq "$launches"); do
  # Alternate which side goes first, so neither always runs right after the other's heavier start-up.
  if [ $((launch % 2)) = 1 ]; then run_bdn "$launch"; run_bench "$launch"; else run_bench "$launch"; run_bdn "$launch"; fi
done

table_args=()
for f in "$work"/bdn-*.json; do [ -f "$f" ] && table_args+=(--bdn "$f"); done
for f in "$work"/bench-*.json; do [ -f "$f" ] && table_args+=(--benchmark "$f"); done
{
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores; load average (1, 5, 15 min) $load_start at the start, $(load) at the end."
  echo "Command: scripts/measure/bdn-compare.sh --launches $launches --serializers $serializers --test $test --data $data --n $n${inprocess:+ $inprocess} --bdn \"${bdn_args[*]}\"${bench_args[*]:+ -- ${bench_args[*]}}"
  echo
  dotnet "$bdn" table "${table_args[@]}"
} >"$work/table.md"
if [ -z "$out" ]; then cat "$work/table.md"; elif ! [ "$out" -ef "$work/table.md" ]; then cp "$work/table.md" "$out"; fi
exit "$failed"
