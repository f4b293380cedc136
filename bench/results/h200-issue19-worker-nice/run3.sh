#!/usr/bin/env bash
# run2.sh's batch again, 25 rounds (nice 0, then the default nice 10), to settle a 1-4% difference.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
X() { BAKE_BACKGROUND_NICE=0 $a "$@"; }
Y() { $a "$@"; }
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" --specular-size 256)
echo "columns: nice 0, nice 10 (the default) (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular 256 --jobs 4: $(duo 25 "${batch[@]}")"
