#!/usr/bin/env bash
# This round on the card: the next input's texels sent ahead in a batch (BAKE_UPLOAD_AHEAD=0 turns
# it off in the same binary), the source's tables made on a worker, an output set flushed at once.
# Binaries: base (c37139d), prev (602c7ee: main before this round), new (the packed folder).
# GPU tests (CLI ones included), outputs byte-identical to base's (single) and prev's (batch),
# timelines of new, paired medians (alternating).
#   bash bench/results/h200-issue19-ahead/run.sh build-perf/devrun build-perf/base build-perf/p602
set -uo pipefail
F=$1 B=$2/bake-irradiance P=$3/bake-irradiance
source bench/results/device-setup.sh
a=$F/bake-irradiance
(cd $w && timeout 240 $OLDPWD/$F/bake_tests "[source],[gpu][specular],[fault],[cache],[batch]" 2>&1 | grep -a -E "^/work.*FAILED|test cases|assertions|with message|not found" | head -12)
for in in sky4096 sky8192; do
  $a $w/in/$in.hdr -o $w/a/$in.json --specular $w/a/$in.exr >/dev/null 2>&1; $B $w/in/$in.hdr -o $w/b/$in.json --specular $w/b/$in.exr >/dev/null 2>&1
  cmp -s $w/a/$in.exr $w/b/$in.exr && cmp -s $w/a/$in.json $w/b/$in.json && echo "$in: chain and JSON byte-identical to c37139d's" || echo "$in: OUTPUTS DIFFER"
done
mkdir -p $w/ba $w/bp
$a $w/in/b*.hdr --out-dir $w/ba --name '{stem}.json' --specular "$w/ba/{stem}_s.exr" >/dev/null 2>&1
$P $w/in/b*.hdr --out-dir $w/bp --name '{stem}.json' --specular "$w/bp/{stem}_s.exr" >/dev/null 2>&1
diff -rq $w/ba $w/bp >/dev/null && echo "batch: 40 outputs byte-identical to 602c7ee's ($(ls $w/ba | wc -l) files)" || echo "batch: OUTPUTS DIFFER"
for in in sky4096 sky8192; do echo "== timeline (new), --specular $in:"; tl $a $w/in/$in.hdr --specular $w/o/s.exr; done
echo "== timeline (new), batch of 20 (events of maps 1-3, and the end):"
tl $a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" > $w/batch.txt
head -75 $w/batch.txt; echo ...; tail -6 $w/batch.txt
# trio (device-setup.sh): the three binaries as X, Y, Z, alternating.
X() { "$B" "$@"; }; Y() { "$P" "$@"; }; Z() { "$a" "$@"; }
{
echo "| run | c37139d | 602c7ee | new |"
for in in sky4096 sky8192; do set -- $(trio 9 $w/in/$in.hdr --specular $w/o/s.exr -o $w/o/s.json); echo "| --specular + JSON $in.hdr (s) | $1 | $2 | $3 | ${*:4}"; done
set -- $(trio 7 $w/in/sky4096.hdr -o $w/o/sh.json --device gpu)
echo "| SH 4k --device gpu (s) | $1 | $2 | $3 | ${*:4}"
set -- $(trio 7 $w/in/sky4096.hdr -o $w/o/sh.json -o $w/o/sh.exr --device cpu)
echo "| SH 4k JSON + EXR map --device cpu (s) | $1 | $2 | $3 | ${*:4}"
echo "| run | 602c7ee | new, BAKE_UPLOAD_AHEAD=0 | new |"
X() { "$P" "$@"; }; Y() { BAKE_UPLOAD_AHEAD=0 "$a" "$@"; }; Z() { "$a" "$@"; }
set -- $(trio 5 $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
echo "| batch 20 x 4k --specular (maps/s) | $(awk -v t=$1 'BEGIN{printf "%.1f", 20/t}') | $(awk -v t=$2 'BEGIN{printf "%.1f", 20/t}') | $(awk -v t=$3 'BEGIN{printf "%.1f", 20/t}') | ${*:4}"
} > $w/table.txt
echo "== paired medians (s; tenths of ms in brackets, in column order)"; cat $w/table.txt
