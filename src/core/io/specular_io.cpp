#include "specular_io.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfEnvmapAttribute.h>
#include <OpenEXR/ImfFloatVectorAttribute.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfIntAttribute.h>
#include <OpenEXR/ImfStandardAttributes.h>
#include <OpenEXR/ImfStdIO.h>
#include <OpenEXR/ImfStringAttribute.h>
#include <OpenEXR/ImfThreading.h>
#include <OpenEXR/ImfTiledInputFile.h>
#include <OpenEXR/ImfTiledOutputFile.h>
#include <OpenEXR/ImfVersion.h>

#include "atomic_file.h"
#include "errors.h"
#include "exr_common.h"
#include "image_io.h"
#include "layout.h"

namespace bake {
namespace {

// 64x64 tiles; ZIP (zlib level 4, OpenEXR's default) where it pays, else none. Measured writing a
// 256-base chain (9 levels, 6.3 MB of float texels) median of 15, fsync included: of pmndrs_sky.exr
// (smooth: a small input's source repeats texels) on a 2-core machine, ZIP 85-95 ms, 2.7 MB; ZIPS the
// same (a tile is one block either way); no compression 25 ms, 6.3 MB; PIZ 0.57 s, 3.5 MB; zlib
// level 1 82 ms, 2.95 MB, level 6 0.3 s, 2.70 MB; 128x128 tiles 2.65 MB, no faster. Of an 8192 x 4096
// .hdr with grain (every texel's mantissa noisy) on the H200 machine's 16 cores
// (bench/NOTES.md; measured at 2c9c7f6): ZIP 30 ms, 6.05 MB; none 4 ms, 6.30 MB; zlib level 1 27 ms;
// RLE 5 ms, 6.30 MB; PIZ 68 ms, 5.73 MB. So ZIP halves a smooth chain and saves 4% of a noisy one at
// 7x the time: chain_compression tries it first on a sample of level 0 (16 rows of a tile at each
// face's centre) and keeps it when the sample compresses to at most kZipKeepRatio of its size.
// pmndrs_sky.exr's chain (tests' real map, 2-core machine): ZIP 114 ms, 5.85 MB; none 21 ms, 6.30 MB.
constexpr int kTileSize = 64;
constexpr double kZipKeepRatio = 0.8;

constexpr const char* kAttrCubeLevels = "bakeSpecularCubeLevels";
constexpr const char* kAttrRoughness = "bakeSpecularRoughness";
constexpr const char* kAttrConvention = "bakeSpecularConvention";
constexpr const char* kAttrLayout = "bakeSpecularLayout";
constexpr const char* kAttrExtraLevels = "bakeSpecularExtraLevels";
constexpr const char* kAttrLevel = "bakeSpecularLevel";  // per-level files: "i of L"

constexpr const char* kLayoutText =
    "file level i = cube level i (0 = sharpest): a vertical strip N_i x 6N_i, N_i = N >> i, faces +X -X +Y -Y "
    "+Z -Z top to bottom, each in OpenGL's cube-map orientation, row 0 = top (OpenEXR's own envmap=cube "
    "faces are these mirrored: +-X, +-Z left-right, +-Y top-bottom)";
constexpr const char* kExtraLevelsText =
    "the last two file levels (1x3, 1x1) are not cube levels: area averages of the level above "
    "(1x3: means of faces (+X,-X), (+Y,-Y), (+Z,-Z) of the 1x6 level; 1x1: mean of the 1x3 level's three)";
// A chain that stops above 1x1 (SpecularSettings::last_size): OpenEXR's mipmapped file still has every level.
constexpr const char* kShortChainLevelsText =
    "file levels from bakeSpecularCubeLevels on are not levels of the chain, which stops there: area averages "
    "of the level above (cube strips, each texel the solid-angle weighted mean of the 2x2 texels above, down to "
    "1x6; then 1x3: means of faces (+X,-X), (+Y,-Y), (+Z,-Z) of the 1x6 level; 1x1: mean of the 1x3 level's three)";

bool is_power_of_two(long long n) { return n > 0 && (n & (n - 1)) == 0; }

// Counts what OpenEXR writes, keeping nothing (chain_compression's trial files).
class CountingStream : public Imf::OStream {
public:
    CountingStream() : Imf::OStream("trial") {}
    void write(const char[], int n) override {
        at_ += static_cast<std::uint64_t>(n);
        size_ = std::max(size_, at_);
    }
    std::uint64_t tellp() override { return at_; }
    void seekp(std::uint64_t at) override { at_ = at; }
    std::uint64_t size() const { return size_; }

private:
    std::uint64_t at_ = 0, size_ = 0;
};

// ZIP when a trial file of level 0's face centres (T x R texels a face, stacked: T x 6R; T the
// tile or the face size, R = min(T, 16)) compresses to at most kZipKeepRatio of the same file
// uncompressed; else none. Depends on the texels only. The trial costs ~1/10 of a chain's ZIP write.
Imf::Compression chain_compression(const Image& level0) {
    const int n = level0.width, t = std::min(n, kTileSize), rows = std::min(t, 16), c0 = (n - t) / 2, r0 = (n - rows) / 2;
    std::vector<float> sample(static_cast<std::size_t>(t) * 6 * rows * 3);
    for (int f = 0; f < 6; ++f)
        for (int y = 0; y < rows; ++y)
            std::copy_n(&level0.rgb[3 * (static_cast<std::size_t>(f * n + r0 + y) * n + c0)], 3 * static_cast<std::size_t>(t),
                        &sample[3 * static_cast<std::size_t>(f * rows + y) * t]);
    auto trial_bytes = [&](Imf::Compression c) {
        Imf::Header header(t, 6 * rows);
        header.compression() = c;
        for (const char* ch : {"R", "G", "B"}) header.channels().insert(ch, Imf::Channel(Imf::FLOAT));
        header.setTileDescription(Imf::TileDescription(kTileSize, kTileSize, Imf::ONE_LEVEL));
        CountingStream out;
        {
            Imf::TiledOutputFile file(out, header, Imf::globalThreadCount());
            file.setFrameBuffer(interleaved_rgb(Imf::FLOAT, reinterpret_cast<char*>(sample.data()), sizeof(float), file.header().dataWindow()));
            file.writeTiles(0, file.numXTiles() - 1, 0, file.numYTiles() - 1);
        }
        return static_cast<double>(out.size());
    };
    return trial_bytes(Imf::ZIP_COMPRESSION) <= kZipKeepRatio * trial_bytes(Imf::NO_COMPRESSION) ? Imf::ZIP_COMPRESSION
                                                                                                  : Imf::NO_COMPRESSION;
}

int log2_exact(long long n) {
    int l = 0;
    while ((1ll << l) < n) ++l;
    return l;
}

// Throws OutputError("<name>: invalid specular chain: ...") unless `levels` is a chain: faces of
// N >> i texels, N a power of two, at most down to 1x1, every face image that size, and 6 N^2 within
// the readers' limit (so that read_specular_exr and load_image take the result back).
void check_chain(const std::string& name, const std::vector<CubeMap>& levels) {
    auto fail = [&](const std::string& why) { throw OutputError(name + ": invalid specular chain: " + why); };
    if (levels.empty()) fail("no levels");
    const int n = levels[0].size;
    if (!is_power_of_two(n)) fail("level 0 has faces of " + std::to_string(n) + " texels, not a power of two");
    if (6ull * static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) > kDefaultMaxPixels)
        fail("level 0 (6x" + std::to_string(n) + "^2 texels) is larger than the readers' limit of " +
             std::to_string(kDefaultMaxPixels) + " pixels");
    const std::size_t count = static_cast<std::size_t>(log2_exact(n)) + 1;
    if (levels.size() > count)
        fail(std::to_string(levels.size()) + " levels for a base of " + std::to_string(n) + " (at most " +
             std::to_string(count) + ", down to 1x1)");
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const int s = n >> i;
        if (levels[i].size != s)
            fail("level " + std::to_string(i) + " has faces of " + std::to_string(levels[i].size) + " texels, expected " +
                 std::to_string(s));
        for (int f = 0; f < kCubeFaceCount; ++f) {
            const Image& face = levels[i].faces[static_cast<std::size_t>(f)];
            if (face.width != s || face.height != s || face.rgb.size() != static_cast<std::size_t>(s) * s * 3)
                fail("level " + std::to_string(i) + " face " + cube_face_name(f) + " is " + std::to_string(face.width) +
                     "x" + std::to_string(face.height) + " with " + std::to_string(face.rgb.size()) +
                     " values, expected " + std::to_string(s) + "x" + std::to_string(s));
        }
    }
}

