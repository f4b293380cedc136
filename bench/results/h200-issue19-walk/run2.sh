#!/usr/bin/env bash
# Round 2: the packed binary's embedded shader ("base": sqrt_d from inversesqrt, locate_guessed)
# against the previous one ("old", variants/old-specular_source.comp) and make-variants2.py's
# variants: the pass's GPU time (3 runs), chains against old's; the GPU source tests on the card
# with base and combo; the polar caps' rings for combo; whole processes, old vs combo, alternating.
#   bash bench/results/h200-issue19-walk/run2.sh   (F=build-perf/devrun)
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance; R=bench/results/h200-issue19-walk; V=/tmp/v2
python3 $R/make-variants2.py shaders/specular_source.comp $V >/dev/null
mkdir -p $V/old; cp $R/variants/old-specular_source.comp $V/old/specular_source.comp
rm -rf $V/base  # base: the embedded shader (no override)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sd() { [ "$1" = base ] && echo "" || echo "$V/$1"; }
for in in sky4096 sky8192; do
  for v in old base nrm atan1 combo hoist rcpf; do
    BAKE_SHADER_DIR=$(sd $v) $a $w/in/$in.hdr --specular $w/o/$in-$v.exr >/dev/null 2>$w/err || { echo "$in $v failed: $(head -c 300 $w/err)"; continue; }
    p=""; for k in 1 2 3; do p="$p $(BAKE_SHADER_DIR=$(sd $v) $a $w/in/$in.hdr --specular $w/o/s.exr --timings 2>/dev/null | grep -m1 -o 'pass [0-9.]*' | cut -d' ' -f2)"; done
    echo "$in $v: pass ms$p | $($F/chain_diff $w/o/$in-old.exr $w/o/$in-$v.exr | tail -1)"
  done
done
for v in base combo; do echo "tests [source] $v: $(BAKE_SHADER_DIR=$(sd $v) $F/bake_tests '[source]' 2>&1 | tail -2 | tr '\n' ' ')"; done
for in in "sky4096 2 4 8" "sky8192 4 8 16"; do set -- $in; m=$1; shift
  for r in "$@"; do p=""; for k in 1 2 3; do p="$p $(BAKE_SOURCE_CAP_RINGS=$r BAKE_SHADER_DIR=$V/combo $a $w/in/$m.hdr --specular $w/o/s.exr --timings 2>/dev/null | grep -m1 -o 'pass [0-9.]*' | cut -d' ' -f2)"; done; echo "$m combo rings $r: pass ms$p"; done
done
X() { BAKE_SHADER_DIR=$V/old $a "$@"; }
Y() { BAKE_SHADER_DIR=$V/combo $a "$@"; }
echo "batch 20 x 4k --specular, old vs combo: $(duo 5 $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")"
echo "single 8k --specular, old vs combo: $(duo 7 $w/in/sky8192.hdr --specular $w/o/s.exr)"
echo "single 4k --specular, old vs combo: $(duo 7 $w/in/sky4096.hdr --specular $w/o/s.exr)"
