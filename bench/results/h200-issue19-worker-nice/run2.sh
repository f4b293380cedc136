#!/usr/bin/env bash
# The committed rule (a GPU batch: decode-ahead threads, writers and oneTBB's workers at nice 10;
# BAKE_BACKGROUND_NICE=0 leaves them): X = 0, Y = the default, alternating, timed to the shell's
# wait; a timeline of Y's batch; the outputs compared.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
X() { BAKE_BACKGROUND_NICE=0 $a "$@"; }
Y() { $a "$@"; }
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" --specular-size 256)
sh=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json')
tl Y "${batch[@]}" > $OUT/trace-batch-nice10.txt
echo "columns: nice 0, nice 10 (the default) (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular 256 --jobs 4: $(duo 15 "${batch[@]}")"
echo "SH batch 20 x 4k (auto: gpu): $(duo 11 "${sh[@]}")"
echo "batch again: $(duo 9 "${batch[@]}")"
for f in X Y; do rm -rf $w/o; mkdir -p $w/o; $f "${batch[@]}" >/dev/null 2>&1; (cd $w/o && cat *.json *.exr | md5sum) ; done | uniq -c
