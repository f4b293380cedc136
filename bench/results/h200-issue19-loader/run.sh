#!/usr/bin/env bash
# The program loader (src/gpu/program_loader.h) on the card: one binary with the loader off
# (BAKE_PROGRAM_LOADER=0) and on, beside c37139d's binary (the round's base), alternating; GPU tests
# (the cache's included: the loader makes their programs), outputs byte-identical to base's,
# timelines with the loader on.
#   bash bench/results/h200-issue19-loader/run.sh build-perf/devrun build-perf/base
set -uo pipefail
F=$1 B=$2/bake-irradiance
source bench/results/device-setup.sh
a=$F/bake-irradiance
(cd $w && timeout 240 $OLDPWD/$F/bake_tests "[source],[gpu][specular],[fault],[cache],[gpu][cli]" 2>&1 | grep -a -E "^/work.*FAILED|test cases|assertions|with message|not found" | head -12)
for in in sky4096 sky8192; do
  $a $w/in/$in.hdr -o $w/a/$in.json --specular $w/a/$in.exr >/dev/null 2>&1; $B $w/in/$in.hdr -o $w/b/$in.json --specular $w/b/$in.exr >/dev/null 2>&1
  cmp -s $w/a/$in.exr $w/b/$in.exr && cmp -s $w/a/$in.json $w/b/$in.json && echo "$in: chain and JSON byte-identical to c37139d's" || echo "$in: OUTPUTS DIFFER"
done
for in in sky4096 sky8192; do
  echo "== timeline (loader on), --specular $in:"; tl $a $w/in/$in.hdr --specular $w/o/s.exr
  echo "== timeline (loader off), --specular $in:"; tl env BAKE_PROGRAM_LOADER=0 $a $w/in/$in.hdr --specular $w/o/s.exr
done
# trio (device-setup.sh): base, loader off, loader on (round1.txt was made by this file's own copy
# of it, which labelled the brackets base:, off:, on:).
X() { "$B" "$@"; }; Y() { BAKE_PROGRAM_LOADER=0 "$a" "$@"; }; Z() { "$a" "$@"; }
{
for in in sky4096 sky8192; do set -- $(trio 9 $w/in/$in.hdr --specular $w/o/s.exr); echo "| --specular $in.hdr (s) | $1 | $2 | $3 | ${*:4}"; done
set -- $(trio 5 $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
echo "| batch 20 x 4k --specular (maps/s) | $(awk -v t=$1 'BEGIN{printf "%.1f", 20/t}') | $(awk -v t=$2 'BEGIN{printf "%.1f", 20/t}') | $(awk -v t=$3 'BEGIN{printf "%.1f", 20/t}') | ${*:4}"
set -- $(trio 7 $w/in/sky4096.hdr -o $w/o/sh.json --device gpu)
echo "| SH 4k --device gpu (s) | $1 | $2 | $3 | ${*:4}"
} > $w/table.txt
echo "== paired medians (1/10 ms units in brackets): c37139d | loader off | loader on"; cat $w/table.txt
