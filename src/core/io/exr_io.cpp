// OpenEXR files: reading (any compression, scanline or tiled, RGB / RGBA / Y / luminance-chroma,
// part 0 of a multi-part file) with every declared size checked before allocation, and writing
// float RGB with ZIP. image_io.cpp dispatches to these by extension.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfEnvmapAttribute.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <OpenEXR/ImfMultiPartInputFile.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfRgbaFile.h>
#include <OpenEXR/ImfStandardAttributes.h>
#include <OpenEXR/ImfStdIO.h>
#include <OpenEXR/ImfStringAttribute.h>
#include <OpenEXR/ImfThreading.h>
#include <OpenEXR/ImfTiledInputPart.h>
#include <OpenEXR/ImfVersion.h>

#include "atomic_file.h"
#include "errors.h"
#include "exr_common.h"
#include "image_io.h"

namespace bake {

namespace {

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

// Walks part 0's attribute list (name, type, int32 size, value) and refuses any declared size
// beyond the end of the file: OpenEXR allocates an attribute's declared size before reading it,
// so a few hundred bytes could otherwise ask for gigabytes (found by fuzz_load_image).
void check_exr_attribute_sizes(const std::string& path, int version) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) input_error(path, "cannot open");
    const std::streamoff file_size = in.tellg();
    in.seekg(8);  // magic number and version
    // As OpenEXR's Xdr::read reads a name or type: up to the NUL, or max_length + 1 characters and
    // no NUL (the next byte then starts the next field; found by fuzz_specular_exr: a 32-character
    // name without its NUL put this walk out of step with OpenEXR's).
    const std::size_t max_length = (version & Imf::LONG_NAMES_FLAG) ? 255 : 31;
    auto read_string = [&](std::string& out) {
        out.clear();
        for (char c; in.get(c);) {
            if (c == '\0') return true;
            out.push_back(c);
            if (out.size() == max_length + 1) return true;
        }
        return false;
    };
    auto read_u32 = [&](std::uint32_t& v) {
        unsigned char b[4];
        if (!in.read(reinterpret_cast<char*>(b), 4)) return false;
        v = std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 | std::uint32_t(b[3]) << 24;
        return true;
    };
    // OpenEXR's typed attributes read their own layout, whatever the declared size says; only
    // strings, vectors and unknown (opaque) types read the declared size. The walk checks every
    // declared size and steps as OpenEXR does (found by fuzz_specular_exr: a channel list shorter
    // than its declared size put a size-stepping walk out of step, and an opaque attribute
    // further on asked for 1.3 GB).
    static const std::map<std::string, int> fixed = {
        {"box2i", 16}, {"box2f", 16}, {"chromaticities", 32}, {"compression", 1}, {"double", 8}, {"envmap", 1},
        {"float", 4}, {"int", 4}, {"keycode", 28}, {"lineOrder", 1}, {"m33f", 36}, {"m33d", 72}, {"m44f", 64},
        {"m44d", 128}, {"rational", 8}, {"tiledesc", 9}, {"timecode", 8}, {"v2i", 8}, {"v2f", 8}, {"v2d", 16},
        {"v3i", 12}, {"v3f", 12}, {"v3d", 24}, {"deepImageState", 1}};
    std::string name, type;
    while (read_string(name) && !name.empty()) {
        std::uint32_t declared = 0;
        if (!read_string(type) || !read_u32(declared)) return;  // truncated: OpenEXR reports it
        const std::int32_t size = static_cast<std::int32_t>(declared);
        const std::streamoff remaining = file_size - in.tellg();
        auto too_big = [&](long long bytes) {
            input_error(path, "invalid OpenEXR header: attribute '" + name + "' claims " + std::to_string(bytes) +
                                  " bytes, more than the " + std::to_string(remaining) + " left in the file");
        };
        // A declared size past the end is malformed whatever reads it (and is allocated by some readers).
        if (size < 0 || size > remaining) too_big(size);
        if (const auto f = fixed.find(type); f != fixed.end()) {
            in.seekg(f->second, std::ios::cur);
        } else if (type == "chlist") {
            // Channels until an empty name: name, pixel type, pLinear + 3 reserved, x and y sampling.
            std::string channel;
            while (read_string(channel) && !channel.empty()) in.seekg(16, std::ios::cur);
        } else if (type == "preview") {
            std::uint32_t w = 0, h = 0;
            if (!read_u32(w) || !read_u32(h)) return;
            const long long bytes = 4LL * w * h;  // allocated before it is read
            if (bytes > file_size - in.tellg()) too_big(bytes);
            in.seekg(bytes, std::ios::cur);
        } else {
            in.seekg(size, std::ios::cur);
        }
        if (!in) return;  // past the end: OpenEXR reports the truncation
    }
}

