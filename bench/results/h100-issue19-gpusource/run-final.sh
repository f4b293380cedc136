#!/usr/bin/env bash
# Final run (issue 19, specular source on the GPU): tests on NVIDIA, then the specular table
# (before: the parent commit 2e8e5a4's binary; after: branch gpusource), whole-process medians,
# and --timings of one run each. Raw output: raw.txt; the tests' full output: tests.txt.
set -uo pipefail
F=$1
A=$F/bake-irradiance; P=$F/parent/bake-irradiance
w=/tmp/m4; mkdir -p $w/in $w/o
mkdir -p /work/wt/gpusource/tests /work/wt/gpusource/build; ln -sfn $PWD/tests/data /work/wt/gpusource/tests/data; ln -sfn $PWD/assets /work/wt/gpusource/assets; ln -sfn $PWD/$A /work/wt/gpusource/build/bake-irradiance
for W in 4096 8192; do $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(nproc) CPU threads; $(lscpu | grep 'Model name' | sed 's/ \+/ /g')"
T=$OUT/tests.txt
echo "== tests [source] (GPU source against the CPU source; -s: every assertion)"; (cd $w && $OLDPWD/$F/bake_tests "[source]" -s > $T.source 2>&1; echo "rc $?"); grep -E "GPU double|FAILED|test cases|All tests passed" $T.source | head -20; cp $T.source $OUT/tests-source.txt
echo "== tests [gpu][specular], [specular][energy], [cli][specular]"; (cd $w && timeout 400 $OLDPWD/$F/bake_tests "[gpu][specular],[specular][energy],[cli][specular]" > $T 2>&1; echo "rc $?"); grep -E "FAILED|test cases|All tests passed" $T | head -20
med() { local n=$1; shift; "$@" >/dev/null 2>&1; local ts=()
  for ((i=0;i<n;i++)); do t0=$(date +%s%N); "$@" >/dev/null 2>$w/err || { echo "FAIL($(head -c 200 $w/err))"; return; }; t1=$(date +%s%N); ts+=($(( (t1-t0)/1000000 ))); done
  printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]/1000}'; }
echo "== whole-process medians, seconds (--specular OUT.exr --specular-size 256: 6x256^2; auto/gpu median of 7, cpu of 3; one warm-up each)"
echo "| input | binary | auto | gpu | cpu |"; echo "|---|---|---|---|---|"
for W in 4096 8192; do
  for bin in parent after; do B=$A; [ $bin = parent ] && B=$P
    echo "| sky$W.hdr | $bin | $(med 7 $B $w/in/sky$W.hdr --specular $w/o/s.exr --specular-size 256) | $(med 7 $B $w/in/sky$W.hdr --specular $w/o/s.exr --specular-size 256 --device gpu) | $(med 3 $B $w/in/sky$W.hdr --specular $w/o/s.exr --specular-size 256 --device cpu) |"
  done
done
echo "== --timings, one run each"
for W in 4096 8192; do for d in auto gpu cpu; do for bin in parent after; do B=$A; [ $bin = parent ] && B=$P
  echo "[sky$W $bin --device $d]"; $B $w/in/sky$W.hdr --specular $w/o/s.exr --specular-size 256 --device $d --timings 2>/dev/null | grep timings | sed 's/ (upload, project, reduce.*//'; done; done; done
echo "== after: the chains of --device gpu and --device cpu (8k) and of the parent's gpu, compared level by level"
$A $w/in/sky8192.hdr --specular $w/o/after_gpu.exr --device gpu >/dev/null 2>&1; $P $w/in/sky8192.hdr --specular $w/o/parent_gpu.exr --device gpu >/dev/null 2>&1
cmp -s $w/o/after_gpu.exr $w/o/parent_gpu.exr && echo "after gpu == parent gpu, bit for bit" || echo "after gpu differs from parent gpu (expected: float rounding of the source)"
$A $w/in/sky8192.hdr --specular $w/o/after_cpu.exr --device cpu >/dev/null 2>&1; $P $w/in/sky8192.hdr --specular $w/o/parent_cpu.exr --device cpu >/dev/null 2>&1
cmp -s $w/o/after_cpu.exr $w/o/parent_cpu.exr && echo "after cpu == parent cpu, bit for bit" || echo "after cpu DIFFERS from parent cpu"
echo "== after --device gpu --compare (8k): the chain against the brute force over the source and against the CPU estimator"; $A $w/in/sky8192.hdr --specular $w/o/s.exr --device gpu --compare 2>/dev/null | grep -E "specular level" | head -12
