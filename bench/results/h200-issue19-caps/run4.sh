#!/usr/bin/env bash
# Round 4: the prefilter's sample sets made once and early (after: main at the commit this script
# came with; before: build-perf/before/bake-irradiance, ac2a4a5). The GPU tests on the card first.
#   carry [".gl", "build-perf/devrun", "build-perf/before"]
#   bash bench/results/h200-issue19-caps/run4.sh build-perf/devrun build-perf/before
set -uo pipefail
F=$1 B=$2/bake-irradiance
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=/tmp/gs; mkdir -p $w/in $w/o
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(nproc) CPU threads"
for W in 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
for i in $(seq -w 1 20); do $F/make-sample-sky $w/in/b$i.hdr --width 4096 --grain 0.05 --variant $((10#$i)) >/dev/null; done
mkdir -p /work; ln -sfn $PWD /work/main
echo "== GPU source and specular tests on the card"
(cd $w && timeout 300 $OLDPWD/$F/bake_tests "[source],[gpu][specular]" 2>&1 | grep -v "not found" | tail -3)
a=$F/bake-irradiance
$a $w/in/sky8192.hdr --specular $w/o/after.exr >/dev/null 2>&1; $B $w/in/sky8192.hdr --specular $w/o/before.exr >/dev/null 2>&1
cmp -s $w/o/after.exr $w/o/before.exr && echo "8k chain: byte-identical before/after" || echo "8k chain: differs before/after"
med() { local n=$1; shift; "$@" >/dev/null 2>&1; local ts=()
  for ((i=0;i<n;i++)); do t0=$(date +%s%N); "$@" >/dev/null 2>$w/err || { echo "FAIL"; return; }; t1=$(date +%s%N); ts+=($(( (t1-t0)/1000000 ))); done
  printf '%s\n' "${ts[@]}" | sort -n | awk -v n=$n '{a[NR]=$1} END {printf "%.3f", a[int((n+1)/2)]/1000}'; }
rows=()
for in in sky4096.hdr sky8192.hdr; do
  rows+=("| --specular, $in | $(med 9 $B $w/in/$in --specular $w/o/s.exr) | $(med 9 $a $w/in/$in --specular $w/o/s.exr) |")
done
for k in 1 2; do
bt=$(med 3 $B $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
at=$(med 3 $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
rows+=("| batch 20 x 4096 .hdr --specular + JSON (s; maps/s), round $k | $bt; $(awk -v t=$bt 'BEGIN{printf "%.1f", 20/t}') | $at; $(awk -v t=$at 'BEGIN{printf "%.1f", 20/t}') |")
done
echo; echo "| run (s, median of 9; batch of 3) | before (ac2a4a5) | after |"; echo "|---|---|---|"; printf '%s\n' "${rows[@]}"
