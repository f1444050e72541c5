#!/usr/bin/env bash
# The native esp (Native AOT): one executable, no JIT, for the fastest analysis (docs/analyzer.md#speed).
# Analyzes, diffs, reads heap snapshots; record and stacktags need the managed build (Cli/NativeAot.targets).
# Needs a C toolchain (clang, or gcc) besides the .NET SDK; takes about a minute.
# Usage: scripts/publish-native.sh [OUT_DIR]     (default: artifacts/native; then OUT_DIR/esp analyze FOLDER)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out=${1:-$root/artifacts/native}
dotnet publish "$root/Cli/Cli.csproj" -c Release -r linux-x64 -p:EspNative=true -o "$out" --nologo
echo "native esp: $out/esp"
