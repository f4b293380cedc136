// One reduction pass: WG_SIZE partials -> one, by the same fixed tree as pass 1.
// Constants from the host: SH_ORDER, WG_SIZE (power of two), WG_LOG2, REDUCE_CHUNK,
// WORK_GROUP_SUM. Partial p is SH_COUNT vec4 at p * SH_COUNT (layout of project_sh.comp).
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) readonly buffer PartialsIn { vec4 partials_in[]; };

uniform uint u_partial_count;  // partials in partials_in

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint index = gl_WorkGroupID.x * uint(WG_SIZE) + lid;
    vec4 acc[SH_COUNT];
    for (int k = 0; k < SH_COUNT; ++k)
        acc[k] = index < u_partial_count ? partials_in[index * uint(SH_COUNT) + uint(k)] : vec4(0.0);
    store_work_group_sum(acc, lid, gl_WorkGroupID.x * uint(SH_COUNT));
}
