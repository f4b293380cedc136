#!/usr/bin/env bash
# Runs check_outputs.mjs on the folder bake_engine_files wrote (ctest: engine_files_readers).
# Without node or the npm modules (scripts/setup installs both): a failure in CI (CI set), else a
# skip (exit 77, which ctest reports as skipped) that says what is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
missing=""
command -v node >/dev/null 2>&1 || missing="node"
for m in ktx-parse gltf-validator three @babylonjs/core fzstd; do
  [ -f "$here/node_modules/$m/package.json" ] || missing="$missing npm:$m"
done
if [ -n "$missing" ]; then
  if [ -n "${CI:-}" ]; then
    echo "engine readers: missing$missing${missing:+ }(run scripts/setup, which runs npm ci --prefix tests/js)" >&2
    exit 1
  fi
  echo "engine readers SKIPPED: missing $missing; run scripts/setup (npm ci --prefix tests/js)"
  exit 77
fi
node "$here/check_outputs.mjs" "$1"
# The tool's own outputs, written by bake-irradiance itself (bake_engine_files DIR BAKE_IRRADIANCE).
if [ -d "$1/cli" ]; then node "$here/check_outputs.mjs" "$1/cli"; fi
