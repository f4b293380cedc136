// Irradiance map: E(n) = sum_k E_k Y_k(n) at each output texel's centre direction.
// Constants from the host: SH_ORDER, WG_SIZE, CUBE_LAYOUT (1: six n x n faces, 0: lat-long).
// Output: RGB float32 per texel, global index as in project_sh.comp, tile
// [u_first_texel, +u_texel_count) written from element 0.
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) readonly buffer Coefficients { vec4 coefficients[]; };  // rgb = E_k
layout(std430, binding = 1) writeonly buffer Output { float output_rgb[]; };
#if !CUBE_LAYOUT
layout(std430, binding = 2) readonly buffer RowTable { vec4 row_table[]; };  // as project_sh.comp
layout(std430, binding = 3) readonly buffer ColumnTable { vec2 column_table[]; };
#endif

uniform uint u_first_texel;
uniform uint u_texel_count;
uniform uint u_size;  // cube face size n, or lat-long width

void main() {
    uint local_index = gl_GlobalInvocationID.x;
    if (local_index >= u_texel_count) return;
    uint t = u_first_texel + local_index;
#if CUBE_LAYOUT
    uint face_texels = u_size * u_size;
    uint face = t / face_texels;
    uint rest = t - face * face_texels;
    uint row = rest / u_size;
    vec3 d = cube_texel_direction(face, row, rest - row * u_size, u_size);
#else
    uint row = t / u_size;
    vec4 r = row_table[row];
    vec2 c = column_table[t - row * u_size];
    vec3 d = vec3(r.x * c.x, r.y, r.x * c.y);
#endif
    float y[SH_COUNT];
    sh_basis(d, y);
    vec3 e = vec3(0.0);
    for (int k = 0; k < SH_COUNT; ++k) e += coefficients[k].xyz * y[k];
    output_rgb[3u * local_index] = e.r;
    output_rgb[3u * local_index + 1u] = e.g;
    output_rgb[3u * local_index + 2u] = e.b;
}
