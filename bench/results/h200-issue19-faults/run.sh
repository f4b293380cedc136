#!/usr/bin/env bash
# Page faults: the batch's decodes allocate their images fresh (glibc mmaps every block over its
# threshold and unmaps it on free), so each map faults its pages in again, beside the GL driver's
# own mappings. Counted with ru (ru.c, wait4's rusage) and timed, alternating, with glibc's malloc
# tunables: default (X), huge pages for mmapped blocks (Y: glibc.malloc.hugetlb=1, THP madvise),
# the mmap threshold at its 32 MiB maximum and no trimming (Z), both (W).
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
echo "glibc $(ldd --version | head -1 | awk '{print $NF}'), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled), defrag $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
X() { $a "$@"; }
Y() { GLIBC_TUNABLES=glibc.malloc.hugetlb=1 $a "$@"; }
Z() { GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296 $a "$@"; }
W() { GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296 $a "$@"; }
s4=($w/in/sky4096.hdr --specular $w/o/s4.exr --specular-size 256)
s8=($w/in/sky8192.hdr --specular $w/o/s8.exr --specular-size 256)
batch=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" --specular-size 256)
sh=($w/in/b*.hdr --jobs 4 --out-dir $w/o --name '{stem}.json' --device gpu)
echo "rusage (wall ms, minor faults, major, max RSS MB, user ms, sys ms), each twice:"
for f in X Y Z W; do for r in 1 2; do
  echo "$f 4k:    $($F/ru bash -c "$(declare -f $f); a=$a; $f \"\$@\" >/dev/null 2>&1" _ "${s4[@]}" 2>&1 | grep '^ru')"
  echo "$f batch: $($F/ru bash -c "$(declare -f $f); a=$a; $f \"\$@\" >/dev/null 2>&1" _ "${batch[@]}" 2>&1 | grep '^ru')"
done; done
for f in X Y; do tl $f "${batch[@]}" > $OUT/trace-batch-$f.txt; done
echo "columns: default, hugetlb, mmap threshold 32 MiB + no trim, both (s, median; then tenths of ms)"
echo "batch 20 x 4k --specular 256 --jobs 4: $(alternate 9 "X Y Z W" "${batch[@]}")"
echo "4k --specular 256: $(alternate 11 "X Y Z W" "${s4[@]}")"
echo "8k --specular 256: $(alternate 7 "X Y Z W" "${s8[@]}")"
echo "SH batch 20 x 4k gpu: $(alternate 7 "X Y Z W" "${sh[@]}")"
for f in X Y Z W; do rm -rf $w/o; mkdir -p $w/o; $f "${batch[@]}" >/dev/null 2>&1; (cd $w/o && cat *.json *.exr | md5sum) ; done | uniq -c
