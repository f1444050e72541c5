#!/usr/bin/env bash
# The test command's set-up step (scripts/test.sh runs it first): finds the tools the tests need, installs the
# missing ones with apt when it runs as root, and otherwise stops with one line that says what to install and why.
#
#   chromium  the HTML report tests open the report in headless Chromium (Tests/Analyzer/Reports/Chromium.cs)
#   pdftotext the report tests read page 1 of the report Chromium printed (poppler-utils)
#   perf      esp records the Linux kernel session with it; the kernel-session tests hold it to thread CPU clocks
#   viewers   the exports opened in their own viewers: speedscope (in Chromium) and the Firefox Profiler's own
#             loading code (profiler-cli, under node); npm installs them once into $ESP_VIEWERS (Tests/Analyzer/Reports/Viewers.cs)
#
# ESP_CHROMIUM=/path and ESP_PERF=/path name the tools; when set, only that path counts.
# ESP_SETUP_INSTALL=no never installs (a fresh machine without root behaves the same).
# Exit codes: 0 every tool found; 3 a tool is missing and could not be installed.
set -uo pipefail

install_allowed() { [ "${ESP_SETUP_INSTALL:-yes}" != no ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }

find_chromium() {
  if [ -n "${ESP_CHROMIUM:-}" ]; then [ -f "$ESP_CHROMIUM" ] && [ -x "$ESP_CHROMIUM" ] && echo "$ESP_CHROMIUM"; return; fi
  local c
  for c in /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do [ -x "$c" ] && { echo "$c"; return; }; done
}

find_pdftotext() { command -v pdftotext; }

# Debian's /usr/bin/perf is a wrapper that fails when no perf matches the kernel: ask it for its version.
find_perf() {
  local p
  if [ -n "${ESP_PERF:-}" ]; then p=$ESP_PERF; [ -f "$p" ] || return; else p=$(command -v perf) || return; fi
  "$p" --version >/dev/null 2>&1 && echo "$p"
}

# ensure TOOL FINDER PACKAGE WHY
ensure() {
  local tool=$1 finder=$2 package=$3 why=$4 found installed=""
  found=$($finder)
  if [ -z "$found" ] && install_allowed; then
    echo "test setup: installing $package ($why)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package") >"/tmp/esp-setup-$package.log" 2>&1 \
      && installed=yes
    found=$($finder)
  fi
  if [ -z "$found" ]; then
    local where="" how
    [ "$tool" = chromium ] && [ -n "${ESP_CHROMIUM:-}" ] && where=" at ESP_CHROMIUM=$ESP_CHROMIUM"
    [ "$tool" = perf ] && [ -n "${ESP_PERF:-}" ] && where=" at ESP_PERF=$ESP_PERF"
    if [ "${ESP_SETUP_INSTALL:-yes}" = no ]; then how="install it: apt-get install -y $package"
    elif [ -n "$installed" ]; then how="installed $package, but$where there is still none"
    elif install_allowed; then how="apt-get install -y $package failed, see /tmp/esp-setup-$package.log"
    else how="run as root: apt-get install -y $package"; fi
    echo "test setup: $tool is missing$where ($why); $how" >&2
    return 3
  fi
  echo "test setup: $tool $found"
}

# The npm packages the viewer tests open the exports in, pinned; a second run finds them and installs nothing.
VIEWERS=${ESP_VIEWERS:-${XDG_CACHE_HOME:-$HOME/.cache}/esp-viewers}
VIEWER_PACKAGES="speedscope@1.25.0 @firefox-devtools/profiler-cli@0.10.0"
find_npm() { command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1 && command -v npm; }
find_viewers() {
  local p
  for p in $VIEWER_PACKAGES; do
    grep -q "\"version\": \"${p##*@}\"" "$VIEWERS/node_modules/${p%@*}/package.json" 2>/dev/null || return
  done
  echo "$VIEWERS"
}
install_viewers() {
  [ -n "$(find_viewers)" ] || [ "${ESP_SETUP_INSTALL:-yes}" = no ] && return
  find_npm >/dev/null || return
  echo "test setup: installing $VIEWER_PACKAGES into $VIEWERS (the export tests open the exports in them)"
  mkdir -p "$VIEWERS" && npm install --prefix "$VIEWERS" --no-audit --no-fund --ignore-scripts --loglevel=error $VIEWER_PACKAGES \
    >/tmp/esp-setup-viewers.log 2>&1 || echo "test setup: npm install failed, see /tmp/esp-setup-viewers.log" >&2
}

status=0
ensure chromium find_chromium chromium "the HTML report tests open the report in it" || status=3
ensure pdftotext find_pdftotext poppler-utils "the HTML report tests read the printed report with it" || status=3
ensure npm find_npm npm "the export tests install their viewers with it" || status=3
install_viewers
[ -n "$(find_viewers)" ] && echo "test setup: viewers $VIEWERS" || { echo "test setup: the viewers ($VIEWER_PACKAGES) are missing from $VIEWERS" >&2; status=3; }
if [ "$(uname -s)" = Linux ]; then
  ensure perf find_perf linux-perf "esp records the kernel session with it" || status=3
fi
exit $status
