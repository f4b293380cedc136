#!/usr/bin/env bash
# Where the source pass's time goes, caps at their default (one ring per 1024 columns): shader
# variants through BAKE_SHADER_DIR (their output is wrong; only the pass's GPU time counts).
#   none: mode 0 writes zeros at once; arcs: after the texel's arcs (corners, highest points,
#   arc points); noarcpoints: arcs without their ArcPoints; nowalk: no column walks; full.
#   bash bench/results/h200-issue19-caps/probe2.sh build-perf/devrun
set -uo pipefail
F=$1
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
export LD_LIBRARY_PATH="$PWD/$F/devlibs"
w=/tmp/gs; mkdir -p $w/in $w/o
for W in 4096 8192; do [ -f $w/in/sky$W.hdr ] || $F/make-sample-sky $w/in/sky$W.hdr --width $W --grain 0.05 >/dev/null; done
a=$F/bake-irradiance
S=shaders/specular_source.comp
for v in none arcs noarcpoints nowalk full; do mkdir -p /tmp/v/$v; done
cp $S /tmp/v/full/
Z='write_average(face, row, col, dvec3(0.0LF), dvec3(0.0LF), false, 1.0LF); return;'
sed "s|^    const double inv = texel_arcs(face, row, col);|    if (u_mode == 0) { $Z }\n&|" $S > /tmp/v/none/specular_source.comp
sed "s|^    const double inv = texel_arcs(face, row, col);|&\n    if (u_mode == 0) { $Z }|" $S > /tmp/v/arcs/specular_source.comp
sed "s|^    for (int i = 0; i < points; ++i) set_pt(i, arc_point(vec_at(i)));|    if (u_mode != 0) for (int i = 0; i < points; ++i) set_pt(i, arc_point(vec_at(i)));|; s|^    const double inv = texel_arcs(face, row, col);|&\n    if (u_mode == 0) { $Z }|" $S > /tmp/v/noarcpoints/specular_source.comp
sed 's|    for (int r = first;; r += step) {|    for (int r = end;; r += step) {|' $S > /tmp/v/nowalk/specular_source.comp
for v in none arcs noarcpoints nowalk; do cmp -s $S /tmp/v/$v/specular_source.comp && echo "variant $v unchanged: sed failed"; done
for in in sky4096.hdr sky8192.hdr; do
  for v in none arcs noarcpoints nowalk full; do
    BAKE_SHADER_DIR=/tmp/v/$v $a $w/in/$in --specular $w/o/s.exr >/dev/null 2>$w/err || { echo "$v failed: $(head -c 300 $w/err)"; continue; }
    p=""; for k in 1 2 3; do p="$p $(BAKE_SHADER_DIR=/tmp/v/$v $a $w/in/$in --specular $w/o/s.exr --timings 2>/dev/null | grep -m1 -o 'pass [0-9.]*' | cut -d' ' -f2)"; done
    echo "$in $v: pass ms$p"
  done
done