// The cube levels below a chain's last (to 1x1): each texel the solid-angle weighted mean of the 2x2
// texels above (cube_mip_chain's rule, here without the specular library).
std::vector<CubeMap> filler_levels(const CubeMap& last) {
    std::vector<CubeMap> out;
    const CubeMap* fine = &last;
    while (fine->size > 1) {
        const int n = fine->size / 2;
        CubeMap coarse(n);
        for (int face = 0; face < 6; ++face)
            for (int row = 0; row < n; ++row)
                for (int col = 0; col < n; ++col) {
                    double sum[3] = {0, 0, 0}, weight = 0;
                    for (int k = 0; k < 4; ++k) {
                        const int r = 2 * row + (k >> 1), c = 2 * col + (k & 1);
                        const double w = cube_texel_solid_angle(r, c, fine->size);
                        const float* t = fine->faces[static_cast<std::size_t>(face)].at(r, c);
                        for (int ch = 0; ch < 3; ++ch) sum[ch] += w * t[ch];
                        weight += w;
                    }
                    for (int ch = 0; ch < 3; ++ch) coarse.faces[static_cast<std::size_t>(face)].at(row, col)[ch] = static_cast<float>(sum[ch] / weight);
                }
        out.push_back(std::move(coarse));
        fine = &out.back();
    }
    return out;
}

