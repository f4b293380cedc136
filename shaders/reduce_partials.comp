// One reduction pass: up to WG_SIZE * REDUCE_SEQ partials -> one per work group. Invocation i
// first adds partials i, i + WG_SIZE, ... (REDUCE_SEQ of them, in that order), then the work
// group's fixed tree (as pass 1) sums the invocations.
// Constants from the host: SH_ORDER, WG_SIZE (power of two), WG_LOG2, REDUCE_CHUNK, REDUCE_SEQ,
// WORK_GROUP_SUM. Partial p is SH_COUNT vec4 at p * SH_COUNT (layout of project_sh.comp).
#pragma optionNV(unroll all)
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) readonly buffer PartialsIn { vec4 partials_in[]; };

uniform uint u_partial_count;  // partials in partials_in

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint first = gl_WorkGroupID.x * uint(WG_SIZE * REDUCE_SEQ) + lid;
    vec4 acc[SH_COUNT];
    for (int k = 0; k < SH_COUNT; ++k) acc[k] = vec4(0.0);
    for (int s = 0; s < REDUCE_SEQ; ++s) {
        uint index = first + uint(s * WG_SIZE);
        if (index >= u_partial_count) break;
        for (int k = 0; k < SH_COUNT; ++k) acc[k] += partials_in[index * uint(SH_COUNT) + uint(k)];
    }
    store_work_group_sum(acc, lid, gl_WorkGroupID.x * uint(SH_COUNT));
}
