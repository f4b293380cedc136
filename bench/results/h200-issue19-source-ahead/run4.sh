#!/usr/bin/env bash
# The first input's chain: the sample sets planned when the programs are prepared, the next input
# staged also at the specular stage's start (it was still decoding at the first input's start).
# 8e2e4e3 (X), 5430ff7 (Y), the new binary (Z), alternating; a timeline of Z's batch.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
X() { $F/bake-irradiance-8e2e4e3 "$@"; }
Y() { $F/bake-irradiance-5430ff7 "$@"; }
Z() { $F/bake-irradiance "$@"; }
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
echo "columns: 8e2e4e3, 5430ff7, new (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular --jobs 4: $(trio 11 "${batch[@]}")"
echo "4k --specular: $(trio 7 $w/in/sky4096.hdr --specular $w/o/s.exr --specular-size 256)"
echo "8k --specular: $(trio 7 $w/in/sky8192.hdr --specular $w/o/s.exr --specular-size 256)"
tl Z "${batch[@]}" > $OUT/trace-batch.txt
tl Z $w/in/sky4096.hdr --specular $w/o/s.exr --specular-size 256 > $OUT/trace-4k.txt
for f in Y Z; do rm -rf $w/o; mkdir -p $w/o; $f "${batch[@]}" >/dev/null 2>&1; (cd $w/o && cat *.json *.exr | md5sum) ; done | uniq -c
