#!/usr/bin/env bash
# Issue 19: the specular source's polar caps done in chunks (shaders/specular_source.comp modes 1, 2).
# "before" = the same binary with BAKE_SOURCE_CAP_RINGS=0 (every texel by one invocation, as before).
#   carry [".gl", "build-perf/devrun"]
#   bash bench/results/h200-issue19-caps/run.sh build-perf/devrun
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
echo "== GPU source tests on the card"
(cd $w && timeout 300 $OLDPWD/$F/bake_tests "[source]" 2>&1 | tail -3)
a=$F/bake-irradiance
pass() { "$@" --timings 2>&1 >/dev/null | grep -o "pass [0-9.]*" | head -1; }
echo "== source pass ms (GPU timer) by rings/pieces"
for in in sky4096.hdr sky8192.hdr; do
  for cfg in "0 32" "auto 32" "auto 16" "auto 64" "half 32" "double 32"; do
    set -- $cfg; W=$(echo $in | tr -dc 0-9); R=$1
    case $R in auto) R=-1;; half) R=$(( (W+141)/142/2 ));; double) R=$(( (W+141)/142*2 ));; esac
    "$a" $w/in/$in --specular $w/o/s.exr >/dev/null 2>&1
    p1=$(BAKE_SOURCE_CAP_RINGS=$R BAKE_SOURCE_CAP_PIECES=$2 pass $a $w/in/$in --specular $w/o/s.exr)
    p2=$(BAKE_SOURCE_CAP_RINGS=$R BAKE_SOURCE_CAP_PIECES=$2 pass $a $w/in/$in --specular $w/o/s.exr)
    echo "$in rings=$1($R) pieces=$2: $p1; $p2"
  done
done
echo "== chains: caps on vs off (max abs diff / max)"
BAKE_SOURCE_CAP_RINGS=0 $a $w/in/sky8192.hdr --specular $w/o/off.exr >/dev/null 2>&1
$a $w/in/sky8192.hdr --specular $w/o/on.exr >/dev/null 2>&1
cmp -s $w/o/off.exr $w/o/on.exr && echo "8k chain byte-identical" || echo "8k chain differs (bytes)"
med() { local n=$1; shift; "$@" >/dev/null 2>&1; local ts=()
  for ((i=0;i<n;i++)); do t0=$(date +%s%N); "$@" >/dev/null 2>$w/err || { echo "FAIL"; return; }; t1=$(date +%s%N); ts+=($(( (t1-t0)/1000000 ))); done
  printf '%s\n' "${ts[@]}" | sort -n | awk -v n=$n '{a[NR]=$1} END {printf "%.3f", a[int((n+1)/2)]/1000}'; }
tl() { "$@" >/dev/null 2>&1; local t0=$(date +%s%N)
  BAKE_TRACE=1 "$@" 2>&1 >/dev/null | grep '^trace' | awk -v t0=$t0 '{printf "  %7.1f %s\n", ($2*1e9 - t0)/1e6, substr($0, index($0,$3))}'
  local t1=$(date +%s%N); echo "  $(( (t1-t0)/1000000 )).0 (process gone)"; }
echo "== timeline, --specular sky8192.hdr (caps auto):"; tl $a $w/in/sky8192.hdr --specular $w/o/s.exr
for in in sky4096.hdr sky8192.hdr; do echo "timings $in:"; $a $w/in/$in --specular $w/o/s.exr --timings 2>&1 >/dev/null | grep -o "timings.*"; done
rows=()
for in in sky4096.hdr sky8192.hdr; do
  rows+=("| --specular, $in | $(BAKE_SOURCE_CAP_RINGS=0 med 7 $a $w/in/$in --specular $w/o/s.exr) | $(med 7 $a $w/in/$in --specular $w/o/s.exr) |")
done
bt=$(BAKE_SOURCE_CAP_RINGS=0 med 3 $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
at=$(med 3 $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
rows+=("| batch 20 x 4096 .hdr --specular + JSON (s; maps/s) | $bt; $(awk -v t=$bt 'BEGIN{printf "%.1f", 20/t}') | $at; $(awk -v t=$at 'BEGIN{printf "%.1f", 20/t}') |")
echo; echo "| run (seconds, median of 7; batch of 3) | caps off (before) | caps on |"; echo "|---|---|---|"; printf '%s\n' "${rows[@]}"