// The two levels OpenEXR's ROUND_DOWN chain has below the 1x6 strip of the 1x1 cube level.
void extra_levels(const CubeMap& last, Image* l1x3, Image* l1x1) {
    *l1x3 = Image(1, 3);
    *l1x1 = Image(1, 1);
    for (int c = 0; c < 3; ++c) {
        double sum = 0;
        for (int k = 0; k < 3; ++k) {
            const double a = last.faces[static_cast<std::size_t>(2 * k)].rgb[static_cast<std::size_t>(c)];
            const double b = last.faces[static_cast<std::size_t>(2 * k + 1)].rgb[static_cast<std::size_t>(c)];
            const float m = static_cast<float>((a + b) / 2);
            l1x3->at(k, 0)[c] = m;
            sum += m;
        }
        l1x1->at(0, 0)[c] = static_cast<float>(sum / 3);
    }
}

std::vector<CubeMap> read_chain(const std::string& path, SpecularChainInfo* info) {
    if (lower_extension(path) != ".exr")
        input_error(path, "not an .exr file (a specular chain is a tiled, mip-mapped OpenEXR file)");
    init_openexr_threads();
    // read_image_size reads the header through image_io's guarded reader (magic, version, attribute
    // sizes within the file, deep data refused); when it cannot, load_image says why, from the header.
    if (!read_image_size(path)) {
        load_image(path);  // throws InputError("<path>: <problem>")
        input_error(path, "not a readable OpenEXR file");
    }
    int version = 0;
    const Imf::Header header = read_exr_header(path, &version);
    if (Imf::isMultiPart(version)) input_error(path, "a multi-part OpenEXR file; a specular chain is a single-part tiled file");
    if (!Imf::isTiled(version) || !header.hasTileDescription())
        input_error(path, "a scanline OpenEXR file; a specular chain is a tiled file with mipmap levels");
    const Imf::TileDescription td = header.tileDescription();
    if (td.mode != Imf::MIPMAP_LEVELS)
        input_error(path, std::string("a tiled file with ") + (td.mode == Imf::ONE_LEVEL ? "one level (no mipmaps)" : "ripmap levels") +
                              "; a specular chain has MIPMAP_LEVELS");
    if (td.roundingMode != Imf::ROUND_DOWN)
        input_error(path, "mipmap levels rounded up; a specular chain's levels are rounded down (ROUND_DOWN)");
    if (!Imf::hasEnvmap(header) || Imf::envmap(header) != Imf::ENVMAP_CUBE)
        input_error(path, "no envmap=cube attribute; a specular chain is a cube map");

    const Imath::Box2i dw = header.dataWindow();
    const long long w = static_cast<long long>(dw.max.x) - dw.min.x + 1, h = static_cast<long long>(dw.max.y) - dw.min.y + 1;
    if (w <= 0 || h != 6 * w || !is_power_of_two(w))
        input_error(path, "image is " + std::to_string(w) + "x" + std::to_string(h) +
                              "; a specular chain's level 0 is a vertical strip N x 6N with N a power of two");
    if (static_cast<std::uint64_t>(w) * static_cast<std::uint64_t>(h) > kDefaultMaxPixels)
        input_error(path, "image is " + std::to_string(w) + "x" + std::to_string(h) + ", more than the limit of " +
                              std::to_string(kDefaultMaxPixels) + " pixels");
    const int n = static_cast<int>(w);
    const int full_levels = log2_exact(n) + 1, file_levels = full_levels + 2;
    int cube_levels = full_levels;  // the chain's, bakeSpecularCubeLevels when given

    // Offset tables are sized by the tile count: refuse absurd tilings (1x1 tiles of a large image)
    // before OpenEXR allocates them.
    if (td.xSize < 1 || td.ySize < 1) input_error(path, "invalid tile size");
    std::uint64_t tiles = 0;
    for (int l = 0; l < file_levels; ++l) {
        const std::uint64_t lw = std::max<long long>(1, w >> l), lh = std::max<long long>(1, h >> l);
        tiles += ((lw + td.xSize - 1) / td.xSize) * ((lh + td.ySize - 1) / td.ySize);
    }
    if (tiles > (1u << 22))
        input_error(path, "tiles of " + std::to_string(td.xSize) + "x" + std::to_string(td.ySize) + " make " +
                              std::to_string(tiles) + " tiles, more than the limit of " + std::to_string(1u << 22));

    std::string missing;
    for (const char* c : {"R", "G", "B"})
        if (!header.channels().findChannel(c)) missing += std::string(missing.empty() ? "" : ", ") + c;
    if (!missing.empty()) {
        std::string names;
        for (auto it = header.channels().begin(); it != header.channels().end(); ++it)
            names += std::string(names.empty() ? "" : ", ") + it.name();
        input_error(path, "no channel " + missing + " (channels: " + (names.empty() ? "none" : names) + ")");
    }

    SpecularChainInfo got;
    if (header.find(kAttrCubeLevels) != header.end()) {
        const auto* a = header.findTypedAttribute<Imf::IntAttribute>(kAttrCubeLevels);
        if (!a) input_error(path, std::string("attribute ") + kAttrCubeLevels + " is not an int");
        if (a->value() < 1 || a->value() > full_levels)
            input_error(path, std::string(kAttrCubeLevels) + " says " + std::to_string(a->value()) + " cube levels; a base of " +
                                  std::to_string(n) + " has 1 to " + std::to_string(full_levels));
        cube_levels = a->value();
    }
    if (header.find(kAttrRoughness) != header.end()) {
        const auto* a = header.findTypedAttribute<Imf::FloatVectorAttribute>(kAttrRoughness);
        if (!a) input_error(path, std::string("attribute ") + kAttrRoughness + " is not a float vector");
        if (a->value().size() != static_cast<std::size_t>(cube_levels))
            input_error(path, std::string(kAttrRoughness) + " has " + std::to_string(a->value().size()) + " values for " +
                                  std::to_string(cube_levels) + " cube levels");
        for (float r : a->value()) got.roughness.push_back(r);
    }
    if (header.find(kAttrConvention) != header.end()) {
        const auto* a = header.findTypedAttribute<Imf::StringAttribute>(kAttrConvention);
        if (!a) input_error(path, std::string("attribute ") + kAttrConvention + " is not a string");
        got.convention = a->value();
    }

    Imf::TiledInputFile file(path.c_str(), Imf::globalThreadCount());
    if (file.numLevels() != file_levels)  // cannot differ for the header checked above; cheap to say
        input_error(path, std::to_string(file.numLevels()) + " mipmap levels, expected " + std::to_string(file_levels));
    if (!file.isComplete()) input_error(path, "truncated or incomplete file (some tiles are missing)");

    std::vector<CubeMap> chain;
    chain.reserve(static_cast<std::size_t>(cube_levels));
    for (int l = 0; l < file_levels; ++l) {
        const Imath::Box2i ldw = file.dataWindowForLevel(l);
        Image strip(file.levelWidth(l), file.levelHeight(l));
        file.setFrameBuffer(interleaved_rgb(Imf::FLOAT, reinterpret_cast<char*>(strip.rgb.data()), sizeof(float), ldw));
        try {
            file.readTiles(0, file.numXTiles(l) - 1, 0, file.numYTiles(l) - 1, l);
        } catch (const std::exception& e) {
            input_error(path, "truncated or damaged file (level " + std::to_string(l) + "): " + e.what());
        }
        if (l < cube_levels) {
            if (strip.width != n >> l || strip.height != 6 * (n >> l))
                input_error(path, "level " + std::to_string(l) + " is " + std::to_string(strip.width) + "x" +
                                      std::to_string(strip.height) + ", expected a vertical strip " +
                                      std::to_string(n >> l) + "x" + std::to_string(6 * (n >> l)));
            chain.push_back(extract_cube(strip, Layout::VStrip));
        }
    }
    if (info) *info = std::move(got);
    return chain;
}

}  // namespace

