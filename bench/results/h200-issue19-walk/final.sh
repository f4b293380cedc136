#!/usr/bin/env bash
# The table at the code this session ends with (bench-gpu --whole-process: bench.txt,
# bench.json under $OUT), after a check of the process's end through a pipe: timelines of an 8k
# --specular bake (exit -> the pipe's end) with _Exit and with the helper, 3 each.
set -uo pipefail
F=${F:-build-perf/devrun}; w=/tmp/gs; source bench/results/device-setup.sh
a=$F/bake-irradiance
for m in 0 1; do for k in 1 2 3; do
  echo "detached=$m: $(BAKE_DETACHED_EXIT=$m tl $a $w/in/sky8192.hdr --specular $w/o/s.exr | tail -2 | tr -s ' ' | tr '\n' ' ')"
done; done
bash scripts/bench-gpu $F --whole-process > $OUT/bench-gpu.log 2>&1
tail -45 $OUT/bench.txt
