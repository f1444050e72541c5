#!/usr/bin/env bash
# The test command (README): sets up the tools the tests need (scripts/test-setup.sh), then runs the whole suite,
# end-to-end tests included. Extra arguments go to dotnet test (e.g. --filter). Exit 3: a tool is missing.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/test-setup.sh || exit $?
# The whole suite: its slow set-ups start at once in the background, at the lowest priority (Tests/Support/Prefetch.cs).
case " $* " in *" --filter "*) ;; *) export ESP_TEST_PREFETCH=1 ;; esac
exec dotnet test EtwSerializerProfiler.sln -c Release "$@"
