#pragma once
// The source texels on the GPU: one input's texels uploaded once, as the file stores them (RGB
// float, or RGBE / half expanded in the shaders to the same bits), in tiles small enough for one
// storage block and one dispatch, cut on the projection's work-group boundaries so that tiling
// never changes a sum. The projection, the report's cells and the specular source read them.
//
// Upload paths (GpuTuning::Upload): glBufferData, immutable storage + glBufferSubData, or
// persistently mapped staging buffers (two, four once an upload was queued behind other work)
// copied on the GPU (parallel memcpy into them); the last two need GL 4.4 or ARB_buffer_storage.
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "gl_context.h"
#include "gl_objects.h"
#include "gpu_pass_shape.h"
#include "layout.h"

namespace bake {

class GpuSourceTexels {
public:
    struct Tile {
        // Symmetric cube pass: tasks [first, first + count), face rows [row_base, +rows) and
        // their mirrors. Otherwise: texel positions [first, first + count).
        std::size_t first = 0, count = 0;
        std::size_t row_base = 0, rows = 0;
        std::size_t stride_quads = 0;      // per-texel cube pass: quads per face in the buffer
        std::size_t groups = 0;            // pass-1 work groups
        std::unique_ptr<GlBuffer> texels;
    };
    // What is uploaded, and how it is cut.
    struct Resident {
        bool valid = false;
        bool cube = false;
        bool symmetric = false;
        // Texels as uploaded: 0 RGB float, 1 RGBE bytes, 2 RGB half (project_sh.comp's TEXEL_FORMAT).
        unsigned texel_format = 0;
        std::size_t bytes_per_texel = kBytesPerTexel;
        GpuTuning tuning;            // the pass-1 shape the tiles were cut for
        std::size_t size = 0;        // cube face size or equirect width
        std::size_t positions = 0;   // texels per face (cube) or per image
        std::size_t total_groups = 0;
        std::vector<Tile> tiles;
    };

    // `context` must be current on this thread.
    GpuSourceTexels(const GlContext& context, const GpuLimits& limits);
    ~GpuSourceTexels();
    GpuSourceTexels(const GpuSourceTexels&) = delete;
    GpuSourceTexels& operator=(const GpuSourceTexels&) = delete;

    bool buffer_storage_available() const { return has_buffer_storage_; }
    GpuTuning::Upload upload_mode(const GpuTuning& tuning) const {
        return has_buffer_storage_ ? tuning.upload : GpuTuning::Upload::BufferData;
    }

    // Makes the tile buffers for a lat-long input of `texel_count` texels of `encoding` (nothing:
    // float) while it decodes; the upload takes them when it matches. Staging mode only.
    void prepare(std::size_t texel_count, std::optional<TexelEncoding> encoding, const GpuTuning& tuning);
    // Uploads `env`, replacing the previous input; finished (glFinish) when it returns, or with
    // `finish` false only queued (behind the GPU's work in flight: up to 4 staging buffers, so that
    // the CPU fills them meanwhile; upload_ms() then times the CPU's part).
    void upload(const Environment& env, const GpuTuning& tuning, bool finish = true);
    // Starts copying env's texels into the staging buffers on a worker thread (as many as fit them,
    // from the first), for the upload(env, tuning, false) that follows: its copies then need no copy
    // on the calling thread. A batch's next input, while the GPU works on this one: waits for the
    // staging buffers' last copies first (long done there). Staging mode and lat-long inputs only;
    // nothing otherwise. Anything else that uses the staging buffers first waits for the worker and
    // drops what it staged, as unstage() does (call it before env's texels go). Returns whether
    // it started a copy (false: env staged already, or not stageable).
    bool stage(const Environment& env, const GpuTuning& tuning);
    void unstage();
    const Resident& resident() const { return resident_; }
    double upload_ms() const { return upload_ms_; }
    // A lat-long input's row (sin t, cos t, Omega, 0) and column (cos p, sin p) tables.
    const GlBuffer& row_table() const { return row_table_; }
    const GlBuffer& column_table() const { return column_table_; }

    // Tests: at most this many texels a tile (0: no cap), to exercise tiling on small inputs.
    void set_max_tile_texels(std::size_t texels) { max_tile_texels_ = texels; }
    std::size_t max_tile_texels() const { return max_tile_texels_; }

    // Throws GpuError when `bytes` exceed one storage block.
    void check_block(std::size_t bytes, const char* what) const;
    // Fills `rows` and `columns` with a width x height lat-long map's tables (double precision
    // geometry, rounded once to float).
    void upload_equirect_tables(int width, int height, GlBuffer* rows, GlBuffer* columns) const;

private:
    std::vector<Tile> plan_texel_tiles(std::size_t positions, bool cube, std::size_t bpt, const GpuTuning& tuning) const;
    static std::size_t tile_bytes(const Tile& tile, bool cube, std::size_t bpt) {
        return (cube ? 6 : 1) * tile.stride_quads * 4 * bpt;
    }
    void upload_symmetric_cube(const Environment& env, const GpuTuning& tuning);
    void upload_per_texel(const Environment& env, const GpuTuning& tuning);
    void ensure_staging(const GpuTuning& tuning);
    std::unique_ptr<GlBuffer> make_texel_buffer(std::size_t bytes, const GpuTuning& tuning);
    // Writes bytes into a tile buffer (src nullptr: zeros), through the upload mode's path.
    void write(GlBuffer& buffer, std::size_t offset, const void* src, std::size_t bytes, const GpuTuning& tuning);

    GpuLimits limits_;
    bool has_buffer_storage_ = false;
    Resident resident_;
    double upload_ms_ = 0;
    std::vector<std::unique_ptr<GlBuffer>> spare_texels_;  // made by prepare(), taken by upload()
    GlBuffer row_table_, column_table_;
    static constexpr int kStagingSlots = 4;
    std::unique_ptr<GlBuffer> staging_[kStagingSlots];
    void* staging_map_[kStagingSlots] = {};
    GLsync staging_fence_[kStagingSlots] = {};
    int staging_slots_ = 0;  // staging buffers made (used in turn)
    int wanted_slots_ = 2;   // for the upload in progress
    unsigned copy_threads_ = 0;  // the same: threads of the copy into staging (0: the tuning's)
    int staging_next_ = 0;
    std::size_t staging_bytes_ = 0;  // size of each staging buffer
    std::size_t upload_total_ = 0;   // bytes of the upload in progress
    std::size_t max_tile_texels_ = 0;
    // stage(): the texels of input `identity` from `base`, `bytes` of them in staging buffers
    // first_slot, first_slot + 1, ... (whole buffers but the last), copied by `copying`.
    struct Staged {
        std::uint64_t identity = 0;
        const char* base = nullptr;
        std::size_t bytes = 0;
        int first_slot = 0;
        std::future<void> copying;
    } staged_;
    bool use_staged_ = false;  // the upload in progress is of the staged input
};

}  // namespace bake
