#!/usr/bin/env bash
# Where the ~10 ms between "specular source: caps" and "pass queued" goes on a single input: a
# binary of 95bda77 with trace events between the pass's calls (build-perf/probe, not committed:
# "probe:" events around the timer query, each mode's glDispatchCompute, check_gl), 8k and 4k
# --specular timelines, 3 each after a warm-up.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
p=build-perf/probe/bake-irradiance
for in in sky8192 sky4096; do for k in 1 2 3; do
  echo "== $in run $k"
  tl $p $w/in/$in.hdr --specular $w/o/s.exr | grep -E "caps|probe|pass queued|source queued|prefilter.comp|levels queued"
done; done
