#!/usr/bin/env bash
#SBATCH --job-name=bake-merge
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
# Joins the reports of the array's tasks into OUT/reports/<array job id>/merged.json (submit.sh
# runs it after every task has ended, whatever its exit). Every input must be in exactly one
# report: a task that never wrote its report (killed, node lost) makes the merge fail, exit 3,
# naming the missing shard. Otherwise the exit code is the bake's: 0, or the first failed input's
# (3 unreadable input, 4 output not written, ...), as bake-irradiance --help documents.
# Environment: BAKE, OUT, ARRAY_JOB_ID, TASKS (set by submit.sh). Runs outside Slurm too.
set -euo pipefail
: "${BAKE:?}" "${OUT:?}" "${ARRAY_JOB_ID:?}" "${TASKS:?}"
reports="$OUT/reports/$ARRAY_JOB_ID"
# The report each task should have written; a missing one is passed anyway, so that the merge
# names it ("cannot open") rather than a shard number.
files=()
for ((k = 0; k < TASKS; ++k)); do files+=("$reports/task-$k.json"); done
code=0
"$BAKE" --merge-reports "$reports/merged.json" "${files[@]}" || code=$?
echo "merge.sh: exit $code" >&2
exit "$code"
