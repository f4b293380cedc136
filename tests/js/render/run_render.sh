#!/usr/bin/env bash
# ctest engine_render_threejs: three.js in Debian's headless chromium renders what
# bake_render_reference wrote into DIR, compared with our CPU shading (render.mjs says how).
# Without chromium (or node, or the npm modules; scripts/setup installs all three): a failure in CI
# (CI set), else a skip (exit 77, which ctest reports as skipped) that says what is missing.
# node runs in its own process group, which is killed afterwards: no chromium outlives the test.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
chromium=${BAKE_CHROMIUM:-/usr/bin/chromium}
missing=""
[ -x "$chromium" ] || missing="chromium"
command -v node >/dev/null 2>&1 || missing="$missing node"
for m in three puppeteer-core pngjs; do
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
setsid timeout -k 5 110 node "$here/render.mjs" "$1" &
pid=$!
trap 'kill -KILL -- -$pid 2>/dev/null' EXIT INT TERM
wait $pid
rc=$?
exit $rc
