#!/usr/bin/env bash
# Issue 19, the specular source kept on the GPU (mips made there, no read back, bright split at
# decode): the GPU tests on the card, then whole processes, before (build-perf/before: main with
# the GPU source, read back) and after (the packed folder), same call, median of 7 after a warm-up.
#   carry [".gl", "build-perf/devrun", "build-perf/before"]
#   bash bench/results/h200-issue19-resident/run.sh build-perf/devrun build-perf/before
set -uo pipefail
F=$1 B=$2/bake-irradiance
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs" BAKE_PROGRAM_CACHE=off
mkdir -p /work; ln -sfn "$PWD" /work/main 2>/dev/null
mkdir -p /work/main/build; ln -sfn "$PWD/$F/bake-irradiance" /work/main/build/bake-irradiance
w=/tmp/gs; mkdir -p $w/in $w/o
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(nproc) CPU threads"
(cd $w && timeout 240 /work/main/$F/bake_tests "[source],[gpu][specular],[specular][energy],[cli][specular]" > ${OUT:-.}/tests.txt 2>&1; echo "tests rc $?")
grep -E "test cases|All tests passed" ${OUT:-.}/tests.txt | tail -2
for W in 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
$F/make-sample-sky $w/in/half8192.exr --width 8192 --half --compression dwab --grain 0.02 >/dev/null
for i in $(seq -w 1 20); do $F/make-sample-sky $w/in/b$i.hdr --width 4096 --grain 0.05 --variant $((10#$i)) >/dev/null; done
med() { local n=$1; shift; "$@" >/dev/null 2>&1; local ts=()
  for ((i=0;i<n;i++)); do t0=$(date +%s%N); "$@" >/dev/null 2>$w/err || { echo "FAIL"; return; }; t1=$(date +%s%N); ts+=($(( (t1-t0)/1000000 ))); done
  printf '%s\n' "${ts[@]}" | sort -n | awk -v n=$n '{a[NR]=$1} END {printf "%.3f", a[int((n+1)/2)]/1000}'; }
a=$F/bake-irradiance
rows=()
for in in sky4096.hdr sky8192.hdr half8192.exr; do
  rows+=("| --specular, $in | $(med 7 $B $w/in/$in --specular $w/o/s.exr) | $(med 7 $a $w/in/$in --specular $w/o/s.exr) |")
done
rows+=("| SH only, sky8192.hdr | $(med 7 $B $w/in/sky8192.hdr -o $w/o/c.json) | $(med 7 $a $w/in/sky8192.hdr -o $w/o/c.json) |")
bt=$(med 3 $B $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
at=$(med 3 $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
rows+=("| batch 20 x 4096 .hdr --specular + JSON (s; maps/s) | $bt; $(awk -v t=$bt 'BEGIN{printf "%.1f", 20/t}') | $at; $(awk -v t=$at 'BEGIN{printf "%.1f", 20/t}') |")
for in in sky4096.hdr sky8192.hdr; do echo "after $in:"; $a $w/in/$in --specular $w/o/s.exr --timings 2>/dev/null | grep -o "timings.*" | sed 's/ (upload, project.*//'; done
$a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" --timings 2>/dev/null | grep -o "timings.*" | sed 's/ (upload, project.*//' | tail -3
# Outputs of the two builds on one map: the kept source must give the same chain to float rounding.
$B $w/in/sky8192.hdr --specular $w/o/before.exr >/dev/null 2>&1; $a $w/in/sky8192.hdr --specular $w/o/after.exr >/dev/null 2>&1
cmp -s $w/o/before.exr $w/o/after.exr && echo "8k chain: byte-identical before/after" || echo "8k chain: differs before/after (see compare below)"
echo; echo "| run (seconds, median) | before | after |"; echo "|---|---|---|"; printf '%s\n' "${rows[@]}"
