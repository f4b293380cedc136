#!/usr/bin/env bash
# This session's two changes against their absence in one call, the same binary: X = the source
# pass's old shader (BAKE_SHADER_DIR, ../h200-issue19-walk/variants/old-specular_source.comp) and
# _Exit (BAKE_DETACHED_EXIT=0), i.e. the code at 6c07ffc; Y = as committed. Alternating, timed to
# the shell's wait: 9 rounds for singles, 7 for the batch (20 4k maps, --specular, JSON).
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance; V=/tmp/vold; mkdir -p $V
cp bench/results/h200-issue19-walk/variants/old-specular_source.comp $V/specular_source.comp
X() { BAKE_DETACHED_EXIT=0 BAKE_SHADER_DIR=$V $a "$@"; }
Y() { $a "$@"; }
echo "columns: before (6c07ffc's shader, _Exit), after (s, median; then tenths of ms)"
echo "8k --specular: $(duo 9 $w/in/sky8192.hdr --specular $w/o/s.exr)"
echo "4k --specular: $(duo 9 $w/in/sky4096.hdr --specular $w/o/s.exr)"
echo "8k SH gpu: $(duo 9 $w/in/sky8192.hdr -o $w/o/i.exr --device gpu)"
echo "batch 20 x 4k --specular --jobs 4: $(duo 7 $w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")"
