#!/usr/bin/env bash
# run_filament.sh DIR RENDER MATERIAL CMGEN (ctest engine_render_filament): Filament renders the sphere grid
# of DIR (bake_engine_reference's) twice under xvfb-run (its OpenGL engine on llvmpipe here): lit by our
# bake (spec.exr, sh.txt from --sh-format filament) and by cmgen's own bake of the same map (cmgen
# --no-mirror --format=exr --size=<the scene's> --deploy: its faces and sh.txt), then
# tests/js/render/compare_f32.mjs compares them with our shading in Filament's model (compare_f32.mjs says how:
# ours gated, both measured against the true roughness); and a third time, the sample sky's residual after
# --extract-sun with our sun as Filament's SUN light (gated).
# Without node and the npm modules: a skip (77), a failure in CI.
set -uo pipefail
dir=$1 render=$2 material=$3 cmgen=$4
here=$(cd "$(dirname "$0")" && pwd)
js="$here/../js"
if ! command -v node >/dev/null 2>&1 || [ ! -f "$js/node_modules/pngjs/package.json" ]; then
  if [ -n "${CI:-}" ]; then echo "engine render (Filament): node or npm:pngjs missing (run scripts/setup)" >&2; exit 1; fi
  echo "engine render (Filament) SKIPPED: node or npm:pngjs missing; run scripts/setup"; exit 77
fi
command -v xvfb-run >/dev/null 2>&1 || { echo "engine render (Filament): xvfb-run missing (scripts/setup installs xvfb)" >&2; exit 1; }
size=$(node -e "console.log(JSON.parse(require('fs').readFileSync(process.argv[1])).specular_size)" "$dir/scene.json")
map="$dir/$(node -e "console.log(JSON.parse(require('fs').readFileSync(process.argv[1])).files.source)" "$dir/scene.json")"
start=$(date +%s.%N)
rm -rf "$dir/cmgen"
"$cmgen" -q --no-mirror --format=exr --size="$size" --deploy="$dir/cmgen" "$map" || exit 1
stem=$(basename "${map%.*}")
xvfb-run -a "$render" "$dir" "$material" "$dir/spec.exr" "$dir/sh.txt" "$dir/filament_ours.f32" || exit 1
xvfb-run -a "$render" "$dir" "$material" "$dir/cmgen/$stem" "$dir/cmgen/$stem/sh.txt" "$dir/filament_cmgen.f32" || exit 1
xvfb-run -a "$render" "$dir" "$material" "$dir/spec_sun.exr" "$dir/sh_sun.txt" "$dir/filament_sun.f32" "$dir/filament_sun.json" || exit 1
node "$js/render/compare_f32.mjs" "$dir" filament "$start"
