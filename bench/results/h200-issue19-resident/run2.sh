#!/usr/bin/env bash
# Round 2 (and 3): after the texels are no longer sent twice (round 3: also the batch write overlap). Whole-process timelines (BAKE_TRACE=1: ms
# since the script started the process), the write to tmpfs against the disk (what fsync costs),
# before/after medians.
#   carry [".gl", "build-perf/devrun", "build-perf/before"]
#   bash bench/results/h200-issue19-resident/run2.sh build-perf/devrun build-perf/before
set -uo pipefail
F=$1 B=$2/bake-irradiance
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs" BAKE_PROGRAM_CACHE=off
w=/tmp/gs; mkdir -p $w/in $w/o /dev/shm/o
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(nproc) CPU threads; /tmp on $(df --output=source,fstype /tmp | tail -1)"
for W in 2048 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
for i in $(seq -w 1 20); do $F/make-sample-sky $w/in/b$i.hdr --width 4096 --grain 0.05 --variant $((10#$i)) >/dev/null; done
med() { local n=$1; shift; "$@" >/dev/null 2>&1; local ts=()
  for ((i=0;i<n;i++)); do t0=$(date +%s%N); "$@" >/dev/null 2>$w/err || { echo "FAIL"; return; }; t1=$(date +%s%N); ts+=($(( (t1-t0)/1000000 ))); done
  printf '%s\n' "${ts[@]}" | sort -n | awk -v n=$n '{a[NR]=$1} END {printf "%.3f", a[int((n+1)/2)]/1000}'; }
tl() { "$@" >/dev/null 2>&1; local t0=$(date +%s%N)
  BAKE_TRACE=1 "$@" 2>&1 >/dev/null | grep '^trace' | awk -v t0=$t0 '{printf "  %7.1f %s\n", ($2*1e9 - t0)/1e6, substr($0, index($0,$3))}'
  local t1=$(date +%s%N); echo "  $(( (t1-t0)/1000000 )).0 (process gone)"; }
a=$F/bake-irradiance
echo "timeline, --specular sky8192.hdr (disk):"; tl $a $w/in/sky8192.hdr --specular $w/o/s.exr
echo "timeline, --specular sky4096.hdr (disk):"; tl $a $w/in/sky4096.hdr --specular $w/o/s.exr
echo "timeline, SH --device gpu sky2048.hdr:"; tl $a $w/in/sky2048.hdr -o $w/o/c.json --device gpu
echo "timeline, --version:"; tl $a --version
for in in sky4096.hdr sky8192.hdr; do echo "after $in:"; $a $w/in/$in --specular $w/o/s.exr --timings 2>/dev/null | grep -o "timings.*" | sed 's/ (upload, project.*//'; done
rows=()
for in in sky4096.hdr sky8192.hdr; do
  rows+=("| --specular, $in, /tmp | $(med 7 $B $w/in/$in --specular $w/o/s.exr) | $(med 7 $a $w/in/$in --specular $w/o/s.exr) |")
  rows+=("| --specular, $in, /dev/shm | $(med 7 $B $w/in/$in --specular /dev/shm/o/s.exr) | $(med 7 $a $w/in/$in --specular /dev/shm/o/s.exr) |")
done
bt=$(med 3 $B $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
at=$(med 3 $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
rows+=("| batch 20 x 4096 .hdr --specular + JSON (s; maps/s) | $bt; $(awk -v t=$bt 'BEGIN{printf "%.1f", 20/t}') | $at; $(awk -v t=$at 'BEGIN{printf "%.1f", 20/t}') |")
echo; echo "| run (seconds, median of 7; batch of 3) | before | after |"; echo "|---|---|---|"; printf '%s\n' "${rows[@]}"
echo; ./$F/bake-bench --ktx2 --repeats 9 --json ${OUT:-.}/ktx2.json 2>&1 | tail -12
