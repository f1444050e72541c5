#!/usr/bin/env bash
# The damaged-input corpus, longer: the same generator and checks as the test suite's
# (Tests/Robustness/DamagedInputCorpusTests.cs: one real recording, seed 15), with its random families
# (cuts at random offsets, byte flips, header flips, random bytes, damaged zips, caches, tags, results, manifests,
# dumps) multiplied by SCALE. Prints the exit codes per family and verb; fails on any crash, hang or undocumented
# exit code, like the test. SCALE=20 gives about 4,000 inputs (docs/analyzer.md shows a run).
# Usage: scripts/measure/damaged-inputs.sh [SCALE]
set -euo pipefail
cd "$(dirname "$0")/../.."
scale=${1:-20}
report=$(mktemp)
dotnet build Tests -c Release -v q -nologo >/dev/null
status=0
ESP_CORPUS_SCALE=$scale ESP_CORPUS_REPORT=$report \
  dotnet test Tests -c Release --no-build --filter "FullyQualifiedName~DamagedInputCorpusTests" --logger "console;verbosity=minimal" || status=$?
cat "$report"
rm -f "$report"
exit $status
