// One level of the specular source's chain (specular_source_mips.comp's layout: RGB floats, faces
// top down, rows top down) copied into the prefilter's RGBA32F cube texture, bound as a layered
// image (z = face), alpha 1. On the GPU and exact (float to float): a pixel-unpack copy of RGB
// rows into an RGBA texture took the driver's slow path on NVIDIA (driver 580: 18-40 ms; bench/NOTES.md,
// measured at 2c9c7f6).
layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = 0) readonly buffer Levels { float levels[]; };
layout(rgba32f, binding = 0) writeonly uniform imageCube u_cube;

uniform uint u_size;    // the level's face size
uniform uint u_offset;  // where the copied cube's level starts in `levels` (floats)

void main() {
    const uvec3 id = gl_GlobalInvocationID;
    if (id.x >= u_size || id.y >= u_size) return;
    const uint at = u_offset + 3u * ((id.z * u_size + id.y) * u_size + id.x);
    imageStore(u_cube, ivec3(id), vec4(levels[at], levels[at + 1u], levels[at + 2u], 1.0));
}
