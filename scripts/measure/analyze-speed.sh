#!/usr/bin/env bash
# Cold analysis against the parse floor (issue 55): for a trace folder, the floor is scripts/measure/ParseFloor (one
# TraceEvent EventPipeEventSource pass over every .nettrace of the folder, then one decompress-and-read of the kernel
# session's perf text, one after the other, in one process); each esp is `esp analyze FOLDER --no-cache --format text`. Whole
# processes under /usr/bin/time -v: wall, CPU (user + system), peak memory (max RSS). PAIRS rounds, each running the
# floor and then every esp once, so a busy machine slows both sides of a round alike; medians over the rounds, and
# the ratio row is the median of each round's esp/floor ratio (the figure that counts on a shared machine).
#
# Usage: scripts/measure/analyze-speed.sh TRACE_FOLDER [PAIRS] [ESP_DLL ...]
#   PAIRS defaults to 5; ESP_DLL defaults to this checkout's Cli/bin/Release/net10.0/esp.dll. Several ESP_DLLs (say, a
#   copy of an older build and the current one) are run in the same rounds, one row and one ratio row each. An
#   ESP_DLL that is not a .dll is run as an executable: the native esp (scripts/publish-native.sh).
# Builds scripts/measure/ParseFloor (and nothing else: build the solution first); FLOOR=EXE uses a native one instead
# (dotnet publish scripts/measure/ParseFloor -c Release -r linux-x64 -p:PublishAot=true [-p:CppCompilerAndLinker=gcc] -o DIR). Prints a markdown table and the load average
# (uptime) before and after.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
folder=${1:?usage: analyze-speed.sh TRACE_FOLDER [PAIRS] [ESP_DLL ...]}
pairs=${2:-5}
shift; shift || true
esps=("$@")
[ ${#esps[@]} -eq 0 ] && esps=("$root/Cli/bin/Release/net10.0/esp.dll")
[ -f "$folder/trace.nettrace" ] || { echo "no $folder/trace.nettrace" >&2; exit 2; }
for e in "${esps[@]}"; do [ -f "$e" ] || { echo "no $e (build the solution first)" >&2; exit 2; }; done

if [ -n "${FLOOR:-}" ]; then
  floor=("$FLOOR" "$folder") # FLOOR=EXE: a native ParseFloor, to hold the native esp to a floor that pays no JIT either
else
  dotnet build "$root/scripts/measure/ParseFloor" -c Release -v q -nologo >/dev/null
  floor=(dotnet "$root/scripts/measure/ParseFloor/bin/Release/net10.0/ParseFloor.dll" "$folder")
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One whole process: "wall_s cpu_s peak_mb" from /usr/bin/time -v.
measure() {
  /usr/bin/time -v -o "$work/time" "$@" >/dev/null 2>"$work/err" || { echo "failed: $*" >&2; cat "$work/err" >&2; exit 1; }
  awk -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = (n == 3) ? p[1] * 3600 + p[2] * 60 + p[3] : p[1] * 60 + p[2] }
    /User time/ { user = $2 } /System time/ { sys = $2 } /Maximum resident/ { kb = $2 }
    END { printf "%.2f %.2f %.0f\n", wall, user + sys, kb / 1024 }' "$work/time"
}

echo "load before: $(uptime)"
for round in $(seq "$pairs"); do
  measure "${floor[@]}" >>"$work/floor"
  for i in "${!esps[@]}"; do
    rm -f "$folder"/*.etlx
    run=(dotnet "${esps[$i]}"); [[ "${esps[$i]}" == *.dll ]] || run=("${esps[$i]}")
    measure "${run[@]}" analyze "$folder" --no-cache --format text --out /dev/null >>"$work/esp$i"
  done
  echo "round $round of $pairs done: $(uptime | sed 's/.*load/load/')" >&2
done
echo "load after:  $(uptime)"

python3 - "$work" "${#esps[@]}" "${esps[@]}" <<'EOF'
import statistics, sys
work, n, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = lambda f: [list(map(float, l.split())) for l in open(f"{work}/{f}") if l.strip()]
floor = rows("floor")
med = lambda rs, c: statistics.median(r[c] for r in rs)
print(f"\n{len(floor)} rounds, medians\n")
print("| | wall | CPU | peak memory |\n|---|---|---|---|")
print(f"| floor | {med(floor, 0):.2f} s | {med(floor, 1):.2f} s | {med(floor, 2):.0f} MB |")
for i in range(n):
    esp = rows(f"esp{i}")
    label = "`esp analyze FOLDER --no-cache`" + (f" ({names[i]})" if n > 1 else "")
    print(f"| {label} | {med(esp, 0):.2f} s | {med(esp, 1):.2f} s | {med(esp, 2):.0f} MB |")
    ratio = lambda c: statistics.median(e[c] / f[c] for e, f in zip(esp, floor))
    print(f"| ratio{' ' + str(i + 1) if n > 1 else ''} (median of rounds) | {ratio(0):.1f}x | {ratio(1):.1f}x | {ratio(2):.1f}x |")
EOF