void write_specular_exr(const std::string& path, const std::vector<CubeMap>& levels, const SpecularChainInfo& info) {
    check_chain(path, levels);
    const int n = levels[0].size;
    const int cube_levels = static_cast<int>(levels.size()), full_levels = log2_exact(n) + 1;
    std::vector<float> roughness;
    if (info.roughness.empty()) {
        for (int i = 0; i < cube_levels; ++i)
            roughness.push_back(cube_levels > 1 ? static_cast<float>(static_cast<double>(i) / (cube_levels - 1)) : 0.0f);
    } else if (info.roughness.size() != levels.size()) {
        throw OutputError(path + ": " + std::to_string(info.roughness.size()) + " roughness values for " +
                          std::to_string(levels.size()) + " levels");
    } else {
        for (double r : info.roughness) roughness.push_back(static_cast<float>(r));
    }
    const std::vector<CubeMap> filler = filler_levels(levels.back());
    Image extra_1x3, extra_1x1;
    extra_levels(filler.empty() ? levels.back() : filler.back(), &extra_1x3, &extra_1x1);
    init_openexr_threads();

    // Level 0 assembled once: the codec's trial reads it, and the write.
    const Image level0 = assemble_cube(levels[0], Layout::VStrip);

    write_atomically(path, [&](const std::string& tmp) {
        try {
            Imf::Header header(n, 6 * n);
            header.compression() = chain_compression(level0);
            // Full float, like write_exr: half would round the prefiltered values.
            for (const char* c : {"R", "G", "B"}) header.channels().insert(c, Imf::Channel(Imf::FLOAT));
            header.setTileDescription(Imf::TileDescription(kTileSize, kTileSize, Imf::MIPMAP_LEVELS, Imf::ROUND_DOWN));
            Imf::addEnvmap(header, Imf::ENVMAP_CUBE);
            header.insert(kAttrCubeLevels, Imf::IntAttribute(cube_levels));
            header.insert(kAttrRoughness, Imf::FloatVectorAttribute(roughness));
            header.insert(kAttrConvention, Imf::StringAttribute(info.convention.empty() ? kSpecularConvention : info.convention));
            header.insert(kAttrLayout, Imf::StringAttribute(kLayoutText));
            header.insert(kAttrExtraLevels, Imf::StringAttribute(cube_levels < full_levels ? kShortChainLevelsText : kExtraLevelsText));

            // We own the stream, as write_exr does: the output file's destructor writes the offset
            // table and swallows any error doing so; the stream's state tells.
            std::ofstream ofs(tmp, std::ios::binary | std::ios::trunc);
            if (!ofs) throw OutputError(path + ": cannot open the temporary file " + tmp);
            {
                Imf::StdOFStream os(ofs, tmp.c_str());
                Imf::TiledOutputFile file(os, header, Imf::globalThreadCount());
                if (file.numLevels() != full_levels + 2)
                    throw OutputError(path + ": internal error: OpenEXR makes " + std::to_string(file.numLevels()) +
                                      " levels, expected " + std::to_string(full_levels + 2));
                for (int l = 0; l < file.numLevels(); ++l) {
                    Image strip;
                    const Image* img = &strip;
                    if (l == 0) img = &level0;
                    else if (l < cube_levels) strip = assemble_cube(levels[static_cast<std::size_t>(l)], Layout::VStrip);
                    else if (l < full_levels) strip = assemble_cube(filler[static_cast<std::size_t>(l - cube_levels)], Layout::VStrip);
                    else img = l == full_levels ? &extra_1x3 : &extra_1x1;
                    if (img->width != file.levelWidth(l) || img->height != file.levelHeight(l))
                        throw OutputError(path + ": internal error: level " + std::to_string(l) + " size mismatch");
                    file.setFrameBuffer(interleaved_rgb(Imf::FLOAT, reinterpret_cast<char*>(const_cast<float*>(img->rgb.data())), sizeof(float),
                                                           file.dataWindowForLevel(l)));
                    file.writeTiles(0, file.numXTiles(l) - 1, 0, file.numYTiles(l) - 1, l);
                }
            }
            ofs.close();
            if (ofs.fail()) throw OutputError(path + ": write error (disk full?)");
        } catch (const OutputError&) {
            throw;
        } catch (const std::exception& e) {
            throw OutputError(path + ": " + one_line(e.what()));
        }
    });
}

