#!/usr/bin/env bash
# Which change made the per-texel pass slow (round6.txt): the source pass's GPU time, 4k and 8k,
# for shader variants through BAKE_SHADER_DIR (v0_old: 4cd99ec's shader; current: the commit's;
# v1 the original single-sided add_piece; v2 cap_items readonly; v3 no modes 3/5 in main; v4 all;
# v5 v1+v2). BAKE_SOURCE_EDGES=0 (mode 0) for all; =1 for current and v1.
#   bash bench/results/h200-issue19-caps/variants/run.sh build-perf/devrun
set -uo pipefail
F=$1
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs" BAKE_PROGRAM_CACHE=off
w=/tmp/gs; mkdir -p $w/in $w/o
for W in 4096 8192; do [ -f $w/in/sky$W.hdr ] || $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
a=$F/bake-irradiance
V=$PWD/bench/results/h200-issue19-caps/variants
pass() { "$@" --timings 2>/dev/null | grep -m1 -o 'pass [0-9.]*' | cut -d' ' -f2; }
for in in sky4096.hdr sky8192.hdr; do
  for v in v0_old current v1_direct v2_readonly v3_no35 v4_all v5_direct_readonly; do
    for e in 0 1; do
      case "$e:$v" in 1:current|1:v1_direct) ;; 1:*) continue;; esac
      r="$(BAKE_SOURCE_EDGES=$e BAKE_SHADER_DIR=$V/$v pass $a $w/in/$in --specular $w/o/s.exr) $(BAKE_SOURCE_EDGES=$e BAKE_SHADER_DIR=$V/$v pass $a $w/in/$in --specular $w/o/s.exr)"
      echo "$in $v edges=$e: pass ms $r"
    done
  done
done
