#!/usr/bin/env bash
# What an EventPipe stack walk costs per allocation tick, in one process (scripts/measure/EventStackCost): prints a
# Markdown table, per stack depth, of the allocation loop's thread CPU with no session, with stacks, without stacks.
# docs/recorder.md#stacks-only-where-read shows the results. Usage: scripts/measure/event-stack-cost.sh [rounds] [depth...]
set -euo pipefail
cd "$(dirname "$0")/EventStackCost"
dotnet build -c Release -v q -nologo >/dev/null
dotnet bin/Release/net10.0/EventStackCost.dll "$@"
