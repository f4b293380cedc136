#!/usr/bin/env bash
# Round 2: the source's texture filled by a compute pass (before: BAKE_SOURCE_TEXTURE_COPY=unpack,
# an RGB pixel-unpack copy), the chain EXR's codec by trial (ZIP only where it pays), the caps' rings.
#   carry [".gl", "build-perf/devrun"]
#   bash bench/results/h200-issue19-caps/run2.sh build-perf/devrun
set -uo pipefail
F=$1
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=/tmp/gs; mkdir -p $w/in $w/o
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(nproc) CPU threads"
for W in 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
for i in $(seq -w 1 20); do $F/make-sample-sky $w/in/b$i.hdr --width 4096 --grain 0.05 --variant $((10#$i)) >/dev/null; done
mkdir -p /work; ln -sfn $PWD /work/main
echo "== GPU source and specular tests on the card"
(cd $w && timeout 300 $OLDPWD/$F/bake_tests "[source],[gpu][specular]" 2>&1 | tail -2)
a=$F/bake-irradiance
det() { "$@" --timings 2>/dev/null | grep -m1 -o 'specular [0-9.]* ms (source.*prefilter [0-9.]*)'; }
echo "== texture copy: unpack (before) vs compute (after)"
for in in sky4096.hdr sky8192.hdr; do
  $a $w/in/$in --specular $w/o/s.exr >/dev/null 2>&1
  echo "$in unpack:  $(BAKE_SOURCE_TEXTURE_COPY=unpack det $a $w/in/$in --specular $w/o/s.exr)"
  echo "$in compute: $(det $a $w/in/$in --specular $w/o/s.exr)"
done
echo "== caps rings: source pass GPU ms"
for in in sky4096.hdr sky8192.hdr; do
  for R in 0 2 4 8 16 -1; do
    echo "$in rings=$R: $(BAKE_SOURCE_CAP_RINGS=$R det $a $w/in/$in --specular $w/o/s.exr | grep -o 'pass [0-9.]*'); $(BAKE_SOURCE_CAP_RINGS=$R det $a $w/in/$in --specular $w/o/s.exr | grep -o 'pass [0-9.]*')"
  done
done
echo "== chain EXR codec chosen, size"
$a $w/in/sky8192.hdr --specular $w/o/c8.exr >/dev/null 2>&1; ls -l $w/o/c8.exr | awk '{print "8k chain: " $5 " bytes"}'
med() { local n=$1; shift; "$@" >/dev/null 2>&1; local ts=()
  for ((i=0;i<n;i++)); do t0=$(date +%s%N); "$@" >/dev/null 2>$w/err || { echo "FAIL"; return; }; t1=$(date +%s%N); ts+=($(( (t1-t0)/1000000 ))); done
  printf '%s\n' "${ts[@]}" | sort -n | awk -v n=$n '{a[NR]=$1} END {printf "%.3f", a[int((n+1)/2)]/1000}'; }
tl() { "$@" >/dev/null 2>&1; local t0=$(date +%s%N)
  BAKE_TRACE=1 "$@" 2>&1 >/dev/null | grep '^trace' | awk -v t0=$t0 '{printf "  %7.1f %s\n", ($2*1e9 - t0)/1e6, substr($0, index($0,$3))}'
  local t1=$(date +%s%N); echo "  $(( (t1-t0)/1000000 )).0 (process gone)"; }
echo "== timeline, --specular sky8192.hdr:"; tl $a $w/in/sky8192.hdr --specular $w/o/s.exr
echo "== timeline, --specular sky4096.hdr:"; tl $a $w/in/sky4096.hdr --specular $w/o/s.exr
rows=()
for in in sky4096.hdr sky8192.hdr; do
  rows+=("| --specular, $in | $(BAKE_SOURCE_TEXTURE_COPY=unpack med 7 $a $w/in/$in --specular $w/o/s.exr) | $(med 7 $a $w/in/$in --specular $w/o/s.exr) |")
done
bt=$(BAKE_SOURCE_TEXTURE_COPY=unpack med 3 $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
at=$(med 3 $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
rows+=("| batch 20 x 4096 .hdr --specular + JSON (s; maps/s) | $bt; $(awk -v t=$bt 'BEGIN{printf "%.1f", 20/t}') | $at; $(awk -v t=$at 'BEGIN{printf "%.1f", 20/t}') |")
echo; echo "| run (s, median of 7; batch of 3) | texture by unpack | texture by compute |"; echo "|---|---|---|"; printf '%s\n' "${rows[@]}"
