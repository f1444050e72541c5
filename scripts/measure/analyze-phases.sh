#!/usr/bin/env bash
# Where the wall of one cold `esp analyze FOLDER --no-cache` goes, by phase (docs/speed.md#where-the-wall-goes): each
# phase ends when esp says the next began on stderr, timed as it arrives. Phases: start-up (process start to the first
# line), before the pass (stack tags, exception side files, manifest), the EventPipe pass, the charge and the reports
# (to the last line), exit. ROUNDS rounds run each ESP in turn; medians in ms. With CORES=1, each run is recorded by
# perf (999 Hz, CLOCK_MONOTONIC, a few percent slower) and each phase also gets the cores it kept busy (its samples
# over its length): below 2, a core was free for work that could move there.
# Usage: [CORES=1] scripts/measure/analyze-phases.sh TRACE_FOLDER [ROUNDS] [ESP ...]   (ESP: esp.dll, or the native esp)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
folder=${1:?usage: analyze-phases.sh TRACE_FOLDER [ROUNDS] [ESP ...]}
rounds=${2:-5}
shift; shift || true
esps=("$@")
[ ${#esps[@]} -eq 0 ] && esps=("$root/Cli/bin/Release/net10.0/esp.dll")
python3 - "$folder" "$rounds" "${esps[@]}" <<'PY'
import os, shutil, statistics, subprocess, sys, tempfile, time
folder, rounds, esps = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cores = os.environ.get("CORES") == "1"
hz = 999
work = tempfile.mkdtemp() if cores else None
perf_data = os.path.join(work, "perf.data") if cores else None
# The stderr line that opens each phase after start-up; the reports end at the last line.
opens = [("before the pass", "reading the kernel session"), ("EventPipe pass", "in one pass"), ("charge and reports", "charging the kernel session")]
phases = ["start-up"] + [p for p, _ in opens] + ["exit"]
times = {e: {p: [] for p in phases} for e in esps}
busy = {e: {p: [] for p in phases} for e in esps}
for _ in range(rounds):
    for esp in esps:
        run = (["dotnet", esp] if esp.endswith(".dll") else [esp]) + ["analyze", folder, "--no-cache", "--format", "text", "--out", "/dev/null"]
        if cores: run = ["perf", "record", "-q", "-F", str(hz), "-k", "CLOCK_MONOTONIC", "-B", "-N", "-o", perf_data, "--"] + run
        start = time.monotonic()
        p = subprocess.Popen(run, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        marks, last = {}, start
        for line in p.stderr:
            now = time.monotonic()
            for phase, text in opens:
                if text in line and phase not in marks: marks[phase] = now
            last = now
        if p.wait() != 0: sys.exit(f"failed: {' '.join(run)}")
        end = time.monotonic()
        if len(marks) != len(opens): sys.exit(f"{esp}: not every phase said it began (a folder without a kernel session?)")
        if cores:
            # Every thread's samples, on the edges' clock; perf's own start and end are not esp's: its first and last samples are.
            out = subprocess.run(["perf", "script", "-i", perf_data, "-F", "time"], capture_output=True, text=True).stdout
            at = sorted(float(t.strip().rstrip(":")) for t in out.split())
            start, end = max(start, at[0]), max(last, min(end, at[-1]))
        edges = [start] + [marks[ph] for ph, _ in opens] + [last, end]
        for i, ph in enumerate(phases): times[esp][ph].append(1000 * (edges[i + 1] - edges[i]))
        if cores:
            # A phase's samples over its length at the rate.
            for i, ph in enumerate(phases):
                n = sum(1 for t in at if edges[i] <= t < edges[i + 1])
                busy[esp][ph].append(n / hz / max(edges[i + 1] - edges[i], 1e-9))
if work: shutil.rmtree(work)
print("| phase, ms (median of %d)%s | %s |" % (rounds, ", cores busy" if cores else "", " | ".join(esps)))
print("|---|" + "---|" * len(esps))
for ph in phases + ["total"]:
    cells = [statistics.median([sum(t) for t in zip(*times[e].values())]) if ph == "total" else statistics.median(times[e][ph]) for e in esps]
    extra = ["" if ph == "total" or not cores else f", {statistics.median(busy[e][ph]):.1f}" for e in esps]
    print(f"| {ph} | " + " | ".join(f"{c:.0f}{x}" for c, x in zip(cells, extra)) + " |")
PY
