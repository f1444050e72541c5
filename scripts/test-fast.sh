#!/usr/bin/env bash
# The fast unit tests: everything not marked [EndToEnd] (Tests/Support/EndToEndAttribute.cs), in parallel, without
# recording a trace or starting a process. ESP_TEST_FAST=1 makes a test that records anyway fail and say how to mark
# it. The whole suite, end-to-end tests included, is the README's `scripts/test.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
ESP_TEST_FAST=1 dotnet test EtwSerializerProfiler.sln -c Release --filter "Category!=EndToEnd" "$@"
