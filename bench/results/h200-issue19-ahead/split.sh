#!/usr/bin/env bash
# --device auto with the SH side on the CPU beside the GPU's chain (new) against af63c74 (prev,
# the SH on the GPU before the chain), alternating; chains byte-identical, JSON equal to
# --device cpu's; timelines of new.
#   bash bench/results/h200-issue19-ahead/split.sh build-perf/devrun build-perf/af63
set -uo pipefail
F=$1 P=$2/bake-irradiance
source bench/results/device-setup.sh
a=$F/bake-irradiance
(cd $w && timeout 200 $OLDPWD/$F/bake_tests "[specular],[fault],[batch]" 2>&1 | grep -a -E "^/work.*FAILED|test cases|assertions|with message|not found" | head -12)
for in in sky4096 sky8192; do
  $a $w/in/$in.hdr -o $w/a/$in.json --specular $w/a/$in.exr >/dev/null 2>&1; $P $w/in/$in.hdr -o $w/b/$in.json --specular $w/b/$in.exr >/dev/null 2>&1
  $a $w/in/$in.hdr -o $w/a/$in.cpu.json --device cpu >/dev/null 2>&1
  cmp -s $w/a/$in.exr $w/b/$in.exr && echo "$in: chain byte-identical to af63c74's" || echo "$in: CHAINS DIFFER"
  cmp -s $w/a/$in.json $w/a/$in.cpu.json && echo "$in: JSON byte-identical to --device cpu's" || echo "$in: JSON DIFFERS from --device cpu's"
done
for in in sky4096 sky8192; do echo "== timeline (new), --specular $in:"; tl $a $w/in/$in.hdr --specular $w/o/s.exr -o $w/o/s.json; done
echo "== timeline (new), batch of 20 (first 60 events):"
tl $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" > $w/batch.txt; head -60 $w/batch.txt; tail -3 $w/batch.txt
X() { "$P" "$@"; }; Y() { "$a" "$@"; }  # duo (device-setup.sh): af63c74, then new
{
echo "| run | af63c74 | new |"
for in in sky4096 sky8192; do set -- $(duo 11 $w/in/$in.hdr --specular $w/o/s.exr -o $w/o/s.json); echo "| --specular + JSON $in.hdr (s) | $1 | $2 | ${*:3}"; done
set -- $(duo 5 $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
echo "| batch 20 x 4k --specular (maps/s) | $(awk -v t=$1 'BEGIN{printf "%.1f", 20/t}') | $(awk -v t=$2 'BEGIN{printf "%.1f", 20/t}') | ${*:3}"
} > $w/table.txt
echo "== paired medians"; cat $w/table.txt