// Reading level 0 of a multi-resolution tiled file never touches the other levels' tiles, so a file
// cut inside them would load; it is still a truncated file, so read every tile's raw (compressed)
// bytes once to be sure they are all there. Tiled multi-level files only; costs one read, no decode.
void check_all_tiles_present(const std::string& path) {
    Imf::MultiPartInputFile multi(path.c_str(), Imf::globalThreadCount());
    Imf::TiledInputPart part(multi, 0);
    const bool ripmap = part.levelMode() == Imf::RIPMAP_LEVELS;
    try {
        for (int ly = 0; ly < part.numYLevels(); ++ly)
            for (int lx = 0; lx < part.numXLevels(); ++lx) {
                if (!ripmap && lx != ly) continue;
                for (int ty = 0; ty < part.numYTiles(ly); ++ty)
                    for (int tx = 0; tx < part.numXTiles(lx); ++tx) {
                        int dx = tx, dy = ty, lvx = lx, lvy = ly, size = 0;
                        const char* data = nullptr;
                        part.rawTileData(dx, dy, lvx, lvy, data, size);
                    }
            }
    } catch (const std::exception& e) {
        input_error(path, std::string("truncated or damaged file (in its lower-resolution levels): ") + e.what());
    }
}

// Scan lines in one compressed block (OpenEXR's line buffer) of each compression.
int exr_lines_per_block(Imf::Compression c) {
    switch (c) {
        case Imf::ZIP_COMPRESSION:
        case Imf::PXR24_COMPRESSION: return 16;
        case Imf::PIZ_COMPRESSION:
        case Imf::B44_COMPRESSION:
        case Imf::B44A_COMPRESSION:
        case Imf::DWAA_COMPRESSION: return 32;
        case Imf::DWAB_COMPRESSION: return 256;
        default: return 1;
    }
}

// InputFile's thread argument: it keeps twice that many line buffers, each decoding one block at a
// time on the global pool and holding ~1.2x the block's decoded size meanwhile (measured). One per
// core added ~240 MB to an 8192x4096 half DWAB bake on 16 cores. So the blocks in flight may
// decode to at most a quarter of the decoded float image: 8 of that file's 16 (peak 1.05x the
// float image on the GPU path, 0.91x on the CPU path, against 1.36x / 1.21x with 16; load 137 ms
// against 124 ms: bench/NOTES.md), and one per core for the other compressions' small blocks.
int exr_line_buffer_threads(const Imf::Header& header) {
    const Imath::Box2i dw = header.dataWindow();
    const double width = static_cast<double>(dw.max.x) - dw.min.x + 1, height = static_cast<double>(dw.max.y) - dw.min.y + 1;
    double texel_bytes = 0;  // as stored: what a block decodes to
    for (auto it = header.channels().begin(); it != header.channels().end(); ++it)
        texel_bytes += it.channel().type == Imf::HALF ? 2 : 4;
    const double per_buffer = texel_bytes * width * exr_lines_per_block(header.compression());
    const double budget = 0.25 * 12.0 * width * height;
    const int by_memory = per_buffer > 0 ? static_cast<int>(std::min(1e6, budget / per_buffer)) : 1 << 20;
    const int buffers = std::max(2, std::min(Imf::globalThreadCount(), by_memory));
    return std::max(1, buffers / 2);
}

}  // namespace

