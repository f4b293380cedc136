#!/usr/bin/env bash
# The issue's table at 7cf7cca (bench-gpu --whole-process: bench.txt, bench.json under $OUT), then
# in the same lease two writes in flight against one (BAKE_WRITES_IN_FLIGHT=1, the same binary),
# alternating, 7 rounds: the batch of 20 4k maps with --specular (JSON, --jobs 4).
set -uo pipefail
F=${F:-build-perf/devrun}
bash scripts/bench-gpu $F --whole-process > $OUT/bench-gpu.log 2>&1
source bench/results/device-setup.sh
a=$F/bake-irradiance
X() { BAKE_WRITES_IN_FLIGHT=1 $a "$@"; }
Y() { $a "$@"; }
echo "columns: one write in flight, two (s, median; then tenths of ms)" > $OUT/ab.txt
echo "batch 20 x 4k --specular --jobs 4: $(duo 7 $w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")" >> $OUT/ab.txt
tail -14 $OUT/bench.txt; cat $OUT/ab.txt
