#include "radiance_hdr.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "bulk_allocator.h"
#include "packed_image.h"
#include "parallel.h"

namespace bake {

namespace {

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// Reads up to `size` bytes at `offset`, fewer only at the end of the file; -1 on a read error.
long long read_at(int fd, std::uint8_t* dst, std::size_t size, std::uint64_t offset) {
    std::size_t got = 0;
    while (got < size) {
        const ssize_t n = ::pread(fd, dst + got, size - got, static_cast<off_t>(offset + got));
        if (n < 0) return -1;
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    return static_cast<long long>(got);
}

// The header as stb_image's stbi__hdr_load reads it, line by line (stbi__hdr_gettoken: up to '\n',
// at most 1023 characters kept, compared as C strings), so that both agree on where the pixels
// start. Returns the offset of the first pixel byte, or 0 when this is not the layout we decode.
std::size_t parse_header(const std::uint8_t* data, std::size_t size, int width, int height) {
    std::size_t pos = 0;
    bool ended = false;
    auto next_line = [&]() {
        std::string line;
        while (true) {
            if (pos >= size) {
                ended = true;
                return line;
            }
            const char c = static_cast<char>(data[pos++]);
            if (c == '\n') return line;
            if (line.size() < 1023) line.push_back(c);
        }
    };
    const std::string magic = next_line();
    if (ended || (std::strcmp(magic.c_str(), "#?RADIANCE") != 0 && std::strcmp(magic.c_str(), "#?RGBE") != 0))
        return 0;
    bool format = false;
    while (true) {
        const std::string line = next_line();
        if (ended) return 0;
        if (line.c_str()[0] == '\0') break;
        if (std::strcmp(line.c_str(), "FORMAT=32-bit_rle_rgbe") == 0) format = true;
    }
    const std::string resolution = next_line();
    if (ended || !format) return 0;
    const char* token = resolution.c_str();
    if (std::strncmp(token, "-Y ", 3) != 0) return 0;
    char* end = nullptr;
    const long h = std::strtol(token + 3, &end, 10);
    token = end;
    while (*token == ' ') ++token;
    if (std::strncmp(token, "+X ", 3) != 0) return 0;
    const long w = std::strtol(token + 3, nullptr, 10);
    if (w != width || h != height) return 0;
    return pos;
}

// The length in bytes of the new-style RLE scanline at p: 0 when `avail` bytes do not hold all of
// it, -1 when it is not one (flat or old-style data, a length other than width, a run or dump past
// the end of the row: the cases stb handles or refuses itself). Each channel is a sequence of
// runs (count > 128: one value, count - 128 times) and dumps (count <= 128: that many values; a
// zero count is a dump of nothing, as in stb).
long long scanline_length(const std::uint8_t* p, std::size_t avail, int width) {
    if (avail < 4) return 0;
    if (p[0] != 2 || p[1] != 2 || (p[2] & 0x80)) return -1;
    if (((p[2] << 8) | p[3]) != width) return -1;
    std::size_t at = 4;
    for (int k = 0; k < 4; ++k) {
        int i = 0;
        while (i < width) {
            if (at >= avail) return 0;
            const int count = p[at++];
            if (count > 128) {
                if (count - 128 > width - i) return -1;
                if (at >= avail) return 0;
                ++at;
                i += count - 128;
            } else {
                if (count > width - i) return -1;
                at += static_cast<std::size_t>(count);
                if (at > avail) return 0;
                i += count;
            }
        }
    }
    return static_cast<long long>(at);
}

// Decodes a scanline that scanline_length accepted into width RGBE texels.
void decode_scanline(const std::uint8_t* p, int width, std::uint8_t* rgbe) {
    p += 4;
    for (int k = 0; k < 4; ++k) {
        std::uint8_t* dst = rgbe + k;
        std::uint8_t* const end = rgbe + 4 * static_cast<std::size_t>(width) + k;
        while (dst < end) {
            const int count = *p++;
            if (count > 128) {
                const std::uint8_t value = *p++;
                for (int z = 0; z < count - 128; ++z, dst += 4) *dst = value;
            } else {
                for (int z = 0; z < count; ++z, dst += 4) *dst = *p++;
            }
        }
    }
}

// A stretch of the file's pixel data holding whole scanlines, and where each starts.
struct Band {
    std::vector<std::uint8_t, BulkAllocator<std::uint8_t>> bytes;  // kernel-zeroed, not memset
    std::size_t size = 0;               // bytes held
    std::vector<std::size_t> starts;    // offsets of the complete scanlines in bytes
    std::size_t consumed = 0;           // end of the last complete scanline
    int first_row = 0;
};

// Fills `band` with `carry` (the previous band's incomplete tail) and the file's next bytes from
// *offset, and finds the complete scanlines in it, at most rows_left. Grows the band when not one
// scanline fits (zero-count dumps make a scanline arbitrarily long), within a bound. False on a
// read error, on data that is not new-style RLE, on a scanline past the bound, or when the file
// ends inside the band's first scanline.
bool load_band(int fd, std::uint64_t& offset, Band& band, const std::uint8_t* carry, std::size_t carry_size,
               int first_row, int rows_left, int width, std::size_t band_bytes) {
    const std::size_t size = std::max(band_bytes, 2 * carry_size);
    if (band.bytes.size() < size) band.bytes.resize(size);
    if (carry_size > 0) std::memmove(band.bytes.data(), carry, carry_size);  // (carry is null for the first band)
    band.size = carry_size;
    band.first_row = first_row;
    band.starts.clear();
    band.consumed = 0;
    while (true) {
        const long long got = read_at(fd, band.bytes.data() + band.size, band.bytes.size() - band.size, offset);
        if (got < 0) return false;
        offset += static_cast<std::uint64_t>(got);
        band.size += static_cast<std::size_t>(got);
        const bool at_end = band.size < band.bytes.size();
        std::size_t at = band.consumed;
        while (static_cast<int>(band.starts.size()) < rows_left) {
            const long long n = scanline_length(band.bytes.data() + at, band.size - at, width);
            if (n < 0) return false;
            if (n == 0) break;
            band.starts.push_back(at);
            at += static_cast<std::size_t>(n);
        }
        band.consumed = at;
        if (!band.starts.empty()) return true;
        if (at_end) return false;  // truncated: stb reports it
        // Only zero-count dumps make a scanline longer than 4 + 4 (width + width / 128) bytes; one
        // 16 times that (and over 64 KiB) is left to stb, which streams it, rather than held here.
        const std::size_t longest = std::max<std::size_t>(
            std::size_t{64} << 10, 16 * (4 + 4 * (static_cast<std::size_t>(width) + (static_cast<std::size_t>(width) + 127) / 128)));
        if (band.size >= longest) return false;
        band.bytes.resize(std::min(2 * band.bytes.size(), longest + 1));
    }
}

void decode_band(const Band& band, int width, RadianceTarget target, void* out, int threads) {
    const std::size_t texels_per_row = static_cast<std::size_t>(width);
    parallel_for(static_cast<int>(band.starts.size()), threads, [&](int r) {
        const std::size_t row = static_cast<std::size_t>(band.first_row + r);
        const std::uint8_t* src = band.bytes.data() + band.starts[static_cast<std::size_t>(r)];
        if (target == RadianceTarget::Rgbe8) {
            decode_scanline(src, width, static_cast<std::uint8_t*>(out) + row * texels_per_row * 4);
            return;
        }
        // In place: the RGBE bytes go into the last third of the row's floats, and texel i's
        // floats (bytes 12i..12i+11) never reach the RGBE of a texel after i (8w + 4(i+1) and on).
        float* rgb = static_cast<float*>(out) + row * texels_per_row * 3;
        std::uint8_t* rgbe = reinterpret_cast<std::uint8_t*>(rgb) + 8 * texels_per_row;
        decode_scanline(src, width, rgbe);
        rgbe_to_float(rgbe, rgb, texels_per_row);
    });
}

// Where the pixels start, and the file's size, for a file in the layout we decode whose size can
// hold width x height texels of new-style RLE; false otherwise.
bool locate_pixels(int fd, int width, int height, std::uint64_t& offset, std::uint64_t& file_size) {
    if (fd < 0 || width < 8 || width >= 32768 || height <= 0) return false;  // stb reads these flat
    std::vector<std::uint8_t> head(64 * 1024);
    const long long got = read_at(fd, head.data(), head.size(), 0);
    if (got <= 0) return false;
    offset = parse_header(head.data(), static_cast<std::size_t>(got), width, height);
    if (offset == 0) return false;  // a header stb reads otherwise (or over 64 KiB of it)
    struct stat st {};
    if (::fstat(fd, &st) != 0) return false;
    file_size = static_cast<std::uint64_t>(st.st_size);
    const std::uint64_t min_scanline = 4 + 8 * ((static_cast<std::uint64_t>(width) + 126) / 127);
    return file_size >= offset && file_size - offset >= min_scanline * static_cast<std::uint64_t>(height);
}

}  // namespace

bool radiance_scanlines_plausible(const std::string& path, int width, int height) {
    Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    std::uint64_t offset = 0, file_size = 0;
    return locate_pixels(file.fd, width, height, offset, file_size);
}

bool decode_radiance_scanlines(const std::string& path, int width, int height, RadianceTarget target, void* out,
                               int threads, std::size_t band_bytes) {
    if (!out) return false;
    Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    std::uint64_t offset = 0, file_size = 0;
    if (!locate_pixels(file.fd, width, height, offset, file_size)) return false;

    // A small file needs no full band (whose buffer would cost more than the decoding); +1 to see the end.
    band_bytes = static_cast<std::size_t>(std::min<std::uint64_t>(band_bytes, file_size - offset + 1));
    band_bytes = std::max<std::size_t>(band_bytes, 1);

    threads = resolve_threads(threads, height);
    Band current, next;
    if (!load_band(file.fd, offset, current, nullptr, 0, 0, height, width, band_bytes)) return false;
    while (true) {
        const int rows_done = current.first_row + static_cast<int>(current.starts.size());
        if (rows_done == height) {
            decode_band(current, width, target, out, threads);
            return true;
        }
        // Decode this band on the workers while this thread reads and scans the next one.
        bool next_ok = false;
        if (threads > 1) {
            std::thread decoder([&] { decode_band(current, width, target, out, threads - 1); });
            next_ok = load_band(file.fd, offset, next, current.bytes.data() + current.consumed,
                                current.size - current.consumed, rows_done, height - rows_done, width, band_bytes);
            decoder.join();
        } else {
            decode_band(current, width, target, out, 1);
            next_ok = load_band(file.fd, offset, next, current.bytes.data() + current.consumed,
                                current.size - current.consumed, rows_done, height - rows_done, width, band_bytes);
        }
        if (!next_ok) return false;
        std::swap(current, next);
    }
}

}  // namespace bake
