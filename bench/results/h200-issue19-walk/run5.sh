#!/usr/bin/env bash
# Round 5: where the time after "exit" goes: timelines (exit -> process gone) with _Exit
# (BAKE_DETACHED_EXIT=0) and with the helper, 4 each, for an 8k SH bake on the GPU and an 8k
# --specular bake; then a process's threads and their kernel wait channels just before exit.
set -uo pipefail
F=${F:-build-perf/devrun}; source bench/results/device-setup.sh
a=$F/bake-irradiance
for args in "$w/in/sky8192.hdr -o $w/o/i.exr --device gpu" "$w/in/sky8192.hdr --specular $w/o/s.exr"; do
  for m in 0 1; do for k in 1 2 3 4; do
    echo "mode $m [$args]: $(BAKE_DETACHED_EXIT=$m tl $a $args | tail -3 | tr -s ' ' | tr '\n' ' ')"
  done; done
done
# Threads of a live GPU process (a batch, sampled once mid-way): name and wait channel.
$a $w/in/b*.hdr --out-dir $w/o --name '{stem}.json' --specular "$w/o/{stem}_s.exr" >/dev/null 2>&1 &
p=$!; sleep 0.5
for t in /proc/$p/task/*; do echo "thread $(cat $t/comm) $(cat $t/wchan 2>/dev/null) $(cat $t/stat | awk '{print $3}')"; done | sort | uniq -c
wait $p
sleep 1; echo "zombies: $(ps -eo stat,comm | grep -c '^Z.*bake')"
