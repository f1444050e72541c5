#!/usr/bin/env bash
# Runs the end-to-end tests under the conditions that differ between machines of this kind, and prints the tests whose
# outcome changed from the plain run (issue 59). Run it before landing a test that counts GCs, times work or compares
# two measurements (CONTRIBUTING.md#tests).
#
#   scripts/test-machines.sh [--filter EXPR] [--conditions "plain gen0-large gen0-small busy"]
#
# gen0-large: DOTNET_GCgen0size=0x9600000, the 150 MiB budget a 300 MiB L3 cache gives (4/5 of the cache, times 5/8).
# gen0-small: DOTNET_GCgen0size=0x400000, a 4 MiB budget (a laptop's 6 MiB L3).
# busy: two busy loops keep both cores busy, as a shared CI machine does.
# A test that pins the budget itself (--env DOTNET_GCgen0size=...) is not moved by the first two.
# Exit 0 when no outcome changed, 1 when one did, 2 on a bad argument.
set -uo pipefail
cd "$(dirname "$0")/.."

filter="Category=EndToEnd"
conditions="plain gen0-large gen0-small busy"
while [ $# -gt 0 ]; do
  case "$1" in
    --filter) filter="$2"; shift 2 ;;
    --conditions) conditions="$2"; shift 2 ;;
    *) echo "test-machines: unknown argument '$1' (use --filter EXPR, --conditions \"plain gen0-large ...\")" >&2; exit 2 ;;
  esac
done

scripts/test-setup.sh || exit $?
out=$(mktemp -d /tmp/esp-test-machines.XXXXXX)
dotnet build Tests -c Release -v q -nologo >"$out/build.log" 2>&1 || { echo "test-machines: build failed, see $out/build.log" >&2; exit 2; }

busy_pids=()
stop_busy() { for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null; done; busy_pids=(); }
trap stop_busy EXIT

for c in $conditions; do
  env=()
  case "$c" in
    plain) ;;
    gen0-large) env=(DOTNET_GCgen0size=0x9600000) ;;
    gen0-small) env=(DOTNET_GCgen0size=0x400000) ;;
    busy) for _ in 1 2; do (while :; do :; done) & busy_pids+=($!); done ;;
    *) echo "test-machines: unknown condition '$c' (plain, gen0-large, gen0-small, busy)" >&2; exit 2 ;;
  esac
  echo "== $c: ${env[*]:-no setting}$([ "$c" = busy ] && echo ', both cores busy')"
  env "${env[@]}" dotnet test Tests -c Release --no-build --filter "$filter" \
    --logger "trx;LogFileName=$out/$c.trx" >"$out/$c.log" 2>&1
  grep -E '(Passed|Failed)! +- ' "$out/$c.log" | tail -1
  stop_busy
done

# One line per test whose outcome is not the same under every condition, or that failed everywhere.
python3 - "$out" $conditions <<'EOF'
import sys, xml.etree.ElementTree as ET
out, conds = sys.argv[1], sys.argv[2:]
ns = {'t': 'http://microsoft.com/schemas/VisualStudio/TeamTest/2010'}
outcomes = {}
for c in conds:
    try: root = ET.parse(f'{out}/{c}.trx').getroot()
    except (OSError, ET.ParseError): print(f'{c}: no results ({out}/{c}.log)'); continue
    for r in root.iterfind('.//t:UnitTestResult', ns):
        outcomes.setdefault(r.get('testName'), {})[c] = r.get('outcome')
changed = {t: o for t, o in outcomes.items() if len(set(o.values())) > 1 or 'Failed' in o.values()}
for t, o in sorted(changed.items()):
    print(t + ': ' + ', '.join(f'{c} {o.get(c, "not run")}' for c in conds))
print(f'{len(changed)} of {len(outcomes)} tests changed or failed; logs in {out}')
sys.exit(1 if changed else 0)
EOF
