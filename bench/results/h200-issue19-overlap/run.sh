#!/usr/bin/env bash
# The levels queued behind the source and the analysis beside the specular stage (663e177 and
# after) against c37139d's binary on the card: GPU tests, outputs byte-identical, paired medians
# (A and B alternate, so drift hits both), timelines of the new binary.
#   bash bench/results/h200-issue19-overlap/run.sh build-perf/devrun build-perf/base
set -uo pipefail
F=$1 B=$2/bake-irradiance
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=/tmp/gs; mkdir -p $w/in $w/o $w/a $w/b
for W in 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
for i in $(seq -w 1 20); do $F/make-sample-sky $w/in/b$i.hdr --width 4096 --grain 0.05 --variant $((10#$i)) >/dev/null; done
mkdir -p /work; ln -sfn $PWD /work/main
(cd $w && timeout 200 $OLDPWD/$F/bake_tests "[source],[gpu][specular]" 2>&1 | grep -E "^/work.*FAILED|test cases|assertions|with message|not found" | head -8)
a=$F/bake-irradiance
for in in sky4096 sky8192; do
  $a $w/in/$in.hdr -o $w/a/$in.json --specular $w/a/$in.exr >/dev/null 2>&1; $B $w/in/$in.hdr -o $w/b/$in.json --specular $w/b/$in.exr >/dev/null 2>&1
  cmp -s $w/a/$in.exr $w/b/$in.exr && cmp -s $w/a/$in.json $w/b/$in.json && echo "$in: chain and JSON byte-identical to c37139d's" || echo "$in: OUTPUTS DIFFER"
done
tl() { "$@" >/dev/null 2>&1; local t0=$(date +%s%N)
  BAKE_TRACE=1 "$@" 2>&1 >/dev/null | grep '^trace' | awk -v t0=$t0 '{printf "  %7.1f %s\n", ($2*1e9 - t0)/1e6, substr($0, index($0,$3))}'
  local t1=$(date +%s%N); echo "  $(( (t1-t0)/1000000 )).0 (process gone)"; }
for in in sky4096 sky8192; do
  echo "== timeline (new), --specular $in:"; tl $a $w/in/$in.hdr --specular $w/o/s.exr
  echo "   timings: $($a $w/in/$in.hdr --specular $w/o/s.exr --timings 2>/dev/null | grep -m1 -o 'timings.*' | cut -c1-700)"
done
echo "== timeline (new), batch of 20 (first 45 and last 12 events):"
tl $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" > $w/batch.txt
head -45 $w/batch.txt; echo ...; tail -12 $w/batch.txt
# Paired: each round runs B then A.
pair() { local n=$1; shift; local ta=() tb=()
  "$B" "$@" >/dev/null 2>&1; "$a" "$@" >/dev/null 2>&1
  for ((i=0;i<n;i++)); do
    t0=$(date +%s%N); "$B" "$@" >/dev/null 2>&1; t1=$(date +%s%N); "$a" "$@" >/dev/null 2>&1; t2=$(date +%s%N)
    tb+=($(( (t1-t0)/100000 ))); ta+=($(( (t2-t1)/100000 )))
  done
  mb=$(printf '%s\n' "${tb[@]}" | sort -n | awk -v n=$n '{x[NR]=$1} END {printf "%.4f", x[int((n+1)/2)]/10000}')
  ma=$(printf '%s\n' "${ta[@]}" | sort -n | awk -v n=$n '{x[NR]=$1} END {printf "%.4f", x[int((n+1)/2)]/10000}')
  echo "$mb $ma [B: ${tb[*]}] [A: ${ta[*]}]"; }
{
for in in sky4096 sky8192; do r=$(pair 9 $w/in/$in.hdr --specular $w/o/s.exr); set -- $r; echo "| --specular $in.hdr (s) | $1 | $2 | ${*:3}"; done
r=$(pair 5 $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr"); set -- $r
echo "| batch 20 x 4k --specular (maps/s) | $(awk -v t=$1 'BEGIN{printf "%.1f", 20/t}') | $(awk -v t=$2 'BEGIN{printf "%.1f", 20/t}') | ${*:3}"
} > $w/table.txt
echo "== paired medians (1/10 ms units in brackets): c37139d | new"; cat $w/table.txt
