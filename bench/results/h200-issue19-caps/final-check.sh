#!/usr/bin/env bash
# The final code (3d08d2e) on the card: the GPU source and specular tests, the 8k chain against
# ac2a4a5's, and medians against ac2a4a5's binary.
#   bash bench/results/h200-issue19-caps/final-check.sh build-perf/devrun build-perf/before
set -uo pipefail
F=$1 B=$2/bake-irradiance
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=/tmp/gs; mkdir -p $w/in $w/o
for W in 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
for i in $(seq -w 1 20); do $F/make-sample-sky $w/in/b$i.hdr --width 4096 --grain 0.05 --variant $((10#$i)) >/dev/null; done
mkdir -p /work; ln -sfn $PWD /work/main
(cd $w && timeout 200 $OLDPWD/$F/bake_tests "[source],[gpu][specular]" 2>&1 | grep -E "^/work.*FAILED|test cases|assertions|with message|not found" | head -8)
a=$F/bake-irradiance
$a $w/in/sky8192.hdr --specular $w/o/a.exr >/dev/null 2>&1; $B $w/in/sky8192.hdr --specular $w/o/b.exr >/dev/null 2>&1
cmp -s $w/o/a.exr $w/o/b.exr && echo "8k chain byte-identical to ac2a4a5's" || echo "8k chain differs from ac2a4a5's"
med() { local n=$1; shift; "$@" >/dev/null 2>&1; local ts=()
  for ((i=0;i<n;i++)); do t0=$(date +%s%N); "$@" >/dev/null 2>$w/err || { echo "FAIL"; return; }; t1=$(date +%s%N); ts+=($(( (t1-t0)/1000000 ))); done
  printf '%s\n' "${ts[@]}" | sort -n | awk -v n=$n '{a[NR]=$1} END {printf "%.3f", a[int((n+1)/2)]/1000}'; }
for in in sky4096.hdr sky8192.hdr; do echo "| --specular $in | $(med 7 $B $w/in/$in --specular $w/o/s.exr) | $(med 7 $a $w/in/$in --specular $w/o/s.exr) |"; done
bt=$(med 3 $B $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
at=$(med 3 $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
echo "| batch 20 x 4k --specular (maps/s) | $(awk -v t=$bt 'BEGIN{printf "%.1f", 20/t}') | $(awk -v t=$at 'BEGIN{printf "%.1f", 20/t}') |"
