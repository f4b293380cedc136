#!/usr/bin/env bash
# Runs check_sun.mjs on the folder bake_sun_files wrote (ctest: sun_files_readers). Without node or
# the npm modules (scripts/setup installs both): a failure in CI (CI set), else a skip (exit 77).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
missing=""
command -v node >/dev/null 2>&1 || missing="node"
for m in three gltf-validator; do
  [ -f "$here/node_modules/$m/package.json" ] || missing="$missing npm:$m"
done
if [ -n "$missing" ]; then
  if [ -n "${CI:-}" ]; then
    echo "sun light readers: missing$missing (run scripts/setup, which runs npm ci --prefix tests/js)" >&2
    exit 1
  fi
  echo "sun light readers SKIPPED: missing $missing; run scripts/setup (npm ci --prefix tests/js)"
  exit 77
fi
node "$here/check_sun.mjs" "$1"
