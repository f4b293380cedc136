#!/usr/bin/env bash
# Source-pass shader variants for BAKE_SHADER_DIR (timing probes; each is checked against the
# embedded shader's chain on the card by run.sh):
#   div1    div_d with one refinement step (NVIDIA's 1/b is IEEE-correct: [probe] test)
#   sqrtrs  sqrt_d from inversesqrt: no double division in it
#   noinl   #pragma optionNV(inline none)
#   nounr   #pragma optionNV(unroll none)
#   fast    div1 + sqrtrs
set -euo pipefail
S=${1:-shaders/specular_source.comp}
D=${2:-/tmp/v}
mkdir -p $D/{full,div1,sqrtrs,noinl,nounr,fast}
cp $S $D/full/specular_source.comp
DIV1='double div_d1(double a, double b) { const double inv = 1.0LF / b; const double q = a * inv; return fma(fma(-q, b, a), inv, q); }\n#define div_d div_d1\n'
SQRT='double sqrt_d(double x) {\n    if (!(x > 0.0LF)) return 0.0LF;\n    const double rs = inversesqrt(x), half_inv = 0.5LF * rs;\n    double r = x * rs;\n    r = fma(fma(-r, r, x), half_inv, r);\n    return fma(fma(-r, r, x), half_inv, r);\n}\ndouble sqrt_d_old(double x) {'
sed "s|^layout(local_size_x = 8, local_size_y = 8) in;|&\n$DIV1|" $S > $D/div1/specular_source.comp
sed "s|^double sqrt_d(double x) {|$SQRT|" $S > $D/sqrtrs/specular_source.comp
sed "s|^double sqrt_d(double x) {|$SQRT|; s|^layout(local_size_x = 8, local_size_y = 8) in;|&\n$DIV1|" $S > $D/fast/specular_source.comp
{ echo '#pragma optionNV(inline none)'; cat $S; } > $D/noinl/specular_source.comp
{ echo '#pragma optionNV(unroll none)'; cat $S; } > $D/nounr/specular_source.comp
for v in div1 sqrtrs noinl nounr fast; do cmp -s $S $D/$v/specular_source.comp && { echo "variant $v unchanged" >&2; exit 1; }; done
echo "variants in $D"
