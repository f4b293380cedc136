#!/usr/bin/env bash
# Two writes in flight (7cf7cca) against one (BAKE_WRITES_IN_FLIGHT=1, the same binary),
# alternating, timed to the shell's wait: the batch of 20 4k maps with --specular (JSON,
# --jobs 4, as the issue's table) 9 rounds, the SH batch 9 rounds; then a timeline of the
# --specular batch (trace-batch.txt under $OUT).
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
X() { BAKE_WRITES_IN_FLIGHT=1 $a "$@"; }
Y() { $a "$@"; }
echo "columns: one write in flight, two (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular --jobs 4: $(duo 9 $w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")"
echo "batch 20 x 4k SH --jobs 4: $(duo 9 $w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json')"
tl $a $w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" > $OUT/trace-batch.txt
tail -4 $OUT/trace-batch.txt
