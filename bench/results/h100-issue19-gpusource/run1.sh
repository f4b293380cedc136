#!/usr/bin/env bash
# Run 1: where the specular source's time goes on the H100 machine (16 cores), CPU source (before)
# against the GPU source (after), one binary: BAKE_SPECULAR_SOURCE=cpu gives the CPU's averages.
set -uo pipefail
F=$1
b=$F/bake-irradiance
w=/tmp/m1; mkdir -p $w/in $w/o
for W in 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
nproc; lscpu | grep -E 'Model name|^CPU\(s\)|Thread|NUMA node\(s\)'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
med() { # median wall of N runs after a warm-up
  local n=$1; shift; "$@" >/dev/null 2>&1; local ts=()
  for ((i=0;i<n;i++)); do t0=$(date +%s%N); "$@" >/dev/null 2>$w/err || { echo FAIL; cat $w/err; return; }; t1=$(date +%s%N); ts+=($(( (t1-t0)/1000000 ))); done
  printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]/1000}'
}
echo "== CPU source (before), 8k, --device gpu, by --threads"
for th in 1 4 8 16; do echo "threads $th"; BAKE_SPECULAR_SOURCE=cpu $b $w/in/sky8192.hdr --specular $w/o/s.exr --device gpu --timings --threads $th | grep timings; done
echo "== before: CPU source, gpu x2 each size"
for W in 4096 8192; do for r in 1 2; do BAKE_SPECULAR_SOURCE=cpu $b $w/in/sky$W.hdr --specular $w/o/s.exr --device gpu --timings | grep timings; done; done
echo "== after: GPU source, gpu x2, auto x1 each size"
for W in 4096 8192; do for r in 1 2; do $b $w/in/sky$W.hdr --specular $w/o/s.exr --device gpu --timings | grep timings; done; $b $w/in/sky$W.hdr --specular $w/o/s.exr --timings --report $w/o/r.json | grep timings; grep -o '"computed_by":"[a-z]*"' $w/o/r.json | head -3; done
echo "== whole process medians of 5: before (CPU source) / after (GPU source)"
for W in 4096 8192; do
  echo "sky$W before auto $(BAKE_SPECULAR_SOURCE=cpu med 5 $b $w/in/sky$W.hdr --specular $w/o/s.exr) gpu $(BAKE_SPECULAR_SOURCE=cpu med 5 $b $w/in/sky$W.hdr --specular $w/o/s.exr --device gpu)"
  echo "sky$W after auto $(med 5 $b $w/in/sky$W.hdr --specular $w/o/s.exr) gpu $(med 5 $b $w/in/sky$W.hdr --specular $w/o/s.exr --device gpu)"
done
echo "== cpu device 8k, one run, timings"; $b $w/in/sky8192.hdr --specular $w/o/s.exr --device cpu --timings | grep timings
echo "== SH only 8k gpu"; $b $w/in/sky8192.hdr -o $w/o/a.json --device gpu --timings | grep timings
if [ -x $F/bake_tests ]; then echo "== tests"; $F/bake_tests "[source]" 2>&1 | tail -15; fi
