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
# alternate (device-setup.sh) over the four environments (drivers.txt was made by this file's own
# copy of it, which printed the medians separated by |).
A() { env $V1 $a "$@"; }; B() { env $V2 $a "$@"; }; C() { env $V3 $a "$@"; }; D() { env $V4 $a "$@"; }
quad() { local n=$1; shift; alternate "$n" "A B C D" "$@"; }
echo "| run | as is | cache off | threaded | both |"
for in in sky4096 sky8192; do echo "| --specular $in | $(quad 9 $w/in/$in.hdr --specular $w/o/s.exr)"; done
echo "| SH 4k --device gpu | $(quad 7 $w/in/sky4096.hdr -o $w/o/sh.json --device gpu)"
