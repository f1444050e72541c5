#!/usr/bin/env bash
# The esp tool packages, as the .NET 10 SDK packs a tool with RID-specific packages (README, "Install"):
#   EtwSerializerProfiler            what users install: it names the two below, and `dotnet tool install` takes the
#                                    one for the machine
#   EtwSerializerProfiler.linux-x64  the native esp (Cli/NativeAot.targets; needs clang or gcc) with the managed esp
#                                    beside it for record and stacktags
#   EtwSerializerProfiler.any        the managed esp for every other platform (framework-dependent)
# the library your own app marks its runs with (docs/run-markers.md):
#   EtwSerializerProfiler.RunMarkers netstandard2.0 and net8.0
# and the BenchmarkDotNet diagnoser (docs/benchmarkdotnet.md):
#   EtwSerializerProfiler.BenchmarkDotNet  [EspDiagnoser] for BenchmarkDotNet 0.15.8
# Native AOT compiles for the machine it runs on, so the linux-x64 package is packed on linux-x64 only; elsewhere the
# script packs the other two (the any package is then what every platform installs).
# Usage: scripts/pack-tool.sh [OUT]   (default: nupkg/)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out=${1:-$root/nupkg}
cli="$root/Cli/Cli.csproj"
# linux-x64 first: the -r any pack restores every project for another RID, after which Native AOT compiles esp again
# (124 s against 10 s after scripts/publish-native.sh, 2026-11-26).
if [ "$(uname -s)" = Linux ] && [ "$(uname -m)" = x86_64 ]; then
  dotnet pack "$cli" -c Release -r linux-x64 -o "$out" --nologo
else
  echo "not linux-x64: EtwSerializerProfiler.linux-x64 (the native esp) not packed"
fi
# The package without a RID names the others and holds no build: packed without building (3 s against 86 s), it
# leaves the ReadyToRun build users run as it was (Cli/ReadyToRun.targets: packing builds IL only).
dotnet restore "$cli" --nologo
dotnet pack "$cli" -c Release -o "$out" --nologo --no-build
dotnet pack "$cli" -c Release -r any -o "$out" --nologo
dotnet pack "$root/RunMarkers/RunMarkers.csproj" -c Release -o "$out" --nologo
dotnet pack "$root/BdnDiagnoser/BdnDiagnoser.csproj" -c Release -o "$out" --nologo
ls -l "$out"/EtwSerializerProfiler*.nupkg
