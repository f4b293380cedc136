#!/usr/bin/env bash
# Round 3: the packed binary's embedded shader (sqrt_d and normalizations from inversesqrt,
# locate_guessed, atan with one division, div_q) against the one before this work ("old"):
# the GPU tests on the card, the pass's GPU time, chains against old's, whole processes
# alternating, and the batch's timeline (trace.txt under $OUT).
#   bash bench/results/h200-issue19-walk/run3.sh   (F=build-perf/devrun)
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance; R=bench/results/h200-issue19-walk; V=/tmp/v3
mkdir -p $V/old; cp $R/variants/old-specular_source.comp $V/old/specular_source.comp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "tests [gpu]: $($F/bake_tests '[gpu]' 2>&1 | tail -2 | tr '\n' ' ')"
for in in sky4096 sky8192; do
  for v in old new; do
    d=""; [ $v = old ] && d=$V/old
    BAKE_SHADER_DIR=$d $a $w/in/$in.hdr --specular $w/o/$in-$v.exr >/dev/null 2>$w/err || { echo "$in $v failed: $(head -c 300 $w/err)"; continue; }
    p=""; for k in 1 2 3; do p="$p $(BAKE_SHADER_DIR=$d $a $w/in/$in.hdr --specular $w/o/s.exr --timings 2>/dev/null | grep -m1 -o 'pass [0-9.]*' | cut -d' ' -f2)"; done
    echo "$in $v: pass ms$p | $($F/chain_diff $w/o/$in-old.exr $w/o/$in-$v.exr | tail -1)"
  done
done
X() { BAKE_SHADER_DIR=$V/old $a "$@"; }
Y() { $a "$@"; }
echo "batch 20 x 4k --specular, old vs new: $(duo 5 $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")"
echo "single 8k --specular, old vs new: $(duo 7 $w/in/sky8192.hdr --specular $w/o/s.exr)"
echo "single 4k --specular, old vs new: $(duo 7 $w/in/sky4096.hdr --specular $w/o/s.exr)"
tl $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" > $OUT/trace-batch.txt
tl $a $w/in/sky8192.hdr --specular $w/o/s.exr > $OUT/trace-8k.txt
tail -3 $OUT/trace-batch.txt
