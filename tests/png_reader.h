#pragma once
// PNGs read back in the tests with a private copy of stb_image (png_reader.cpp): a decoder
// independent of the libpng and stb_image_write the tool writes them with.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bake::test {

struct PngPixels {
    int width = 0, height = 0, channels = 0;  // channels as stored in the file
    bool sixteen_bit = false;                  // the file's depth
    std::vector<std::uint16_t> values;         // width * height * channels, 8-bit files as 0..255
    std::uint16_t at(int row, int col, int channel) const {
        return values[(static_cast<std::size_t>(row) * width + col) * channels + channel];
    }
};

// The file's samples at its own depth and channel count; nullopt when it does not decode.
std::optional<PngPixels> read_png(const std::string& path);
// The same from a PNG file's bytes in memory (a .glb's images).
std::optional<PngPixels> read_png_memory(const std::uint8_t* bytes, std::size_t size);

}  // namespace bake::test
