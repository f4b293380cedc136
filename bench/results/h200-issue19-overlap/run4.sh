#!/usr/bin/env bash
# Round 4: the GPU context destroyed once the last input is computed, beside its write
# (BAKE_EARLY_GPU_RELEASE=1, an experiment) against the same binary without it: timelines and
# paired medians (off, on alternate).
#   bash bench/results/h200-issue19-overlap/run4.sh build-perf/devrun
set -uo pipefail
F=$1
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=/tmp/gs; mkdir -p $w/in $w/o
for W in 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
for i in $(seq -w 1 20); do $F/make-sample-sky $w/in/b$i.hdr --width 4096 --grain 0.05 --variant $((10#$i)) >/dev/null; done
a=$F/bake-irradiance
tl() { "$@" >/dev/null 2>&1; local t0=$(date +%s%N)
  BAKE_TRACE=1 "$@" 2>&1 >/dev/null | grep '^trace' | awk -v t0=$t0 '{printf "  %7.1f %s\n", ($2*1e9 - t0)/1e6, substr($0, index($0,$3))}'
  local t1=$(date +%s%N); echo "  $(( (t1-t0)/1000000 )).0 (process gone)"; }
for in in sky4096 sky8192; do
  echo "== timeline (early release), --specular $in:"; BAKE_EARLY_GPU_RELEASE=1 tl $a $w/in/$in.hdr --specular $w/o/s.exr | sed -n '/prefiltered/,$p'
  echo "== timeline (as now), --specular $in:"; tl $a $w/in/$in.hdr --specular $w/o/s.exr | sed -n '/prefiltered/,$p'
done
echo "== timeline (early release), batch:"; BAKE_EARLY_GPU_RELEASE=1 tl $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" | tail -12
med() { printf '%s\n' "$@" | sort -n | awk '{x[NR]=$1} END {printf "%.4f", x[int((NR+1)/2)]/10000}'; }
pair() { local n=$1; shift; local t0_=() t1_=()
  "$a" "$@" >/dev/null 2>&1; BAKE_EARLY_GPU_RELEASE=1 "$a" "$@" >/dev/null 2>&1
  for ((i=0;i<n;i++)); do
    t0=$(date +%s%N); "$a" "$@" >/dev/null 2>&1; t1=$(date +%s%N); BAKE_EARLY_GPU_RELEASE=1 "$a" "$@" >/dev/null 2>&1; t2=$(date +%s%N)
    t0_+=($(( (t1-t0)/100000 ))); t1_+=($(( (t2-t1)/100000 )))
  done
  echo "$(med "${t0_[@]}") $(med "${t1_[@]}") [now: ${t0_[*]}] [early: ${t1_[*]}]"; }
{
for in in sky4096 sky8192; do set -- $(pair 9 $w/in/$in.hdr --specular $w/o/s.exr); echo "| --specular $in.hdr (s) | $1 | $2 | ${*:3}"; done
set -- $(pair 5 $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
echo "| batch 20 x 4k --specular (maps/s) | $(awk -v t=$1 'BEGIN{printf "%.1f", 20/t}') | $(awk -v t=$2 'BEGIN{printf "%.1f", 20/t}') | ${*:3}"
set -- $(pair 9 $w/in/sky4096.hdr -o $w/o/sh.json --device gpu); echo "| SH 4k --device gpu (s) | $1 | $2 | ${*:3}"
set -- $(pair 9 $w/in/sky8192.hdr -o $w/o/sh.json --device gpu); echo "| SH 8k --device gpu (s) | $1 | $2 | ${*:3}"
} > $w/table.txt
echo "== paired medians (1/10 ms units in brackets): as now | early release"; cat $w/table.txt
