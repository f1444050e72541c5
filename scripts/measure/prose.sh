#!/usr/bin/env bash
# Sentence lengths of README.md and docs/*.md: per page, the sentences counted, the median in words and the share
# over 35 words. The splitter is Tests/Support/Prose.cs (prose only: no code, tables, headings or short list items);
# the fast run's DocProseTests holds the goal (median at most 18 words, at most 5% over 35). Builds the tests unless
# --no-build is given.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ "${1:-}" != "--no-build" ]]; then
  dotnet build Tests -c Release -m:1 -v q -nologo 2>&1 | grep -E " error |rror\(s\)" | grep -v " 0 Error" || true
fi
dotnet test Tests -c Release --no-build --filter "FullyQualifiedName~DocProseTests.Docs_sentences_are_short" \
  --logger "console;verbosity=detailed" 2>&1 | grep -E '^\s*\|' | sed -E "s/^\s+//" | awk "!seen[\$0]++"
