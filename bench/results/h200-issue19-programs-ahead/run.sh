#!/usr/bin/env bash
# The specular programs loaded on a second, shared context's thread (BAKE_PROGRAMS_AHEAD, default
# on), with a zero-group dispatch there (BAKE_AHEAD_WARM=1, experiment), and a batch's first
# inputs all decoded while the context starts (BAKE_EARLY_DECODES=1, experiment): alternating,
# timed to the shell's wait; timelines of each; the outputs compared.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
X() { BAKE_PROGRAMS_AHEAD=0 $a "$@"; }
Y() { $a "$@"; }
Z() { BAKE_AHEAD_WARM=1 $a "$@"; }
E() { BAKE_EARLY_DECODES=1 $a "$@"; }
P() { BAKE_PROGRAMS_AHEAD=0 BAKE_EARLY_DECODES=1 $a "$@"; }
s4=($w/in/sky4096.hdr --specular $w/o/s4.exr --specular-size 256)
s8=($w/in/sky8192.hdr --specular $w/o/s8.exr --specular-size 256)
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" --specular-size 256)
for f in X Y Z; do tl $f "${s4[@]}" > $OUT/trace-4k-$f.txt; done
for f in X Y E; do tl $f "${batch[@]}" > $OUT/trace-batch-$f.txt; done
echo "columns: ahead off, ahead on, ahead + warm dispatch (s, median; then tenths of ms)"
echo "4k --specular 256: $(trio 11 "${s4[@]}")"
echo "8k --specular 256: $(trio 7 "${s8[@]}")"
echo "columns: ahead off, ahead on, ahead + early decodes, early decodes alone"
echo "batch 20 x 4k --specular 256 --jobs 4: $(alternate 7 "X Y E P" "${batch[@]}")"
for f in X Y Z E; do rm -rf $w/o; mkdir -p $w/o; $f "${batch[@]}" >/dev/null 2>&1; (cd $w/o && cat *.json *.exr | md5sum) ; done | uniq -c
for f in $OUT/trace-*.txt; do echo "== $f"; grep -a -E "context|programs|program taken|specular source: pass queued|levels queued|prefiltered|written|exit|gone" $f | head -30; done
