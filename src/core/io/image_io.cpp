#include "image_io.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfEnvmapAttribute.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <OpenEXR/ImfMultiPartInputFile.h>
#include <OpenEXR/ImfTiledInputPart.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfRgbaFile.h>
#include <OpenEXR/ImfStandardAttributes.h>
#include <OpenEXR/ImfStdIO.h>
#include <OpenEXR/ImfThreading.h>
#include <OpenEXR/ImfStringAttribute.h>
#include <OpenEXR/ImfVersion.h>

#include "atomic_file.h"
#include "errors.h"
#include "exr_common.h"
#include "radiance_hdr.h"

// --- stb_image, Radiance .hdr only ---------------------------------------------------------------
// stb's allocations go through a per-thread tracker so that a decode aborted by an exception from
// our read callback (see HdrReader) does not leak what stb had allocated so far.
namespace bake {
namespace {
struct StbAllocations {
    std::vector<void*> live;
};
thread_local StbAllocations* g_stb_allocs = nullptr;

void* stb_track_malloc(std::size_t size) {
    void* p = std::malloc(size);
    if (p && g_stb_allocs) g_stb_allocs->live.push_back(p);
    return p;
}
void stb_track_free(void* p) {
    if (!p) return;
    if (g_stb_allocs) {
        auto& v = g_stb_allocs->live;
        auto it = std::find(v.begin(), v.end(), p);
        if (it != v.end()) v.erase(it);
    }
    std::free(p);
}
[[maybe_unused]] void* stb_track_realloc(void* p, std::size_t size) {
    void* q = std::realloc(p, size);
    if (q && g_stb_allocs) {
        auto& v = g_stb_allocs->live;
        auto it = std::find(v.begin(), v.end(), p);
        if (it != v.end()) *it = q; else v.push_back(q);
    }
    return q;
}
}  // namespace
}  // namespace bake

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC  // private copy: another translation unit may embed stb_image too
#define STBI_ONLY_HDR
#define STBI_NO_STDIO     // we feed it through callbacks only
#define STBI_MALLOC(sz) ::bake::stb_track_malloc(sz)
#define STBI_REALLOC(p, sz) ::bake::stb_track_realloc(p, sz)
#define STBI_FREE(p) ::bake::stb_track_free(p)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include <stb_image.h>
#pragma GCC diagnostic pop

namespace bake {

void check_image_size(const std::string& path, long long width, long long height, std::uint64_t max_pixels) {
    if (width <= 0 || height <= 0)
        input_error(path, "invalid image size " + std::to_string(width) + "x" + std::to_string(height) +
                              " (width and height must be positive)");
    const std::uint64_t pixels = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
    if (pixels > max_pixels)
        input_error(path, "image is " + std::to_string(width) + "x" + std::to_string(height) + " = " +
                              std::to_string(pixels) + " pixels, more than the limit of " +
                              std::to_string(max_pixels) + " pixels");
}

namespace {

// Missing file, directory, unreadable, empty: the same words for both formats.
void check_regular_file(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        if (err == ENOENT) input_error(path, "no such file");
        input_error(path, std::string("cannot access: ") + std::strerror(err));
    }
    if (S_ISDIR(st.st_mode)) input_error(path, "is a directory, not an image file");
    if (!S_ISREG(st.st_mode)) input_error(path, "not a regular file");
    if (st.st_size == 0) input_error(path, "empty file");
}

// ---------------------------------------------------------------------------------------------
// Radiance .hdr
//
// stb's HDR decoder treats end of file as an endless stream of zero bytes: a truncated file
// decodes "successfully" with black pixels, and in an RLE scanline a zero count makes no progress,
// so a file cut inside RLE data loops forever. We therefore stream the file through callbacks and
// abort (by exception) the moment the decoder wants a byte the file does not have.
struct Truncated {};

struct HdrReader {
    std::FILE* f = nullptr;
    int refill_size = -1;  // size of stb's buffer refills (its first request); other sizes are getn()

