#!/usr/bin/env bash
# --timings of the specular runs by caps configuration (the source pass's GPU time).
#   bash bench/results/h200-issue19-caps/timings.sh build-perf/devrun
set -uo pipefail
F=$1
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=/tmp/gs; mkdir -p $w/in $w/o
for W in 4096 8192; do [ -f $w/in/sky$W.hdr ] || $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
a=$F/bake-irradiance
for in in sky4096.hdr sky8192.hdr; do
  for cfg in "0 32" "-1 32" "-1 16" "-1 64" "-1 128" "8 32" "14 32" "58 32" "116 32"; do
    set -- $cfg
    "$a" $w/in/$in --specular $w/o/s.exr >/dev/null 2>&1
    for k in 1; do
      echo "$in rings=$1 pieces=$2: $(BAKE_SOURCE_CAP_RINGS=$1 BAKE_SOURCE_CAP_PIECES=$2 $a $w/in/$in --specular $w/o/s.exr --timings 2>/dev/null | grep -m1 -o 'specular [0-9.]* ms (source.*prefilter [0-9.]*)')"
    done
  done
done
