#!/usr/bin/env bash
# Bakes a folder of environment maps on a Slurm cluster: one job array of TASKS tasks, each running
# the same bake-irradiance command with --shard auto (so that every map is baked by exactly one
# task), then a job that waits for all of them (afterany) and merges their reports into one.
#
#   MAPS=/library/hdri OUT=/library/baked TASKS=16 examples/slurm/submit.sh [bake-irradiance options]
#
# Environment:
#   MAPS   folder of maps (.exr and .hdr, searched recursively)                      (required)
#   OUT    folder for the outputs, reports/<array job id>/, logs/ and lists/         (required)
#   TASKS  tasks in the array (default 8)
#   BAKE   the bake-irradiance binary, as the compute nodes see it (default: bake-irradiance on PATH)
#   BAKE_SBATCH_ARGS  more sbatch options for the array's tasks, e.g. '--cpus-per-task=4 --gres=gpu:1'
#   SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT, ...: read by sbatch itself (both jobs)
# Arguments: the options of the bake (default: --name '{stem}_irr.exr' --name '{stem}.json').
# MAPS, OUT and BAKE must be on a file system every node sees at the same paths.
# Prints "<array job id> <merge job id>"; the merged report is OUT/reports/<array job id>/merged.json.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
: "${MAPS:?set MAPS to the folder of maps}"
: "${OUT:?set OUT to the folder for the outputs}"
TASKS=${TASKS:-8}
BAKE=${BAKE:-bake-irradiance}
case $TASKS in '' | *[!0-9]* | 0*) echo "submit.sh: TASKS='$TASKS' is not a whole number from 1" >&2; exit 2 ;; esac
[ -d "$MAPS" ] || { echo "submit.sh: MAPS='$MAPS' is not a folder" >&2; exit 2; }
if [[ $BAKE == */* ]]; then BAKE=$(cd "$(dirname "$BAKE")" && pwd)/$(basename "$BAKE"); fi
MAPS=$(cd "$MAPS" && pwd)
mkdir -p "$OUT/lists" "$OUT/logs" "$OUT/reports"
OUT=$(cd "$OUT" && pwd)
if [ $# -eq 0 ]; then set -- --name '{stem}_irr.exr' --name '{stem}.json'; fi

# The inputs, listed once for all the tasks (NUL-separated, in byte order): every task must see the
# same list, since the shards are cut from it. A list per submission, kept with the outputs.
list=$(mktemp "$OUT/lists/inputs-$(date +%Y%m%d-%H%M%S)-XXXXXX")
find "$MAPS" -type f \( -iname '*.exr' -o -iname '*.hdr' \) -print0 | LC_ALL=C sort -z >"$list"
count=$(tr -cd '\0' <"$list" | wc -c)
if [ "$count" -eq 0 ]; then echo "submit.sh: no .exr or .hdr under $MAPS" >&2; rm -f "$list"; exit 3; fi

# The tasks are numbered 0..TASKS-1: --shard auto reads SLURM_ARRAY_TASK_ID, _MIN, _MAX, _STEP and
# _COUNT, and accepts any evenly stepped range (0-15, 1-16, 0-30:2; a %N throttle too), not a list.
array=$(sbatch --parsable --array="0-$((TASKS - 1))" --job-name=bake-irradiance \
  --output="$OUT/logs/%A_%a.out" ${BAKE_SBATCH_ARGS:-} \
  --export="ALL,BAKE=$BAKE,BAKE_LIST=$list,OUT=$OUT" \
  "$here/bake-array.sbatch" "$@")
array=${array%%;*}  # "<id>;<cluster>" on a federation
merge=$(sbatch --parsable --dependency="afterany:$array" --kill-on-invalid-dep=no --job-name=bake-merge \
  --output="$OUT/logs/%j-merge.out" \
  --export="ALL,BAKE=$BAKE,OUT=$OUT,ARRAY_JOB_ID=$array,TASKS=$TASKS" \
  "$here/merge.sh")
merge=${merge%%;*}
echo "submit.sh: $count maps in $TASKS tasks: array job $array, merge job $merge -> $OUT/reports/$array/merged.json" >&2
echo "$array $merge"
