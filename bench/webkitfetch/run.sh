#!/bin/bash
# bench/webkitfetch/run.sh [N] [MODES...]: for each mode (default: fetch
# stream none), run the webkitfetch app under Xvfb with N pages (default
# 40000) and print how much the WebKit web process and the app grew
# (anonymous memory, /proc/PID/smaps_rollup) from before the first page to
# 40 s after the last (make bench-webkit-fetch; README "Run 16").
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-40000}
shift || true
MODES=${*:-fetch stream none}
BIN=build/bin/webkitfetch
go build -tags "${TAGS:-webkit2_41},desktop,production" -o "$BIN" ./bench/webkitfetch
anon() { awk '/^Anonymous/{print $2}' "/proc/$1/smaps_rollup"; }
for mode in $MODES; do
  out=$(mktemp)
  JB_MODE=$mode JB_N=$N xvfb-run -a -s "-screen 0 1280x800x24" "$BIN" >"$out" 2>&1 &
  runner=$!
  app=""
  for _ in $(seq 100); do app=$(pgrep -n -x webkitfetch || true); [ -n "$app" ] && break; sleep 0.1; done
  sleep 6 # the page waits 8 s before its first page
  web=$(pgrep -P "$app" -x WebKitWebProces || true)
  [ -n "$web" ] || { echo "webkitfetch: no web process"; cat "$out"; exit 1; }
  w0=$(anon "$web"); a0=$(anon "$app")
  while ! grep -q '^DONE' "$out"; do
    sleep 1
    kill -0 "$app" 2>/dev/null || { echo "webkitfetch: the app ended"; cat "$out"; exit 1; }
  done
  sleep 40
  w1=$(anon "$web"); a1=$(anon "$app")
  kill "$app"; wait "$runner" || true
  awk -v m="$mode" -v what="$(grep -o 'pages=[0-9]*&loads=[0-9]*' "$out")" -v w0="$w0" -v w1="$w1" -v a0="$a0" -v a1="$a1" 'BEGIN {
    printf "webkitfetch: %-6s %s: web process %.1f -> %.1f MB (%+.1f), app %.1f -> %.1f MB (%+.1f)\n",
      m, what, w0/1024, w1/1024, (w1-w0)/1024, a0/1024, a1/1024, (a1-a0)/1024 }'
  rm -f "$out"
done
