#!/usr/bin/env bash
# The copies of a batch's next input into the staging buffers behind other work (on a worker
# ahead, or on the GL thread in send_ahead when the next input was not decoded in time: the first
# map) on 1 (default), 4, 8 or 16 threads (BAKE_AHEAD_COPY_THREADS, an experiment build),
# alternating, timed to the shell's wait; timelines of 1 and 16; the outputs compared.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
A() { $a "$@"; }
B() { BAKE_AHEAD_COPY_THREADS=4 $a "$@"; }
C() { BAKE_AHEAD_COPY_THREADS=8 $a "$@"; }
D() { BAKE_AHEAD_COPY_THREADS=16 $a "$@"; }
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" --specular-size 256)
sh=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json')
for f in A D; do tl $f "${batch[@]}" > $OUT/trace-batch-$f.txt; done
echo "columns: 1, 4, 8, 16 threads (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular 256 --jobs 4: $(alternate 11 "A B C D" "${batch[@]}")"
echo "SH batch 20 x 4k (auto): $(alternate 9 "A B C D" "${sh[@]}")"
for f in A D; do rm -rf $w/o; mkdir -p $w/o; $f "${batch[@]}" >/dev/null 2>&1; (cd $w/o && cat *.json *.exr | md5sum) ; done | uniq -c
for f in A D; do echo "== $f: first map"; grep -a -E "context|levels queued|next input s|prefiltered" $OUT/trace-batch-$f.txt | head -8; tail -1 $OUT/trace-batch-$f.txt; done
