#!/usr/bin/env bash
# Three binaries on the card: base (c37139d) | other | new (the packed folder): GPU tests (CLI ones
# included: the binary is put where they look), outputs byte-identical to base's, timelines of new,
# paired medians (the three alternate). OTHER_LABEL names the middle column.
#   bash bench/results/h200-issue19-overlap/trio.sh NEW_DIR BASE_DIR OTHER_DIR OTHER_LABEL
# round2.txt:      trio.sh build-perf/devrun build-perf/base build-perf/r1 663e177   (new: 933707f)
# final-check.txt: trio.sh build-perf/devrun build-perf/base build-perf/r1 663e177   (new: 2cb8fe8)
# round5.txt:      trio.sh build-perf/devrun build-perf/base build-perf/prev ab78c36 (new: 4e75453)
set -uo pipefail
F=$1 B=$2/bake-irradiance R=$3/bake-irradiance L=${4:-other}
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=/tmp/gs; mkdir -p $w/in $w/o $w/a $w/b
for W in 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
for i in $(seq -w 1 20); do $F/make-sample-sky $w/in/b$i.hdr --width 4096 --grain 0.05 --variant $((10#$i)) >/dev/null; done
mkdir -p /work build; ln -sfn $PWD /work/main; cp $F/bake-irradiance build/
(cd $w && timeout 240 $OLDPWD/$F/bake_tests "[source],[gpu][specular],[fault],[cache]" 2>&1 | grep -a -E "^/work.*FAILED|test cases|assertions|with message|not found" | head -12)
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
done
echo "== timeline (new), batch of 20 (first 40 and last 6 events):"
tl $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" > $w/batch.txt
head -40 $w/batch.txt; echo ...; tail -6 $w/batch.txt
# Paired: each round runs base, round 1, new.
med() { printf '%s\n' "$@" | sort -n | awk '{x[NR]=$1} END {printf "%.4f", x[int((NR+1)/2)]/10000}'; }
trio() { local n=$1; shift; local tb=() tr=() ta=()
  "$B" "$@" >/dev/null 2>&1; "$R" "$@" >/dev/null 2>&1; "$a" "$@" >/dev/null 2>&1
  for ((i=0;i<n;i++)); do
    t0=$(date +%s%N); "$B" "$@" >/dev/null 2>&1; t1=$(date +%s%N); "$R" "$@" >/dev/null 2>&1; t2=$(date +%s%N); "$a" "$@" >/dev/null 2>&1; t3=$(date +%s%N)
    tb+=($(( (t1-t0)/100000 ))); tr+=($(( (t2-t1)/100000 ))); ta+=($(( (t3-t2)/100000 )))
  done
  echo "$(med "${tb[@]}") $(med "${tr[@]}") $(med "${ta[@]}") [base: ${tb[*]}] [$L: ${tr[*]}] [new: ${ta[*]}]"; }
{
for in in sky4096 sky8192; do set -- $(trio 9 $w/in/$in.hdr --specular $w/o/s.exr); echo "| --specular $in.hdr (s) | $1 | $2 | $3 | ${*:4}"; done
set -- $(trio 5 $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
echo "| batch 20 x 4k --specular (maps/s) | $(awk -v t=$1 'BEGIN{printf "%.1f", 20/t}') | $(awk -v t=$2 'BEGIN{printf "%.1f", 20/t}') | $(awk -v t=$3 'BEGIN{printf "%.1f", 20/t}') | ${*:4}"
set -- $(trio 7 $w/in/sky4096.hdr -o $w/o/sh.json --device gpu)
echo "| SH 4k --device gpu (s) | $1 | $2 | $3 | ${*:4}"
} > $w/table.txt
echo "== paired medians (1/10 ms units in brackets): c37139d | $L | new"; cat $w/table.txt
