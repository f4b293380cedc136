#!/usr/bin/env bash
# Driver settings, no code: one binary (new) under four environments, alternating: as is; our
# program cache off (NVIDIA's own shader disk cache then serves the compiles); NVIDIA's threaded
# optimisations on (__GL_THREADED_OPTIMIZATIONS=1: GL calls queued to a driver thread); both.
# Timelines of 4k --specular under each, paired medians of 4k and 8k --specular.
#   bash bench/results/h200-issue19-ahead/drivers.sh build-perf/devrun
set -uo pipefail
F=$1
source bench/results/device-setup.sh
a=$F/bake-irradiance
V1=""; V2="BAKE_PROGRAM_CACHE=off"; V3="__GL_THREADED_OPTIMIZATIONS=1"; V4="BAKE_PROGRAM_CACHE=off __GL_THREADED_OPTIMIZATIONS=1"
for v in "$V1" "$V2" "$V3" "$V4"; do
  env $v $a $w/in/sky4096.hdr --specular $w/o/s.exr >/dev/null 2>&1
  echo "== timeline [$v], --specular sky4096:"; tl env $v $a $w/in/sky4096.hdr --specular $w/o/s.exr | grep -a -E "context|program|pass queued|levels queued|prefiltered|written|gone"
done
quad() { local n=$1; shift; local t1=() t2=() t3=() t4=()
  for ((i=0;i<n;i++)); do
    s0=$(date +%s%N); env $V1 $a "$@" >/dev/null 2>&1; s1=$(date +%s%N); env $V2 $a "$@" >/dev/null 2>&1; s2=$(date +%s%N)
    env $V3 $a "$@" >/dev/null 2>&1; s3=$(date +%s%N); env $V4 $a "$@" >/dev/null 2>&1; s4=$(date +%s%N)
    t1+=($(( (s1-s0)/100000 ))); t2+=($(( (s2-s1)/100000 ))); t3+=($(( (s3-s2)/100000 ))); t4+=($(( (s4-s3)/100000 )))
  done
  echo "$(med "${t1[@]}") | $(med "${t2[@]}") | $(med "${t3[@]}") | $(med "${t4[@]}") | [${t1[*]}] [${t2[*]}] [${t3[*]}] [${t4[*]}]"; }
echo "| run | as is | cache off | threaded | both |"
for in in sky4096 sky8192; do echo "| --specular $in | $(quad 9 $w/in/$in.hdr --specular $w/o/s.exr)"; done
echo "| SH 4k --device gpu | $(quad 7 $w/in/sky4096.hdr -o $w/o/sh.json --device gpu)"
