#!/usr/bin/env bash
# Round 3 timelines (BAKE_TRACE=1, ms since the script started the process): single 4k and 8k
# --specular runs with the specular stage's inner events, and the 20-map batch.
#   bash bench/results/h200-issue19-caps/trace3.sh build-perf/devrun
set -uo pipefail
F=$1
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=/tmp/gs; mkdir -p $w/in $w/o
for W in 4096 8192; do [ -f $w/in/sky$W.hdr ] || $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
for i in $(seq -w 1 20); do $F/make-sample-sky $w/in/b$i.hdr --width 4096 --grain 0.05 --variant $((10#$i)) >/dev/null; done
a=$F/bake-irradiance
tl() { "$@" >/dev/null 2>&1; local t0=$(date +%s%N)
  BAKE_TRACE=1 "$@" 2>&1 >/dev/null | grep '^trace' | awk -v t0=$t0 '{printf "  %7.1f %s\n", ($2*1e9 - t0)/1e6, substr($0, index($0,$3))}'
  local t1=$(date +%s%N); echo "  $(( (t1-t0)/1000000 )).0 (process gone)"; }
for in in sky4096.hdr sky8192.hdr; do
  echo "== timeline, --specular $in:"; tl $a $w/in/$in --specular $w/o/s.exr
  echo "   timings: $($a $w/in/$in --specular $w/o/s.exr --timings 2>/dev/null | grep -m1 -o 'timings.*' | cut -c1-600)"
done
echo "== timeline, batch of 20 with --specular and JSON:"
tl $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" > $w/batch.txt
head -60 $w/batch.txt; echo ...; tail -30 $w/batch.txt