std::vector<CubeMap> read_specular_exr(const std::string& path, SpecularChainInfo* info) {
    try {
        return read_chain(path, info);
    } catch (const InputError&) {
        throw;
    } catch (const std::bad_alloc&) {
        input_error(path, "not enough memory to read the specular chain");
    } catch (const std::exception& e) {
        input_error(path, e.what());  // Iex: truncated header or tiles, and the like
    }
}

bool has_level_placeholder(const std::string& pattern) { return pattern.find("{level}") != std::string::npos; }

std::string expand_level_placeholder(const std::string& pattern, int level) {
    static const std::string key = "{level}";
    std::string out;
    std::size_t i = 0;
    for (std::size_t at; (at = pattern.find(key, i)) != std::string::npos; i = at + key.size())
        out += pattern.substr(i, at - i) + std::to_string(level);
    return out + pattern.substr(i);
}

std::vector<std::string> write_specular_level_files(const std::string& pattern, const std::vector<CubeMap>& levels,
                                                    const SpecularChainInfo& info) {
    if (!has_level_placeholder(pattern))
        throw std::invalid_argument("'" + pattern + "': no {level} placeholder (one file is written per level)");
    check_chain(pattern, levels);
    const std::size_t count = levels.size();
    if (!info.roughness.empty() && info.roughness.size() != count)
        throw OutputError(pattern + ": " + std::to_string(info.roughness.size()) + " roughness values for " + std::to_string(count) +
                          " levels");
    std::vector<std::string> names;
    // One set, all levels or none, unless the caller's set (an input's outputs) holds them already.
    OutputSet levels_set;
    {
        const OutputSet::Scope scope(levels_set);
        for (std::size_t i = 0; i < levels.size(); ++i) {
            const std::string name = expand_level_placeholder(pattern, static_cast<int>(i));
            const double r = info.roughness.empty() ? (count > 1 ? static_cast<double>(i) / static_cast<double>(count - 1) : 0.0)
                                                    : info.roughness[i];
            char roughness[32];
            std::snprintf(roughness, sizeof roughness, "%.9g", r);
            write_exr(name, assemble_cube(levels[i], Layout::VStrip), EnvmapHint::Cube,
                      {{kAttrLevel, std::to_string(i) + " of " + std::to_string(count)},
                       {kAttrRoughness, roughness},
                       {kAttrConvention, info.convention.empty() ? kSpecularConvention : info.convention}});
            names.push_back(name);
        }
    }
    levels_set.commit();
    return names;
}

}  // namespace bake
