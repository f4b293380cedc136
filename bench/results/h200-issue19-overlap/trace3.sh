#!/usr/bin/env bash
# Round 3: timelines with the source's inner events (program, texels, tables, caps, pass queued),
# single 4k and 8k --specular, three runs each, and the first two maps of the batch.
#   bash bench/results/h200-issue19-overlap/trace3.sh build-perf/devrun
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
for in in sky4096 sky8192; do for r in 1 2 3; do
  echo "== timeline, --specular $in (run $r):"; tl $a $w/in/$in.hdr --specular $w/o/s.exr | sed -n '/upload + project/,$p'
done; done
echo "== timeline, batch of 20 (maps 1-3):"
tl $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" | sed -n '/upload + project/,$p' | head -75
