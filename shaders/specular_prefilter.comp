// One level of the prefiltered specular chain (src/core/specular_prefilter.h), GGX or, with
// CHARLIE_LOBE defined, Charlie (sheen; its level 0 too: samples on the horizon circle): for each
// texel direction n of an N x N face, Karis' estimator sum L(l) (n.l) / sum (n.l) over the level's
// sample set, each l read from the source cube's mip chain at the sample's level (mip-filtered
// importance sampling: a sample stands for the solid angle 1/(count pdf), and reads a mip whose
// texels are about that big, so few samples give no fireflies). The sample set is the same for
// every texel (N = V), so the host computes it once, in double, with the frame's +Z = n. The
// samples read the source with its bright texels capped; their excess is added part by part
// with the lobe's exact weight.
// One work group a texel: invocation i takes samples i, i + WG_SIZE, ..., then a tree through
// shared memory adds the partial sums. The rough levels have few texels and up to 65536 samples
// each; one invocation a texel would leave the GPU idle there.
layout(local_size_x = WG_SIZE) in;

layout(binding = 0) uniform samplerCube u_source;
layout(std430, binding = 0) readonly buffer Samples { vec4 samples[]; };  // l.xyz (local, z = n.l), lod
layout(std430, binding = 1) writeonly buffer Output { vec4 texels[]; };   // rgb, face-major, rows top down, level after level
// The bright texels' parts (specular_prefilter.h): direction and solid angle, then excess radiance.
layout(std430, binding = 2) readonly buffer Bright { vec4 bright[]; };

uniform uint u_size;         // N
uniform uint u_output_offset; // texels of the levels before this one in Output
uniform uint u_sample_count;
uniform float u_inv_weight;  // 1 / sum over samples of n.l
uniform uint u_bright_count; // parts
uniform float u_alpha;
uniform float u_inv_lobe;    // 1 / integral of W over the sphere

// W(c) = max(0, c) D(h) for c = n.l, with 1 - c passed separately (|n - l|^2 / 2, no cancellation).
#ifdef CHARLIE_LOBE
// Charlie (charlie.h): sin^2(theta_h) = (1 - c) / 2, so W = c (2 + k) / (2 pi) (1 - c)^(k/2), k = 1/alpha,
// less the constant 2^(-k/2) (u_inv_lobe is for this lobe).
float lobe_weight(float c, float one_minus_c) {
    if (c <= 0.0) return 0.0;
    float k = 1.0 / u_alpha;
    return c * (2.0 + k) / 6.28318530717959 * pow(one_minus_c, 0.5 * k);
}
#else
// GGX: (n.h)^2 = (1 + c) / 2, so its denominator is alpha^2 + (1 - alpha^2)(1 - c) / 2.
float lobe_weight(float c, float one_minus_c) {
    if (c <= 0.0) return 0.0;
    float a2 = u_alpha * u_alpha;
    float t = a2 + (1.0 - a2) * 0.5 * one_minus_c;
    return c * a2 / (3.14159265358979 * t * t);
}
#endif

shared vec3 partial[WG_SIZE];

void main() {
    uint col = gl_WorkGroupID.x, row = gl_WorkGroupID.y, face = gl_WorkGroupID.z;
    uint lid = gl_LocalInvocationID.x;
    vec3 n = cube_texel_direction(face, row, col, u_size);
    // Any orthonormal frame around n (the same as the CPU estimator's).
    vec3 up = abs(n.y) < 0.999 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
    vec3 t = normalize(cross(up, n));
    vec3 b = cross(n, t);
    vec3 sum = vec3(0.0);
    for (uint i = lid; i < u_sample_count; i += uint(WG_SIZE)) {
        vec4 s = samples[i];
        vec3 l = s.x * t + s.y * b + s.z * n;
        sum += textureLod(u_source, l, s.w).rgb * s.z;
    }
    vec3 excess = vec3(0.0);
    for (uint i = lid; i < u_bright_count; i += uint(WG_SIZE)) {
        vec4 p = bright[2u * i];
        vec3 d = n - p.xyz;
        excess += bright[2u * i + 1u].xyz * (p.w * lobe_weight(dot(n, p.xyz), 0.5 * dot(d, d)));
    }
    partial[lid] = sum * u_inv_weight + excess * u_inv_lobe;
    barrier();
    for (uint h = uint(WG_SIZE) / 2u; h > 0u; h >>= 1u) {
        if (lid < h) partial[lid] += partial[lid + h];
        barrier();
    }
    if (lid == 0u) texels[u_output_offset + (face * u_size + row) * u_size + col] = vec4(partial[0], 1.0);
}
