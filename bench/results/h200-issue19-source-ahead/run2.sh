#!/usr/bin/env bash
# After the diagnosis calls (README.md): 8e2e4e3 (X), the new binary with BAKE_SOURCE_AHEAD=0 (Y:
# texels ahead only, with the levels copied on the GPU, the Morton-ordered samples and the
# one-thread copy ahead) and as is (Z), alternating, timed to the shell's wait; timelines of Y
# and Z; the single --specular runs; the prefilter's GPU time (--timings) of each binary.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
X() { $F/bake-irradiance-8e2e4e3 "$@"; }
Y() { BAKE_SOURCE_AHEAD=0 $a "$@"; }
Z() { $a "$@"; }
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
echo "columns: 8e2e4e3, texels ahead only, source ahead (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular --jobs 4: $(trio 11 "${batch[@]}")"
echo "4k --specular: $(trio 7 $w/in/sky4096.hdr --specular $w/o/s.exr --specular-size 256)"
echo "8k --specular: $(trio 7 $w/in/sky8192.hdr --specular $w/o/s.exr --specular-size 256)"
for f in X Z; do for s in 4096 8192; do echo "$f $s: $($f $w/in/sky$s.hdr --specular $w/o/c$s-$f.exr --specular-size 256 --timings 2>/dev/null | grep -o 'prefilter [0-9.]*' | tail -1)"; done; done
$F/chain_diff $w/o/c8192-X.exr $w/o/c8192-Z.exr | tail -1
tl Y "${batch[@]}" > $OUT/trace-batch-texels.txt
tl Z "${batch[@]}" > $OUT/trace-batch-source.txt
for f in Y Z; do rm -rf $w/o; mkdir -p $w/o; $f "${batch[@]}" >/dev/null 2>&1; (cd $w/o && cat *.json *.exr | md5sum) ; done | uniq -c