LoadedImage load_exr(const std::string& path, std::uint64_t max_pixels, PackedImage* half_out) {
    init_openexr_threads();
    {
        // Fewer than 4 bytes cannot hold the magic number: say so instead of "end of file".
        std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
        if (!f) input_error(path, std::string("cannot open: ") + std::strerror(errno));
        unsigned char magic[4] = {};
        if (std::fread(magic, 1, 4, f.get()) != 4 || !Imf::isImfMagic(reinterpret_cast<char*>(magic)))
            input_error(path, "not an OpenEXR file (bad magic number)");
    }

    int version = 0;
    const Imf::Header first_header = read_exr_header(path, &version);
    const Imath::Box2i dw = first_header.dataWindow();
    const long long width = static_cast<long long>(dw.max.x) - dw.min.x + 1;
    const long long height = static_cast<long long>(dw.max.y) - dw.min.y + 1;
    check_image_size(path, width, height, max_pixels);

    // Multi-part: part 0, said in a note; tiled: level 0.
    Imf::InputFile file(path.c_str(), exr_line_buffer_threads(first_header));
    const Imf::Header& header = file.header();
    if (header.dataWindow() != dw) input_error(path, "inconsistent header");
    if (!file.isComplete()) input_error(path, "truncated or incomplete file (some pixel data is missing)");
    if (header.hasTileDescription() && header.tileDescription().mode != Imf::ONE_LEVEL)
        check_all_tiles_present(path);

    const Imf::ChannelList& channels = header.channels();
    const bool has_r = channels.findChannel("R"), has_g = channels.findChannel("G"),
               has_b = channels.findChannel("B"), has_y = channels.findChannel("Y");
    const bool has_chroma = channels.findChannel("RY") || channels.findChannel("BY");
    auto channel_names = [&] {
        std::string names;
        for (auto it = channels.begin(); it != channels.end(); ++it) names += std::string(names.empty() ? "" : ", ") + it.name();
        return names.empty() ? std::string("none") : names;
    };
    // Some of R, G, B but not all (issue 18 #9: read as blue = 0): not an RGB environment.
    if ((has_r || has_g || has_b) && !(has_r && has_g && has_b))
        input_error(path, "has only some of the R, G and B channels (channels: " + channel_names() +
                              "); an environment needs all three, or Y");

    LoadedImage out;
    if (const int parts = Imf::isMultiPart(version) ? Imf::MultiPartInputFile(path.c_str(), 1).parts() : 1; parts > 1)
        out.notes.push_back("a multi-part EXR of " + std::to_string(parts) + " parts: part 0" +
                            (header.hasName() ? " ('" + header.name() + "')" : std::string()) + " is baked");
    if (Imf::hasEnvmap(header)) {
        const Imf::Envmap e = Imf::envmap(header);
        out.envmap = e == Imf::ENVMAP_LATLONG ? EnvmapHint::LatLong
                   : e == Imf::ENVMAP_CUBE    ? EnvmapHint::Cube
                                              : EnvmapHint::None;
    }
    if (half_out && has_r && has_g && has_b && channels.findChannel("R")->type == Imf::HALF &&
        channels.findChannel("G")->type == Imf::HALF && channels.findChannel("B")->type == Imf::HALF) {
        PackedImage& p = *half_out;
        p.encoding = TexelEncoding::Half;
        p.width = static_cast<int>(width);
        p.height = static_cast<int>(height);
        p.bytes.resize(p.pixel_count() * 6);  // zeros: absent channels read as 0
        file.setFrameBuffer(interleaved_rgb(Imf::HALF, reinterpret_cast<char*>(p.bytes.data()), 2, dw));
        file.readPixels(dw.min.y, dw.max.y);
        return out;
    }
    out.image = Image(static_cast<int>(width), static_cast<int>(height));
    float* base = out.image.rgb.data();
    const std::size_t xs = 3 * sizeof(float), ys = xs * static_cast<std::size_t>(width);

    if (has_r || has_g || has_b) {
        // Read straight into the interleaved buffer; OpenEXR converts half/uint to float.
        file.setFrameBuffer(interleaved_rgb(Imf::FLOAT, reinterpret_cast<char*>(base), sizeof(float), dw));
        file.readPixels(dw.min.y, dw.max.y);
    } else if (has_y && has_chroma) {
        // Luminance/chroma (sub-sampled RY, BY): only RgbaInputFile reconstructs RGB, in half.
        Imf::RgbaInputFile rgba(path.c_str(), Imf::globalThreadCount());
        std::vector<Imf::Rgba> px(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
        rgba.setFrameBuffer(px.data() - dw.min.x - dw.min.y * width, 1, static_cast<std::size_t>(width));
        rgba.readPixels(dw.min.y, dw.max.y);
        for (std::size_t i = 0; i < px.size(); ++i) {
            base[3 * i + 0] = px[i].r;
            base[3 * i + 1] = px[i].g;
            base[3 * i + 2] = px[i].b;
        }
    } else if (has_y) {
        // Luminance only: grey. Read Y into the red slot, then copy.
        Imf::FrameBuffer fb;
        fb.insert("Y", Imf::Slice::Make(Imf::FLOAT, base, dw, xs, ys));
        file.setFrameBuffer(fb);
        file.readPixels(dw.min.y, dw.max.y);
        for (std::size_t i = 0, n = out.image.pixel_count(); i < n; ++i)
            base[3 * i + 1] = base[3 * i + 2] = base[3 * i];
    } else {
        input_error(path, "no R, G, B or Y channel (channels: " + channel_names() + ")");
    }
    return out;
}

Imf::Header read_exr_header(const std::string& path, int* version_out) {
    Imf::StdIFStream is(path.c_str());
    char start[8] = {};  // magic number, then the little-endian version field
    try {
        is.read(start, 8);
    } catch (const std::exception&) {
        input_error(path, "not an OpenEXR file (too short)");
    }
    if (!Imf::isImfMagic(start)) input_error(path, "not an OpenEXR file (bad magic number)");
    int version = 0;
    for (int i = 3; i >= 0; --i) version = (version << 8) | static_cast<unsigned char>(start[4 + i]);
    if (Imf::getVersion(version) != Imf::EXR_VERSION)
        input_error(path, "unsupported OpenEXR version " + std::to_string(Imf::getVersion(version)));
    check_exr_attribute_sizes(path, version);
    Imf::Header header;
    try {
        header.readFrom(is, version);
    } catch (const std::exception& e) {
        input_error(path, std::string("invalid or truncated OpenEXR header: ") + e.what());
    }
    if (Imf::isNonImage(version)) input_error(path, "deep OpenEXR data is not supported");
    if (version_out) *version_out = version;
    return header;
}

Imf::FrameBuffer interleaved_rgb(Imf::PixelType type, char* base, std::size_t channel_bytes, const Imath::Box2i& dw) {
    const std::size_t xs = 3 * channel_bytes, ys = xs * static_cast<std::size_t>(dw.max.x - dw.min.x + 1);
    Imf::FrameBuffer fb;
    fb.insert("R", Imf::Slice::Make(type, base + 0 * channel_bytes, dw, xs, ys));
    fb.insert("G", Imf::Slice::Make(type, base + 1 * channel_bytes, dw, xs, ys));
    fb.insert("B", Imf::Slice::Make(type, base + 2 * channel_bytes, dw, xs, ys));
    return fb;
}

void write_exr(const std::string& path, const Image& image, EnvmapHint hint, const ExrAttributes& attributes) {
    if (image.width <= 0 || image.height <= 0 || image.rgb.size() != image.pixel_count() * 3)
        throw OutputError(path + ": invalid image (" + std::to_string(image.width) + "x" +
                          std::to_string(image.height) + " with " + std::to_string(image.rgb.size()) +
                          " values)");
    init_openexr_threads();
    write_atomically(path, [&](const std::string& tmp) {
        try {
            Imf::Header header(image.width, image.height);
            header.compression() = Imf::ZIP_COMPRESSION;
            // Full float: the outputs are exact values, half would round them.
            header.channels().insert("R", Imf::Channel(Imf::FLOAT));
            header.channels().insert("G", Imf::Channel(Imf::FLOAT));
            header.channels().insert("B", Imf::Channel(Imf::FLOAT));
            if (hint == EnvmapHint::LatLong) Imf::addEnvmap(header, Imf::ENVMAP_LATLONG);
            if (hint == EnvmapHint::Cube) Imf::addEnvmap(header, Imf::ENVMAP_CUBE);
            for (const auto& [name, value] : attributes) header.insert(name, Imf::StringAttribute(value));

            // We own the stream: OutputFile's destructor writes the offset table and swallows any
            // error doing so, so a full disk would otherwise go unnoticed. The stream's state tells.
            std::ofstream ofs(tmp, std::ios::binary | std::ios::trunc);
            if (!ofs) throw OutputError(path + ": cannot open the temporary file " + tmp);
            {
                Imf::StdOFStream os(ofs, tmp.c_str());
                Imf::OutputFile file(os, header, Imf::globalThreadCount());
                file.setFrameBuffer(interleaved_rgb(Imf::FLOAT, reinterpret_cast<char*>(const_cast<float*>(image.rgb.data())),
                                                    sizeof(float), header.dataWindow()));
                file.writePixels(image.height);
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

void init_openexr_threads() {
    static std::once_flag once;
    std::call_once(once, [] {
        const unsigned n = std::thread::hardware_concurrency();
        Imf::setGlobalThreadCount(static_cast<int>(n > 0 ? n : 1));
    });
}

}  // namespace bake
