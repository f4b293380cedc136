#!/usr/bin/env bash
# Where the source pass's time goes (shader variants through BAKE_SHADER_DIR; their output is
# wrong, only their time counts), the NVIDIA program binaries (the driver's assembly), and the
# chain EXR's write by codec and thread count (exr_codec_probe.cpp) on a real 8k chain.
#   bash bench/results/h200-issue19-caps/probe.sh build-perf/devrun
set -uo pipefail
F=$1
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=/tmp/gs; mkdir -p $w/in $w/o
for W in 4096 8192; do [ -f $w/in/sky$W.hdr ] || $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
a=$F/bake-irradiance
S=shaders/specular_source.comp
mkdir -p /tmp/v/setup /tmp/v/nowalk /tmp/v/full
cp $S /tmp/v/full/
sed 's|    const double inv = texel_arcs(face, row, col);|    const double inv = texel_arcs(face, row, col);\n    if (u_mode == 0) { write_average(face, row, col, g_out_full, g_out_capped, false, inv); return; }|' $S > /tmp/v/setup/specular_source.comp
sed 's|    for (int r = first;; r += step) {|    for (int r = end;; r += step) {|' $S > /tmp/v/nowalk/specular_source.comp
for v in full setup nowalk; do cmp -s $S /tmp/v/$v/specular_source.comp && echo "variant $v = the shader"; done
for in in sky4096.hdr sky8192.hdr; do
  for v in full setup nowalk; do
    BAKE_SHADER_DIR=/tmp/v/$v $a $w/in/$in --specular $w/o/s.exr >/dev/null 2>&1
    for k in 1 2; do
      echo "$in $v: $(BAKE_SHADER_DIR=/tmp/v/$v $a $w/in/$in --specular $w/o/s.exr --timings 2>/dev/null | grep -m1 -o 'pass [0-9.]*')"
    done
  done
done
echo "== program binaries"
mkdir -p $OUT/cache; BAKE_PROGRAM_CACHE=$OUT/cache $a $w/in/sky4096.hdr --specular $w/o/s.exr >/dev/null 2>&1; ls -la $OUT/cache | head
echo "== chain EXR codecs (8k sky's chain; /dev/shm, then /tmp)"
$a $w/in/sky8192.hdr --specular $w/o/chain.exr >/dev/null 2>&1
./$F/exr-codec-probe $w/o/chain.exr /dev/shm 9
./$F/exr-codec-probe $w/o/chain.exr /tmp 9 | head -2
