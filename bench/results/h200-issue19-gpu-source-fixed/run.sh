#!/usr/bin/env bash
# Issue 19, the GPU specular source after the NVIDIA fix: the GPU tests on the card, then whole
# processes of --specular 6x256^2 (median of 7 after a warm-up; cpu source by the test hook as the
# baseline, same binary, same call) and --timings.
#   carry [".gl", "build-perf/devrun"]   bash bench/results/h200-issue19-gpu-source-fixed/run.sh build-perf/devrun
set -uo pipefail
F=$1
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs" BAKE_PROGRAM_CACHE=off
mkdir -p /work; ln -sfn "$PWD" /work/main 2>/dev/null
mkdir -p /work/main/build; ln -sfn "$PWD/$F/bake-irradiance" /work/main/build/bake-irradiance
w=/tmp/gs; mkdir -p $w/in $w/o
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(nproc) CPU threads"
(cd $w && timeout 300 /work/main/$F/bake_tests "[source],[gpu][specular],[specular][energy],[cli][specular]" > ${OUT:-.}/tests.txt 2>&1; echo "tests rc $?")
grep -E "test cases|All tests passed" ${OUT:-.}/tests.txt | tail -2
for W in 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
$F/make-sample-sky $w/in/half8192.exr --width 8192 --half --compression dwab --grain 0.02 >/dev/null
med() { "$@" >/dev/null 2>&1; local ts=()
  for ((i=0;i<7;i++)); do t0=$(date +%s%N); "$@" >/dev/null 2>$w/err || { echo "FAIL"; return; }; t1=$(date +%s%N); ts+=($(( (t1-t0)/1000000 ))); done
  printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[4]/1000}'; }
b=$F/bake-irradiance
echo "| input | auto (GPU source) | gpu (GPU source) | gpu, CPU source (hook) |"; echo "|---|---|---|---|"
for in in sky4096.hdr sky8192.hdr half8192.exr; do
  echo "| $in | $(med $b $w/in/$in --specular $w/o/s.exr) | $(med $b $w/in/$in --specular $w/o/s.exr --device gpu) | $(BAKE_TEST_CPU_SPECULAR_SOURCE=1 med $b $w/in/$in --specular $w/o/s.exr --device gpu) |"
done
for in in sky4096.hdr sky8192.hdr; do $b $w/in/$in --specular $w/o/s.exr --timings 2>/dev/null | grep -o "timings.*" | sed 's/ (upload, project.*//'; done
