#!/usr/bin/env bash
# The source pass's walk: shader variants (make-variants.sh, variants/) timed by the pass's GPU
# timer (--timings "pass"), 3 runs each, and their chains against the embedded shader's
# (chain_diff); each variant's program binary (NVIDIA's holds its assembly) kept under $OUT.
#   bash bench/results/h200-issue19-walk/run.sh   (F=build-perf/devrun)
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance; R=bench/results/h200-issue19-walk; V=/tmp/v
bash $R/make-variants.sh shaders/specular_source.comp $V >/dev/null
for v in track all; do mkdir -p $V/$v; cp $R/variants/$v/specular_source.comp $V/$v/; done
VARS="full div1 sqrtrs noinl nounr fast track all"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for in in sky4096 sky8192; do
  for v in $VARS; do
    export BAKE_PROGRAM_CACHE=$OUT/cache/$v
    BAKE_SHADER_DIR=$V/$v $a $w/in/$in.hdr --specular $w/o/$in-$v.exr >/dev/null 2>$w/err || { echo "$in $v failed: $(head -c 300 $w/err)"; continue; }
    p=""; for k in 1 2 3; do p="$p $(BAKE_SHADER_DIR=$V/$v $a $w/in/$in.hdr --specular $w/o/s.exr --timings 2>/dev/null | grep -m1 -o 'pass [0-9.]*' | cut -d' ' -f2)"; done
    d=$($F/chain_diff $w/o/$in-full.exr $w/o/$in-$v.exr | tail -1)
    echo "$in $v: pass ms$p | $d"
  done
done
unset BAKE_PROGRAM_CACHE
# The batch (20 x 4k, --specular, JSON) with the embedded shader (X) and the variant "all" (Y),
# alternating, 5 rounds: seconds (median, then each run's tenths of ms).
X() { $a "$@"; }
Y() { BAKE_SHADER_DIR=$V/all $a "$@"; }
echo "batch 20 x 4k --specular, full vs all: $(duo 5 $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")"
echo "single 8k --specular, full vs all: $(duo 7 $w/in/sky8192.hdr --specular $w/o/s.exr)"
cd $OUT && tar czf cache.tgz cache && rm -rf cache
