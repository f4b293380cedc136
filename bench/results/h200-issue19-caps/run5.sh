#!/usr/bin/env bash
# Round 5: the source pass by edges (modes 3-5) against every texel by itself (BAKE_SOURCE_EDGES=0,
# same binary) and against ac2a4a5's binary (build-perf/before). The GPU tests on the card first.
#   carry [".gl", "build-perf/devrun", "build-perf/before"]
#   bash bench/results/h200-issue19-caps/run5.sh build-perf/devrun build-perf/before
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
echo "== GPU source and specular tests on the card (the CLI tests need build/, not carried)"
(cd $w && timeout 300 $OLDPWD/$F/bake_tests "[source],[gpu][specular]" 2>&1 | grep -E "FAILED|^/work|test cases|assertions|passed" | grep -v "test_cli" | tail -8)
a=$F/bake-irradiance
for e in 1 0; do BAKE_SOURCE_EDGES=$e $a $w/in/sky8192.hdr --specular $w/o/e$e.exr >/dev/null 2>&1; done
$B $w/in/sky8192.hdr --specular $w/o/before.exr >/dev/null 2>&1
cmp -s $w/o/e1.exr $w/o/e0.exr && echo "8k chain: by edges = by texels, byte for byte" || echo "8k chain: by edges differs from by texels (bytes)"
cmp -s $w/o/e0.exr $w/o/before.exr && echo "8k chain: by texels = before, byte for byte" || echo "8k chain: by texels differs from before"
det() { "$@" --timings 2>/dev/null | grep -m1 -o 'specular [0-9.]* ms (source.*prefilter [0-9.]*)'; }
for in in sky4096.hdr sky8192.hdr; do for e in 0 1; do
  $a $w/in/$in --specular $w/o/s.exr >/dev/null 2>&1
  echo "$in edges=$e: $(BAKE_SOURCE_EDGES=$e det $a $w/in/$in --specular $w/o/s.exr)"
  echo "$in edges=$e: $(BAKE_SOURCE_EDGES=$e det $a $w/in/$in --specular $w/o/s.exr | grep -o 'pass [0-9.]*')"
done; done
med() { local n=$1; shift; "$@" >/dev/null 2>&1; local ts=()
  for ((i=0;i<n;i++)); do t0=$(date +%s%N); "$@" >/dev/null 2>$w/err || { echo "FAIL"; return; }; t1=$(date +%s%N); ts+=($(( (t1-t0)/1000000 ))); done
  printf '%s\n' "${ts[@]}" | sort -n | awk -v n=$n '{a[NR]=$1} END {printf "%.3f", a[int((n+1)/2)]/1000}'; }
rows=()
for in in sky4096.hdr sky8192.hdr; do
  rows+=("| --specular, $in | $(med 9 $B $w/in/$in --specular $w/o/s.exr) | $(BAKE_SOURCE_EDGES=0 med 9 $a $w/in/$in --specular $w/o/s.exr) | $(med 9 $a $w/in/$in --specular $w/o/s.exr) |")
done
for k in 1 2; do
bt=$(med 3 $B $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
mt=$(BAKE_SOURCE_EDGES=0 med 3 $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
at=$(med 3 $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
rows+=("| batch 20 x 4096 .hdr --specular + JSON (maps/s), round $k | $(awk -v t=$bt 'BEGIN{printf "%.1f", 20/t}') | $(awk -v t=$mt 'BEGIN{printf "%.1f", 20/t}') | $(awk -v t=$at 'BEGIN{printf "%.1f", 20/t}') |")
done
echo; echo "| run (s, median of 9; batch of 3) | ac2a4a5 | now, texels by themselves | now, by edges |"; echo "|---|---|---|---|"; printf '%s\n' "${rows[@]}"
