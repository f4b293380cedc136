#!/usr/bin/env bash
# The next input's texels staged on a worker (stage_ahead) on top of run2's: 8e2e4e3 (X), the new
# binary with BAKE_STAGE_AHEAD=0 (Y: run2's code), as is (Z), alternating, timed to the shell's
# wait; a timeline of Z's batch; then every [gpu] test case on the card.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
X() { $F/bake-irradiance-8e2e4e3 "$@"; }
Y() { BAKE_STAGE_AHEAD=0 $a "$@"; }
Z() { $a "$@"; }
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
echo "columns: 8e2e4e3, without the staging on a worker, with it (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular --jobs 4: $(trio 11 "${batch[@]}")"
tl Z "${batch[@]}" > $OUT/trace-batch-staged.txt
for f in Y Z; do rm -rf $w/o; mkdir -p $w/o; $f "${batch[@]}" >/dev/null 2>&1; (cd $w/o && cat *.json *.exr | md5sum) ; done | uniq -c
(cd $w && timeout 240 $OLDPWD/$F/bake_tests "[gpu]" > $OUT/gpu-tests.txt 2>&1; echo "[gpu] tests exit $?")
grep -a -E "^/work.*FAILED|test cases|assertions|with message" $OUT/gpu-tests.txt | head -12
