#!/usr/bin/env bash
# The GL thread's CPU work (the critical path of a GPU process) shares the cores with oneTBB's
# workers, the decode-ahead threads and the writers: those at a higher nice (BAKE_WORKER_NICE=N, an
# experiment build), alternating, timed to the shell's wait; timelines of 0 and 5; outputs compared.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
A() { $a "$@"; }
B() { BAKE_WORKER_NICE=2 $a "$@"; }
C() { BAKE_WORKER_NICE=5 $a "$@"; }
D() { BAKE_WORKER_NICE=10 $a "$@"; }
s4=($w/in/sky4096.hdr --specular $w/o/s4.exr --specular-size 256)
s8=($w/in/sky8192.hdr --specular $w/o/s8.exr --specular-size 256)
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" --specular-size 256)
sh=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json')
for f in A C; do tl $f "${batch[@]}" > $OUT/trace-batch-$f.txt; done
echo "columns: nice 0 (main), 2, 5, 10 (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular 256 --jobs 4: $(alternate 11 "A B C D" "${batch[@]}")"
echo "4k --specular 256: $(alternate 11 "A B C D" "${s4[@]}")"
echo "8k --specular 256: $(alternate 9 "A B C D" "${s8[@]}")"
echo "SH batch 20 x 4k (auto): $(alternate 9 "A B C D" "${sh[@]}")"
for f in A C; do rm -rf $w/o; mkdir -p $w/o; $f "${batch[@]}" >/dev/null 2>&1; (cd $w/o && cat *.json *.exr | md5sum) ; done | uniq -c
