#!/usr/bin/env bash
# Round 4: the process's release left to a helper after it has ended (detached_exit.h) against
# BAKE_DETACHED_EXIT=0 (the same binary), alternating: singles, SH rows, the batch; then what
# PID 1 is here and whether the helpers were reaped.
#   bash bench/results/h200-issue19-walk/run4.sh   (F=build-perf/devrun)
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
echo "pid 1: $(cat /proc/1/comm) ($(tr '\0' ' ' < /proc/1/cmdline | head -c 80))"
X() { BAKE_DETACHED_EXIT=0 $a "$@"; }
Y() { $a "$@"; }
echo "columns: _Exit, detached (s, median of 7; then tenths of ms)"
echo "8k --specular: $(duo 7 $w/in/sky8192.hdr --specular $w/o/s.exr)"
echo "4k --specular: $(duo 7 $w/in/sky4096.hdr --specular $w/o/s.exr)"
echo "8k SH gpu: $(duo 7 $w/in/sky8192.hdr -o $w/o/i.exr --device gpu)"
echo "8k SH cpu: $(duo 7 $w/in/sky8192.hdr -o $w/o/i.exr --device cpu)"
echo "4k SH auto: $(duo 7 $w/in/sky4096.hdr -o $w/o/i.exr)"
echo "batch 20 x 4k --specular: $(duo 5 $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr")"
tl $a $w/in/sky8192.hdr --specular $w/o/s.exr | tail -3
sleep 0.5
echo "processes named bake-irradiance left: $(ps -eo stat,comm | grep -c bake-irradiance) ($(ps -eo stat,comm | grep bake-irradiance | awk '{print $1}' | sort | uniq -c | tr '\n' ' '))"