    static int read(void* user, char* data, int size) {
        auto* r = static_cast<HdrReader*>(user);
        if (r->refill_size < 0) r->refill_size = size;
        const std::size_t got = std::fread(data, 1, static_cast<std::size_t>(size), r->f);
        // A refill may legitimately come back short at the end of the file; an empty one means the
        // decoder wants bytes past the end. A direct getn() (flat pixels) must be satisfied fully.
        if (size > 0 && (got == 0 || (size != r->refill_size && static_cast<int>(got) < size)))
            throw Truncated{};
        return static_cast<int>(got);
    }
    static void skip(void* user, int n) { std::fseek(static_cast<HdrReader*>(user)->f, n, SEEK_CUR); }
    static int eof(void* user) {
        auto* r = static_cast<HdrReader*>(user);
        return std::feof(r->f) || std::ferror(r->f);
    }
    void rewind() {
        std::clearerr(f);
        std::fseek(f, 0, SEEK_SET);
        refill_size = -1;
    }
};

const stbi_io_callbacks kHdrCallbacks = {&HdrReader::read, &HdrReader::skip, &HdrReader::eof};

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

// With rgbe_out, the texels go there as RGBE bytes when the file is one the parallel decoder reads
// (nearly all); otherwise, and without rgbe_out, the result is float.
LoadedImage load_hdr(const std::string& path, std::uint64_t max_pixels, PackedImage* rgbe_out = nullptr) {
    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
    if (!file) input_error(path, std::string("cannot open: ") + std::strerror(errno));
    HdrReader reader;
    reader.f = file.get();

    // 1. Magic.
    bool is_hdr = false;
    try {
        is_hdr = stbi_is_hdr_from_callbacks(&kHdrCallbacks, &reader) != 0;
    } catch (const Truncated&) {
        is_hdr = false;  // shorter than the magic itself
    }
    if (!is_hdr) input_error(path, "not a Radiance HDR file (no '#?RADIANCE' or '#?RGBE' signature)");

    // 2. Header only: dimensions, checked before anything is allocated.
    int width = 0, height = 0, comp = 0;
    reader.rewind();
    try {
        if (!stbi_info_from_callbacks(&kHdrCallbacks, &reader, &width, &height, &comp))
            input_error(path, "invalid or unsupported Radiance HDR header (expected FORMAT=32-bit_rle_rgbe "
                              "and a '-Y <height> +X <width>' resolution line)");
    } catch (const Truncated&) {
        input_error(path, "truncated file (ends inside the header)");
    }
    check_image_size(path, width, height, max_pixels);

    // 3. Pixels: on all cores for the usual layout, bit-identical to stb; stb for the rest, whose
    // handling and messages stay the reference.
    const bool parallel = radiance_scanlines_plausible(path, width, height);
    if (parallel && rgbe_out) {
        PackedImage packed;
        packed.encoding = TexelEncoding::Rgbe8;
        packed.width = width;
        packed.height = height;
        packed.bytes.resize(packed.pixel_count() * 4);
        if (decode_radiance_scanlines(path, width, height, RadianceTarget::Rgbe8, packed.bytes.data())) {
            *rgbe_out = std::move(packed);
            return {};
        }
    } else if (parallel) {
        LoadedImage out;
        out.image = Image(width, height);
        if (decode_radiance_scanlines(path, width, height, RadianceTarget::Float, out.image.rgb.data())) return out;
    }
    reader.rewind();
    StbAllocations allocs;
    g_stb_allocs = &allocs;
    float* data = nullptr;
    int w = 0, h = 0;
    try {
        data = stbi_loadf_from_callbacks(&kHdrCallbacks, &reader, &w, &h, &comp, 3);
    } catch (const Truncated&) {
        g_stb_allocs = nullptr;
        for (void* p : allocs.live) std::free(p);
        input_error(path, "truncated file (pixel data ends early)");
    }
    g_stb_allocs = nullptr;
    if (!data) {
        for (void* p : allocs.live) std::free(p);
        const char* why = stbi_failure_reason();
        input_error(path, std::string("cannot decode Radiance HDR data: ") + (why ? why : "unknown error"));
    }
    std::unique_ptr<float, decltype(&std::free)> owned(data, &std::free);
    if (std::ferror(file.get())) input_error(path, "read error");
    if (w != width || h != height) input_error(path, "inconsistent header");

    LoadedImage out;
    out.image = Image(width, height);
    std::memcpy(out.image.rgb.data(), data, out.image.rgb.size() * sizeof(float));
    return out;
}

// ---------------------------------------------------------------------------------------------
// OpenEXR

// Runs a loader, turning every failure into InputError("<path>: <problem>") (one line).
template <typename Load>
LoadedImage with_input_errors(const std::string& path, const Load& load) {
    try {
        return load();
    } catch (const InputError&) {
        throw;
    } catch (const std::bad_alloc&) {
        input_error(path, "not enough memory to load the image");
    } catch (const std::exception& e) {
        // Iex exceptions derive from std::exception; their text can span lines.
        input_error(path, e.what());
    }
}

}  // namespace

LoadedImage load_image(const std::string& path, std::uint64_t max_pixels) {
    const std::string ext = lower_extension(path);
    if (ext != ".hdr" && ext != ".exr")
        input_error(path, (ext.empty() ? std::string("unsupported file type: no extension")
                                       : "unsupported file type '" + ext + "'") +
                              " (expected .hdr or .exr)");
    check_regular_file(path);
    return with_input_errors(path, [&] { return ext == ".hdr" ? load_hdr(path, max_pixels) : load_exr(path, max_pixels); });
}

LoadedImage load_image_packed(const std::string& path, std::uint64_t max_pixels) {
    const std::string ext = lower_extension(path);
    if (ext != ".hdr" && ext != ".exr") return load_image(path, max_pixels);  // its error
    check_regular_file(path);
    return with_input_errors(path, [&] {
        PackedImage packed;
        LoadedImage out = ext == ".exr" ? load_exr(path, max_pixels, &packed) : load_hdr(path, max_pixels, &packed);
        out.packed = std::move(packed);
        return out;
    });
}

std::optional<std::pair<int, int>> read_image_size(const std::string& path) {
    // Only regular files: opening a FIFO blocks until a writer comes (the loader says what it is).
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    try {
        const std::string ext = lower_extension(path);
        if (ext == ".exr") {
            init_openexr_threads();
            const Imath::Box2i dw = read_exr_header(path).dataWindow();
            const long long w = static_cast<long long>(dw.max.x) - dw.min.x + 1, h = static_cast<long long>(dw.max.y) - dw.min.y + 1;
            if (w <= 0 || h <= 0 || w > (1 << 30) || h > (1 << 30)) return std::nullopt;
            return std::make_pair(static_cast<int>(w), static_cast<int>(h));
        }
        if (ext != ".hdr") return std::nullopt;
        std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
        if (!file) return std::nullopt;
        HdrReader reader;
        reader.f = file.get();
        int w = 0, h = 0, comp = 0;
        if (!stbi_info_from_callbacks(&kHdrCallbacks, &reader, &w, &h, &comp) || w <= 0 || h <= 0) return std::nullopt;
        return std::make_pair(w, h);
    } catch (...) {  // InputError, Iex, Truncated: the loader will say it
        return std::nullopt;
    }
}

std::string lower_extension(const std::string& path) {
    const auto slash = path.find_last_of('/');
    const auto dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string ext = path.substr(dot);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

}  // namespace bake
