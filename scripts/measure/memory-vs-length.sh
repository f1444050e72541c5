#!/usr/bin/env bash
# Peak memory of cold analysis against trace length (docs/analyzer.md, "Peak memory against trace length"): for each
# trace folder, its .nettrace and gzipped perf text sizes, the kernel session's CPU samples, and the peak resident
# memory (/usr/bin/time -v) of `esp analyze FOLDER --no-cache` with and without the kernel session, one run each.
# Record the folders with the same workload for longer, e.g.
#   esp record --serializers System.Text.Json --n 20000 --runs 2   --out /tmp/m2
#   esp record --serializers System.Text.Json --n 500000 --runs 60 --out /tmp/mhuge
# Usage: scripts/measure/memory-vs-length.sh [--esp ESP_DLL] FOLDER [FOLDER ...]
#   ESP_DLL defaults to this checkout's Cli/bin/Release/net10.0/esp.dll (build the solution first); not a .dll: run as it is.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
esp="$root/Cli/bin/Release/net10.0/esp.dll"
if [ "${1:-}" = "--esp" ]; then esp=${2:?--esp needs a path}; shift 2; fi
[ $# -gt 0 ] || { echo "usage: memory-vs-length.sh [--esp ESP_DLL] FOLDER [FOLDER ...]" >&2; exit 2; }
[ -f "$esp" ] || { echo "no $esp (build the solution first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Peak resident memory in MB of one esp analyze, or "failed".
peak() {
  local run=(dotnet "$esp"); [[ "$esp" == *.dll ]] || run=("$esp") # a native esp (scripts/publish-native.sh) runs as it is
  if /usr/bin/time -v -o "$work/time" "${run[@]}" analyze "$@" --no-cache --format text --out /dev/null >/dev/null 2>"$work/err"; then
    awk -F': ' '/Maximum resident/ { printf "%.0f MB", $2 / 1024 }' "$work/time"
  else
    echo "failed"
  fi
}

echo "| folder | .nettrace | perf text (gz) | CPU samples (perf) | peak | peak, --no-kernel |"
echo "|---|---|---|---|---|---|"
for folder in "$@"; do
  trace="$folder/trace.nettrace"
  perf_text="$folder/kernel.perf-script.txt.gz"
  [ -f "$trace" ] || { echo "no $trace" >&2; exit 2; }
  mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f MB", b / 1048576 }'; }
  samples="-"; text="-"
  if [ -f "$perf_text" ]; then
    text=$(mb "$perf_text")
    samples=$(zcat "$perf_text" | grep -c 'cpu-clock' || true)
  fi
  echo "| $(basename "$folder") | $(mb "$trace") | $text | $samples | $(peak "$folder") | $(peak "$folder" --no-kernel) |"
done
