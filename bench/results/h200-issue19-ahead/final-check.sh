#!/usr/bin/env bash
# The final binary (57158a6) on the card: the GPU, batch and fault tests (the upload ahead's fault
# test included), and the batch with --specular against af63c74's binary, alternating.
#   bash bench/results/h200-issue19-ahead/final-check.sh build-perf/devrun build-perf/af63
set -uo pipefail
F=$1 P=$2/bake-irradiance
source bench/results/device-setup.sh
a=$F/bake-irradiance
(cd $w && timeout 240 $OLDPWD/$F/bake_tests "[batch],[gpu][specular],[fault],[source],[cache]" 2>&1 | grep -a -E "^/work.*FAILED|test cases|assertions|with message|not found" | head -12)
mkdir -p $w/ba $w/bp
$a $w/in/b*.hdr --out-dir $w/ba --name '{stem}.json' --specular "$w/ba/{stem}_s.exr" >/dev/null 2>&1
$P $w/in/b*.hdr --out-dir $w/bp --name '{stem}.json' --specular "$w/bp/{stem}_s.exr" >/dev/null 2>&1
diff -rq $w/ba $w/bp >/dev/null && echo "batch: $(ls $w/ba | wc -l) outputs byte-identical to af63c74's" || echo "batch: OUTPUTS DIFFER"
X() { "$P" "$@"; }; Y() { "$a" "$@"; }  # duo (device-setup.sh): af63c74, then new
set -- $(duo 5 $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")
echo "| batch 20 x 4k --specular (maps/s) | af63c74 $(awk -v t=$1 'BEGIN{printf "%.1f", 20/t}') | 57158a6 $(awk -v t=$2 'BEGIN{printf "%.1f", 20/t}') | ${*:3}"
set -- $(duo 7 $w/in/sky4096.hdr --specular $w/o/s.exr)
echo "| --specular 4k (s) | af63c74 $1 | 57158a6 $2 | ${*:3}"
