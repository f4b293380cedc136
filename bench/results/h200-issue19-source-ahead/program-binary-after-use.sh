#!/usr/bin/env bash
# Experiment (binary built for this call only, not committed: ComputePrograms re-stored every
# program binary after the first chain, BAKE_DIAG_RESTORE=1): does a binary fetched after the
# program's first dispatch spare the next process that first dispatch (~7 ms each)?
set -uo pipefail
F=build-perf/devrun; source bench/results/device-setup.sh
d=$F/bake-irradiance-diag
one=($w/in/sky4096.hdr --specular $w/o/s.exr --specular-size 256)
rm -rf /tmp/pc-plain /tmp/pc-restored
BAKE_PROGRAM_CACHE=/tmp/pc-plain $d "${one[@]}" >/dev/null 2>&1
BAKE_PROGRAM_CACHE=/tmp/pc-plain BAKE_DIAG_RESTORE=1 $d "${one[@]}" 2>&1 >/dev/null | grep DIAG | head -3
rm -rf /tmp/pc-plain; BAKE_PROGRAM_CACHE=/tmp/pc-plain $d "${one[@]}" >/dev/null 2>&1
BAKE_PROGRAM_CACHE=/tmp/pc-restored $d "${one[@]}" >/dev/null 2>&1
BAKE_PROGRAM_CACHE=/tmp/pc-restored BAKE_DIAG_RESTORE=1 $d "${one[@]}" 2>&1 >/dev/null | grep DIAG
BAKE_PROGRAM_CACHE=/tmp/pc-restored $d "${one[@]}" 2>&1 >/dev/null | grep DIAG
du -sb /tmp/pc-plain /tmp/pc-restored
P() { BAKE_PROGRAM_CACHE=/tmp/pc-plain $d "$@"; }
R() { BAKE_PROGRAM_CACHE=/tmp/pc-restored $d "$@"; }
for k in 1 2; do
  for f in P R; do tl $f "${one[@]}" > /tmp/t-$f.txt; echo "$f: $(grep -E 'specular source: caps|pass queued|program loaded: specular_prefilter|levels queued|prefiltered|sh error$|upload \+ project' /tmp/t-$f.txt | tr -s ' ' | tr '\n' '|')"; done
done
X() { P "$@"; }; Y() { R "$@"; }
echo "4k --specular, cache as stored at link / re-stored after use: $(duo 9 "${one[@]}")"
echo "8k --specular: $(duo 9 $w/in/sky8192.hdr --specular $w/o/s.exr --specular-size 256)"
