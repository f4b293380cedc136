#include "png16.h"

#include <png.h>

#include <cmath>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "atomic_file.h"
#include "errors.h"

namespace bake {
namespace {

// libpng reports errors through longjmp by default; ours throws instead, which unwinds through
// libpng's C frames. That is safe here because those frames hold nothing we must release: the
// write and info structs and the FILE are owned by the C++ frame below.
[[noreturn]] void throw_png_error(png_structp png, png_const_charp message) {
    const auto* path = static_cast<const std::string*>(png_get_error_ptr(png));
    throw OutputError(*path + ": libpng: " + message);
}

void ignore_png_warning(png_structp, png_const_charp) {}

struct PngWriteStruct {
    png_structp png = nullptr;
    png_infop info = nullptr;
    ~PngWriteStruct() { png_destroy_write_struct(&png, info ? &info : nullptr); }
};

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

std::uint16_t to_unorm16(float v) {
    if (!(v > 0.0f)) return 0;  // NaN too
    if (v >= 1.0f) return 65535;
    return static_cast<std::uint16_t>(std::lround(static_cast<double>(v) * 65535.0));
}

}  // namespace

void write_png16(const std::string& path, const Image& image, const PngText& text) {
    if (image.width <= 0 || image.height <= 0 || image.rgb.size() != image.pixel_count() * 3)
        throw OutputError(path + ": invalid image (" + std::to_string(image.width) + "x" +
                          std::to_string(image.height) + ")");
    write_atomically(path, [&](const std::string& tmp) {
        std::unique_ptr<std::FILE, FileCloser> file(std::fopen(tmp.c_str(), "wb"));
        if (!file) throw OutputError(path + ": cannot open the temporary file " + tmp);

        PngWriteStruct s;
        s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, const_cast<std::string*>(&path), throw_png_error,
                                        ignore_png_warning);
        if (!s.png) throw OutputError(path + ": libpng: cannot create a write struct");
        s.info = png_create_info_struct(s.png);
        if (!s.info) throw OutputError(path + ": libpng: cannot create an info struct");

        png_init_io(s.png, file.get());
        png_set_IHDR(s.png, s.info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 16,
                     PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_set_gAMA(s.png, s.info, 1.0);  // linear values
        std::vector<png_text> chunks(text.size());
        for (std::size_t i = 0; i < text.size(); ++i) {
            chunks[i].compression = PNG_TEXT_COMPRESSION_NONE;
            chunks[i].key = const_cast<char*>(text[i].first.c_str());
            chunks[i].text = const_cast<char*>(text[i].second.c_str());
        }
        if (!chunks.empty()) png_set_text(s.png, s.info, chunks.data(), static_cast<int>(chunks.size()));
        png_write_info(s.png, s.info);

        // PNG stores 16-bit samples big-endian.
        std::vector<png_byte> row(static_cast<std::size_t>(image.width) * 3 * 2);
        for (int y = 0; y < image.height; ++y) {
            const float* src = image.at(y, 0);
            for (std::size_t i = 0; i < static_cast<std::size_t>(image.width) * 3; ++i) {
                const std::uint16_t v = to_unorm16(src[i]);
                row[2 * i] = static_cast<png_byte>(v >> 8);
                row[2 * i + 1] = static_cast<png_byte>(v & 0xff);
            }
            png_write_row(s.png, row.data());
        }
        png_write_end(s.png, nullptr);

        std::FILE* f = file.release();
        if (std::ferror(f) != 0 || std::fclose(f) != 0) throw OutputError(path + ": cannot write");
    });
}

}  // namespace bake
