#!/usr/bin/env bash
# run_render.sh DIR [threejs|babylon|threejs_std]
# ctest engine_render_threejs: three.js in Debian's headless chromium renders what
# bake_render_reference wrote into DIR, compared with our CPU shading (render.mjs says how).
# ctest engine_render_babylon, engine_render_threejs_std: Babylon.js, and three.js's standard path, render
# what bake_engine_reference wrote (render_babylon.mjs, render_threejs_std.mjs).
# Without chromium (or node, or the npm modules; scripts/setup installs all three): a failure in CI
# (CI set), else a skip (exit 77, which ctest reports as skipped) that says what is missing.
# node runs in its own process group, which is killed afterwards: no chromium outlives the test.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
chromium=${BAKE_CHROMIUM:-/usr/bin/chromium}
engine=${2:-threejs}
case "$engine" in
  threejs) script=render.mjs; modules="three puppeteer-core pngjs"; limit=110 ;;
  babylon) script=render_babylon.mjs; modules="babylonjs babylonjs-loaders puppeteer-core pngjs"; limit=280 ;;
  threejs_std) script=render_threejs_std.mjs; modules="three puppeteer-core pngjs"; limit=110 ;;
  *) echo "run_render.sh: unknown engine '$engine'" >&2; exit 2 ;;
esac
missing=""
[ -x "$chromium" ] || missing="chromium"
command -v node >/dev/null 2>&1 || missing="$missing node"
for m in $modules; do
  [ -f "$here/../node_modules/$m/package.json" ] || missing="$missing npm:$m"
done
if [ -n "$missing" ]; then
  if [ -n "${CI:-}" ]; then
    echo "engine render: missing $missing (run scripts/setup)" >&2
    exit 1
  fi
  echo "engine render SKIPPED: missing $missing; run scripts/setup (apt chromium, npm ci --prefix tests/js)"
  exit 77
fi
export BAKE_CHROMIUM="$chromium"
setsid timeout -k 5 "$limit" node "$here/$script" "$1" &
pid=$!
trap 'kill -KILL -- -$pid 2>/dev/null' EXIT INT TERM
wait $pid
rc=$?
exit $rc
