#!/usr/bin/env bash
# Round 6: _Exit (BAKE_DETACHED_EXIT=0, X) against the helper (Y), the same binary, alternating,
# timed to the shell's wait (not a pipe's end: a timeline's "process gone" waits for the pipe,
# which the driver may hold a copy of): 15 rounds for singles, 7 for the batch.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
X() { BAKE_DETACHED_EXIT=0 $a "$@"; }
Y() { $a "$@"; }
echo "columns: _Exit, detached (s, median; then tenths of ms)"
echo "8k --specular: $(duo 15 $w/in/sky8192.hdr --specular $w/o/s.exr)"
echo "4k --specular: $(duo 15 $w/in/sky4096.hdr --specular $w/o/s.exr)"
echo "8k SH gpu: $(duo 15 $w/in/sky8192.hdr -o $w/o/i.exr --device gpu)"
echo "batch 20 x 4k --specular: $(duo 7 $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")"
echo "4k SH cpu: $(duo 15 $w/in/sky4096.hdr -o $w/o/i.exr --device cpu)"
