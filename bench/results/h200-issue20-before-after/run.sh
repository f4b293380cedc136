#!/usr/bin/env bash
# Issue 20's check: whole-process timings before the restructure (ddb5952) and after (main), in one
# call on one machine, --device forced (the restructure is not meant to change either path; auto's
# choice changed by design in between). Median of 7 after a warm-up, seconds.
#   carry [".gl", "build-perf/devrun"]   bash bench/results/h200-issue20-before-after/run.sh build-perf/devrun
set -uo pipefail
F=$1
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=/tmp/ba; mkdir -p $w/in $w/o
for W in 2048 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
$F/make-sample-sky $w/in/dwab8192.exr --width 8192 --half --compression dwab --grain 0.02 >/dev/null
for k in $(seq 1 20); do $F/make-sample-sky $w/in/b$k.hdr --width 4096 --variant $k --grain 0.02 >/dev/null; done
med() { "$@" >/dev/null 2>&1; local ts=()
  for ((i=0;i<7;i++)); do t0=$(date +%s%N); "$@" >/dev/null 2>$w/err || { echo "FAIL"; return; }; t1=$(date +%s%N); ts+=($(( (t1-t0)/1000000 ))); done
  printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[4]/1000}'; }
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(nproc) CPU threads"
echo "| run | device | before (ddb5952) | after (main) | after/before |"; echo "|---|---|---|---|---|"
row() { local label=$1 d=$2; shift 2
  local b a; b=$(med $F/before/bake-irradiance "$@" --device $d); a=$(med $F/bake-irradiance "$@" --device $d)
  echo "| $label | $d | $b | $a | $(awk -v a=$a -v b=$b 'BEGIN{ if (b>0) printf "%.2f", a/b; else print "-" }') |"; }
for d in cpu gpu; do
  for W in 2048 4096 8192; do row "SH order 3, ${W} .hdr" $d $w/in/sky$W.hdr -o $w/o/a.json; done
  row "SH order 3, 8192 half DWAB" $d $w/in/dwab8192.exr -o $w/o/a.json
  row "batch 20 x 4096 .hdr, JSON, --jobs 4" $d $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --jobs 4
  row "irradiance map 64, 4096 .hdr" $d $w/in/sky4096.hdr -o $w/o/a.exr --size 64
done
