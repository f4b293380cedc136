// One level of the GGX-prefiltered specular chain (src/core/specular_prefilter.h): for each
// texel direction n of an N x N face, Karis' estimator sum L(l) (n.l) / sum (n.l) over the level's
// sample set, each l read from the source cube's mip chain at the sample's level (mip-filtered
// importance sampling: a sample stands for the solid angle 1/(count pdf), and reads a mip whose
// texels are about that big, so few samples give no fireflies). The sample set is the same for
// every texel (N = V), so the host computes it once, in double, with the frame's +Z = n.
layout(local_size_x = 8, local_size_y = 8) in;

layout(binding = 0) uniform samplerCube u_source;
layout(std430, binding = 0) readonly buffer Samples { vec4 samples[]; };  // l.xyz (local, z = n.l), lod
layout(std430, binding = 1) writeonly buffer Output { vec4 texels[]; };   // rgb, face-major, rows top down

uniform uint u_size;         // N
uniform uint u_sample_count;
uniform float u_inv_weight;  // 1 / sum over samples of n.l

void main() {
    uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y, face = gl_GlobalInvocationID.z;
    if (col >= u_size || row >= u_size) return;
    vec3 n = cube_texel_direction(face, row, col, u_size);
    // Any orthonormal frame around n: the sample set is symmetric enough in phi (Hammersley) that
    // the frame's turn about n does not matter beyond the estimator's own error.
    vec3 up = abs(n.y) < 0.999 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
    vec3 t = normalize(cross(up, n));
    vec3 b = cross(n, t);
    vec3 sum = vec3(0.0);
    for (uint i = 0u; i < u_sample_count; ++i) {
        vec4 s = samples[i];
        vec3 l = s.x * t + s.y * b + s.z * n;
        sum += textureLod(u_source, l, s.w).rgb * s.z;
    }
    texels[(face * u_size + row) * u_size + col] = vec4(sum * u_inv_weight, 1.0);
}
