#include "png_reader.h"

#include <cstdint>
#include <utility>

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC  // private copy: the core embeds its own stb_image (HDR only)
#define STBI_ONLY_PNG
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include <stb_image.h>
#pragma GCC diagnostic pop

namespace bake::test {

namespace {

std::optional<PngPixels> widened_back(PngPixels p, stbi_us* data) {
    if (!data) return std::nullopt;
    const std::size_t n = static_cast<std::size_t>(p.width) * p.height * p.channels;
    p.values.assign(data, data + n);
    stbi_image_free(data);
    // stb widens 8-bit samples to 16 bits by v * 257: back to the file's values.
    if (!p.sixteen_bit)
        for (std::uint16_t& v : p.values) v = static_cast<std::uint16_t>(v / 257);
    return p;
}

}  // namespace

std::optional<PngPixels> read_png(const std::string& path) {
    PngPixels p;
    p.sixteen_bit = stbi_is_16_bit(path.c_str()) != 0;
    stbi_us* data = stbi_load_16(path.c_str(), &p.width, &p.height, &p.channels, 0);
    return widened_back(std::move(p), data);
}

std::optional<PngPixels> read_png_memory(const std::uint8_t* bytes, std::size_t size) {
    if (size > static_cast<std::size_t>(INT32_MAX)) return std::nullopt;
    const int n = static_cast<int>(size);
    PngPixels p;
    p.sixteen_bit = stbi_is_16_bit_from_memory(bytes, n) != 0;
    stbi_us* data = stbi_load_16_from_memory(bytes, n, &p.width, &p.height, &p.channels, 0);
    return widened_back(std::move(p), data);
}

}  // namespace bake::test
