#!/usr/bin/env bash
# How many early: 0, 2 (the default), 3, 4 inputs after the first decoded while the context is
# made, alternating, the batch with --specular; a timeline of each of 3 and 4.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
A() { BAKE_EARLY_DECODES=0 $a "$@"; }
B() { $a "$@"; }
C() { BAKE_EARLY_DECODES=3 $a "$@"; }
D() { BAKE_EARLY_DECODES=4 $a "$@"; }
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" --specular-size 256)
for f in C D; do tl $f "${batch[@]}" > $OUT/trace-batch-$f.txt; done
echo "columns: 0, 2 (the default), 3, 4 early (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular 256 --jobs 4: $(alternate 21 "A B C D" "${batch[@]}")"
for f in C D; do echo "== $f: $(grep -a -E ' context$' $OUT/trace-batch-$f.txt)"; done
