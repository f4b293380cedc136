// One reduction pass: up to WG_SIZE * REDUCE_SEQ partials -> one per work group along x.
// Work group (g, k) sums coefficient k only (a dispatch of groups x SH_COUNT): one vec4 per
// invocation instead of SH_COUNT, so the tree below moves SH_COUNT times less shared memory
// and the coefficients' trees run side by side on different multiprocessors.
// Invocation i first adds partials i, i + WG_SIZE, ... (REDUCE_SEQ of them, in that order),
// then the work group's tree adds element i + h into i for i < h, h = WG_SIZE/2 ... 1: the
// same additions in the same order as store_work_group_sum (sh_common.glsl), so results and
// the error bound are those of the coefficient-chunked tree, bit for bit.
// Constants from the host: SH_ORDER, WG_SIZE (power of two), WG_LOG2, REDUCE_SEQ,
// WORK_GROUP_SUM (declares partials_out). Partial p is SH_COUNT vec4 at p * SH_COUNT.
#pragma optionNV(unroll all)
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) readonly buffer PartialsIn { vec4 partials_in[]; };

uniform uint u_partial_count;  // partials in partials_in

shared vec4 coefficient_tree[WG_SIZE];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint k = gl_WorkGroupID.y;
    uint first = gl_WorkGroupID.x * uint(WG_SIZE * REDUCE_SEQ) + lid;
    vec4 acc = vec4(0.0);
    for (int s = 0; s < REDUCE_SEQ; ++s) {
        uint index = first + uint(s * WG_SIZE);
        if (index >= u_partial_count) break;
        acc += partials_in[index * uint(SH_COUNT) + k];
    }
    coefficient_tree[lid] = acc;
    barrier();
    for (uint h = uint(WG_SIZE) / 2u; h > 0u; h >>= 1u) {
        if (lid < h) coefficient_tree[lid] += coefficient_tree[lid + h];
        barrier();
    }
    if (lid == 0u) partials_out[gl_WorkGroupID.x * uint(SH_COUNT) + k] = coefficient_tree[0];
}
