#!/usr/bin/env bash
# The committed rule (a batch's two inputs after the first decoded while the context is made;
# BAKE_EARLY_DECODES=N sets how many): X = 0 (before), Y = the default 2, Z = 3, alternating, timed
# to the shell's wait, the batch with --specular and the SH batch; the outputs compared.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
X() { BAKE_EARLY_DECODES=0 $a "$@"; }
Y() { $a "$@"; }
Z() { BAKE_EARLY_DECODES=3 $a "$@"; }
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" --specular-size 256)
sh=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json')
echo "columns: 0 early (before), 2 (the default), 3 (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular 256 --jobs 4: $(trio 21 "${batch[@]}")"
echo "SH batch 20 x 4k (auto: gpu): $(trio 15 "${sh[@]}")"
for f in X Y Z; do rm -rf $w/o; mkdir -p $w/o; $f "${batch[@]}" >/dev/null 2>&1; (cd $w/o && cat *.json *.exr | md5sum) ; done | uniq -c
