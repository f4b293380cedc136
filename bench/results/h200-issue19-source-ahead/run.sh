#!/usr/bin/env bash
# The next input's specular source queued ahead (behind this input's levels) and its bright parts
# made ahead: 8e2e4e3's binary (X), the new one with BAKE_SOURCE_AHEAD=0 (Y: texels ahead only, as
# 8e2e4e3) and the new one as is (Z), alternating, timed to the shell's wait; then timelines of the
# --specular batch with Y and Z (trace-batch-*.txt under $OUT) and a check that the outputs of
# all three are byte-identical.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
X() { $F/bake-irradiance-8e2e4e3 "$@"; }
Y() { BAKE_SOURCE_AHEAD=0 $a "$@"; }
Z() { $a "$@"; }
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
echo "columns: 8e2e4e3, texels ahead only, source ahead (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular --jobs 4: $(trio 11 "${batch[@]}")"
echo "4k --specular: $(trio 5 $w/in/sky4096.hdr --specular $w/o/s.exr --specular-size 256)"
tl Y "${batch[@]}" > $OUT/trace-batch-texels.txt
tl Z "${batch[@]}" > $OUT/trace-batch-source.txt
for f in X Y Z; do rm -rf $w/o; mkdir -p $w/o; $f "${batch[@]}" >/dev/null 2>&1; (cd $w/o && cat *.json *.exr | md5sum) ; done | uniq -c
tail -3 $OUT/trace-batch-source.txt
