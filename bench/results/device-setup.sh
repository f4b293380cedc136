# Sourced by the device scripts under bench/results (run on the lent GPU machine, from the
# repository root): installs the GL libraries from .gl/, points the loader at the packed folder's
# libraries, puts the packed binary where the CLI tests look, and makes the benchmark skies in $w:
# sky4096.hdr, sky8192.hdr (grain 0.05) and b01..b20.hdr (4096 x 2048, variants 1..20).
#   F=build-perf/devrun; source bench/results/device-setup.sh
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=${w:-/tmp/gs}; mkdir -p $w/in $w/o $w/a $w/b
for W in 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
for i in $(seq -w 1 20); do $F/make-sample-sky $w/in/b$i.hdr --width 4096 --grain 0.05 --variant $((10#$i)) >/dev/null; done
mkdir -p /work build; ln -sfn $PWD /work/main; cp $F/bake-irradiance build/
# tl CMD...: the process's timeline (BAKE_TRACE=1 events, ms from its start) after one warm-up run.
tl() { "$@" >/dev/null 2>&1; local t0=$(date +%s%N)
  BAKE_TRACE=1 "$@" 2>&1 >/dev/null | grep -a '^trace' | awk -v t0=$t0 '{printf "  %7.1f %s\n", ($2*1e9 - t0)/1e6, substr($0, index($0,$3))}'
  local t1=$(date +%s%N); echo "  $(( (t1-t0)/1000000 )).0 (process gone)"; }
# med N...: the median of tenths of milliseconds, in seconds.
med() { printf '%s\n' "$@" | sort -n | awk '{x[NR]=$1} END {printf "%.4f", x[int((NR+1)/2)]/10000}'; }
# alternate N "F1 F2 ..." ARGS...: the shell functions F1 F2 ... each run with ARGS once (warm-up),
# then N rounds, one after another in that order; prints each one's median (s), then each one's
# times (tenths of ms) in brackets, in the same order. duo / trio: the functions X Y / X Y Z.
alternate() { local n=$1 fs=($2); shift 2; local -A t=(); local f i s0 s1 out="" br=""
  for f in "${fs[@]}"; do "$f" "$@" >/dev/null 2>&1; done
  for ((i=0;i<n;i++)); do for f in "${fs[@]}"; do
    s0=$(date +%s%N); "$f" "$@" >/dev/null 2>&1; s1=$(date +%s%N); t[$f]+="$(( (s1-s0)/100000 )) "
  done; done
  for f in "${fs[@]}"; do out+="$(med ${t[$f]}) "; br+="[${t[$f]% }] "; done
  echo "$out${br% }"; }
duo() { local n=$1; shift; alternate "$n" "X Y" "$@"; }
trio() { local n=$1; shift; alternate "$n" "X Y Z" "$@"; }
