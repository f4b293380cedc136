#!/usr/bin/env bash
# A batch's second input (and third) decoded beside the first while the GL context starts
# (BAKE_EARLY_DECODES=N, an experiment build), so that the first map's send_ahead finds it staged:
# X = none (main), Y = 1, Z = 2, alternating, timed to the shell's wait; timelines of X and Y.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
X() { $a "$@"; }
Y() { BAKE_EARLY_DECODES=1 $a "$@"; }
Z() { BAKE_EARLY_DECODES=2 $a "$@"; }
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" --specular-size 256)
for f in X Y; do tl $f "${batch[@]}" > $OUT/trace-batch-$f.txt; done
echo "columns: main, 1 early, 2 early (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular 256 --jobs 4: $(trio 21 "${batch[@]}")"
for f in X Y; do echo "== $f"; grep -a -E "decoded|bright split|context|next input s|levels queued" $OUT/trace-batch-$f.txt | head -12; done
