#!/usr/bin/env bash
# Issue 19, "Writing": a batch with --specular and JSON through the binary before the writer thread
# (F/before/bake-irradiance) and after it (F/bake-irradiance), whole processes, one call on one
# machine. Each row runs one warm-up of each, then REPEATS pairs in turn (before, after, before,
# after, ...): the medians in seconds and maps/s, and the median of the pairs' after/before
# ratios. Then one more run of each into its own folder and `cmp` of every file.
#   [DEVICES="cpu gpu"] bash run.sh F [COUNT [WIDTH [REPEATS [BAKE OPTION ...]]]]   (defaults 12 2048 5)
# F holds bake-irradiance, make-sample-sky and before/bake-irradiance. On the GPU machine, carried
# as scripts/bench-gpu's folder (carry [".gl", "build-perf/devrun"]):
#   DEVICES=gpu bash bench/results/local-2core-write-overlap/run.sh build-perf/devrun 20 4096 7
set -uo pipefail
F=$1
n=${2:-12}
W=${3:-2048}
reps=${4:-5}
shift $(($# < 4 ? $# : 4))
extra=("$@")
if compgen -G ".gl/*.deb" >/dev/null; then
  for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
  ldconfig
fi
[ -d "$F/devlibs" ] && export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=/tmp/write-overlap
mkdir -p "$w/in$W"
maps=()
for k in $(seq 1 "$n"); do
  [ -f "$w/in$W/b$k.hdr" ] || "$F/make-sample-sky" "$w/in$W/b$k.hdr" --width "$W" --variant "$k" --grain 0.02 >/dev/null
  maps+=("$w/in$W/b$k.hdr")
done
# One process into a fresh folder $w/$1; prints its milliseconds.
once() {
  local out=$1 t0 t1
  shift
  rm -rf "${w:?}/$out"
  mkdir -p "$w/$out"
  t0=$(date +%s%N)
  "$@" --out-dir "$w/$out" --name '{stem}.json' --specular "$w/$out/{stem}_spec.exr" >/dev/null 2>"$w/err" ||
    { echo "FAIL: $(head -c 300 "$w/err")" >&2; echo 0; return; }
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi'); $(nproc) CPU threads"
echo "batch: $n x ${W}x$((W / 2)) .hdr, --name '{stem}.json' --specular '{stem}_spec.exr' ${extra[*]}; $reps pairs after a warm-up"
echo
echo "| device | before s | after s | before maps/s | after maps/s | after/before (median of pairs) | outputs |"
echo "|---|---|---|---|---|---|---|"
raw=()
for d in ${DEVICES:-cpu gpu}; do
  before=("$F/before/bake-irradiance" "${maps[@]}" --device "$d" "${extra[@]}")
  after=("$F/bake-irradiance" "${maps[@]}" --device "$d" "${extra[@]}")
  once o "${before[@]}" >/dev/null
  once o "${after[@]}" >/dev/null
  bs=() as=() rs=()
  for ((i = 0; i < reps; ++i)); do
    b=$(once o "${before[@]}")
    a=$(once o "${after[@]}")
    bs+=("$b") as+=("$a")
    rs+=("$(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.4f", a / b; else print "nan" }')")
  done
  mb=$(median "${bs[@]}")
  ma=$(median "${as[@]}")
  once ob "${before[@]}" >/dev/null
  once oa "${after[@]}" >/dev/null
  same=identical
  for f in "$w"/ob/*; do cmp -s "$f" "$w/oa/$(basename "$f")" || same="DIFFER: $(basename "$f")"; done
  [ "$(ls "$w/ob" | wc -l)" = "$(ls "$w/oa" | wc -l)" ] || same="file counts differ"
  awk -v d="$d" -v b="$mb" -v a="$ma" -v n="$n" -v r="$(median "${rs[@]}")" -v s="$same" -v files="$(ls "$w/oa" | wc -l)" \
    'BEGIN { printf "| %s | %.3f | %.3f | %.2f | %.2f | %.3f | %s files %s |\n", d, b / 1000, a / 1000, n * 1000 / b, n * 1000 / a, r, files, s }'
  raw+=("$d, ms: before ${bs[*]}; after ${as[*]}")
done
echo
printf '%s\n' "${raw[@]}"
