#!/usr/bin/env bash
# Does the source pass's program pay for its cap modes' code (NVIDIA allocates registers for
# every path)? Source pass GPU times (--timings' "pass") of: the shader as is with the caps
# (default), as is with every texel whole (BAKE_SOURCE_CAP_RINGS=0), and mode0/ (u_mode fixed to 0,
# modes 1 and 2 compiled out) with every texel whole.
#   bash bench/results/h200-issue19-ahead/modes.sh build-perf/devrun
set -uo pipefail
F=$1
source bench/results/device-setup.sh
a=$F/bake-irradiance
D=$PWD/bench/results/h200-issue19-ahead/mode0
pass() { for i in 1 2 3 4 5; do env "$@" $a $IN --specular $w/o/s.exr --timings 2>/dev/null | grep -a -o "pass [0-9.]*" | head -1 | cut -d' ' -f2; done | sort -n | tr '\n' ' '; }
for IN in $w/in/sky4096.hdr $w/in/sky8192.hdr; do
  echo "$(basename $IN): caps (default): $(pass X=1)"
  echo "$(basename $IN): no caps:        $(pass BAKE_SOURCE_CAP_RINGS=0)"
  echo "$(basename $IN): no caps, mode0: $(pass BAKE_SOURCE_CAP_RINGS=0 BAKE_SHADER_DIR=$D)"
done
