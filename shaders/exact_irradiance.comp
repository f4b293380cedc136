// Exact irradiance: E(n) = sum over cells of max(0, n.P) - max(0, n.N) per channel, P and N the
// first moments of a cell's positive and negative radiance (src/core/exact_irradiance.h).
// Constants from the host: WG_SIZE (power of two), OUTPUTS (directions per work group).
// A work group takes OUTPUTS directions; invocation i adds cells i, i + WG_SIZE, ... for each of
// them with Kahan compensation, then a binary tree through shared memory adds the invocations'
// sums (log2(WG_SIZE) roundings). `precise` keeps the compiler from reassociating the
// compensation away, so the float sum errs by at most about (2 + log2 WG_SIZE) u sum|terms|.
layout(local_size_x = WG_SIZE) in;

// A cell is 5 vec4: P_r.xyz P_g.x | P_g.yz P_b.xy | P_b.z N_r.xyz | N_g.xyz N_b.x | N_b.yz - -
layout(std430, binding = 0) readonly buffer Cells { vec4 cells[]; };
layout(std430, binding = 1) readonly buffer Directions { vec4 directions[]; };  // xyz unit
layout(std430, binding = 2) writeonly buffer Output { vec4 irradiance[]; };   // rgb

uniform uint u_cell_count;
uniform uint u_direction_count;

shared vec3 tree[OUTPUTS * WG_SIZE];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint first = gl_WorkGroupID.x * uint(OUTPUTS);
    vec3 n[OUTPUTS];
    precise vec3 sum[OUTPUTS];
    precise vec3 comp[OUTPUTS];
    for (int o = 0; o < OUTPUTS; ++o) {
        n[o] = directions[min(first + uint(o), u_direction_count - 1u)].xyz;
        sum[o] = vec3(0.0);
        comp[o] = vec3(0.0);
    }
    for (uint c = lid; c < u_cell_count; c += uint(WG_SIZE)) {
        vec4 a = cells[5u * c], b = cells[5u * c + 1u], d = cells[5u * c + 2u], e = cells[5u * c + 3u],
             f = cells[5u * c + 4u];
        vec3 pr = a.xyz, pg = vec3(a.w, b.xy), pb = vec3(b.zw, d.x);
        vec3 nr = d.yzw, ng = e.xyz, nb = vec3(e.w, f.xy);
        for (int o = 0; o < OUTPUTS; ++o) {
            vec3 p = vec3(dot(n[o], pr), dot(n[o], pg), dot(n[o], pb));
            vec3 q = vec3(dot(n[o], nr), dot(n[o], ng), dot(n[o], nb));
            precise vec3 y = (max(p, vec3(0.0)) - max(q, vec3(0.0))) - comp[o];
            precise vec3 t = sum[o] + y;
            comp[o] = (t - sum[o]) - y;
            sum[o] = t;
        }
    }
    for (int o = 0; o < OUTPUTS; ++o) tree[uint(o) * uint(WG_SIZE) + lid] = sum[o] - comp[o];
    barrier();
    for (uint h = uint(WG_SIZE) / 2u; h > 0u; h >>= 1u) {
        for (uint p = lid; p < uint(OUTPUTS) * h; p += uint(WG_SIZE)) {
            uint o = p / h, i = p - o * h;
            tree[o * uint(WG_SIZE) + i] += tree[o * uint(WG_SIZE) + i + h];
        }
        barrier();
    }
    if (lid < uint(OUTPUTS) && first + lid < u_direction_count)
        irradiance[first + lid] = vec4(tree[lid * uint(WG_SIZE)], 0.0);
}
