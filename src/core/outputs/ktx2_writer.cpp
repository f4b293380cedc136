#include "ktx2_writer.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "atomic_file.h"
#include "errors.h"
#include "parallel.h"

#ifndef BAKE_VERSION
#define BAKE_VERSION "unknown"
#endif

namespace bake {
namespace {

constexpr std::uint8_t kIdentifier[12] = {0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, '\r', '\n', 0x1A, '\n'};
constexpr std::uint32_t kSchemeZstd = 2;
constexpr std::size_t kHeaderBytes = 80;      // identifier, header and index up to the level index
constexpr std::size_t kLevelIndexEntry = 24;  // byteOffset, byteLength, uncompressedByteLength

void put_u32(std::uint8_t* p, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_u64(std::uint8_t* p, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void append_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    std::uint8_t b[4];
    put_u32(b, v);
    out.insert(out.end(), b, b + 4);
}
std::uint32_t float_as_u32(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

// One sample of a Basic Data Format Descriptor block (Data Format Specification § 5.1, 5.18-5.22).
struct DfdSample {
    std::uint32_t bit_offset, bit_length, channel_type, lower, upper;
};
constexpr std::uint32_t kQualifierFloat = 0x80, kQualifierSigned = 0x40, kQualifierExponent = 0x20;
constexpr std::uint32_t kChannelAlpha = 15;
constexpr std::uint32_t kModelBc6h = 133, kChannelBc6hColor = 0;

std::vector<DfdSample> dfd_samples(KtxFormat format) {
    const std::uint32_t one = float_as_u32(1.0f), minus_one = float_as_u32(-1.0f);
    const std::uint32_t signed_float = kQualifierFloat | kQualifierSigned;
    switch (format) {
        case KtxFormat::Rgba16Float:
        case KtxFormat::Rgba32Float: {
            const std::uint32_t bits = format == KtxFormat::Rgba16Float ? 16 : 32;
            std::vector<DfdSample> s;
            for (std::uint32_t c = 0; c < 4; ++c)
                s.push_back({c * bits, bits, (c == 3 ? kChannelAlpha : c) | signed_float, minus_one, one});
            return s;
        }
        case KtxFormat::B10G11R11UFloat:
            return {{0, 11, 0 | kQualifierFloat, 0, one},
                    {11, 11, 1 | kQualifierFloat, 0, one},
                    {22, 10, 2 | kQualifierFloat, 0, one}};
        case KtxFormat::E5B9G9R9UFloat: {
            // The Data Format Specification's E5B9G9R9 example: per channel a 9-bit mantissa (explicit
            // leading 1, sampleUpper 8448 = 1.0 as exponent 16 << 9 | mantissa 256) and the shared
            // 5-bit exponent (bias 15 as sampleLower, no special encodings: sampleUpper 31).
            std::vector<DfdSample> s;
            for (std::uint32_t c = 0; c < 3; ++c) {
                s.push_back({9 * c, 9, c, 0, 8448});
                s.push_back({27, 5, c | kQualifierExponent, 15, 31});
            }
            return s;
        }
        case KtxFormat::Bc6hUFloat: return {{0, 128, kChannelBc6hColor | kQualifierFloat, 0, one}};
    }
    throw std::invalid_argument("unknown KTX format");
}

std::vector<std::uint8_t> data_format_descriptor(KtxFormat format) {
    const std::vector<DfdSample> samples = dfd_samples(format);
    const auto block_size = static_cast<std::uint32_t>(24 + 16 * samples.size());
    const bool bc6h = format == KtxFormat::Bc6hUFloat;
    const std::uint32_t model = bc6h ? kModelBc6h : 1u;  // RGBSDA
    std::vector<std::uint8_t> out;
    append_u32(out, 4 + block_size);               // dfdTotalSize
    append_u32(out, 0);                            // vendorId 0 (Khronos), descriptorType 0 (basic)
    append_u32(out, 2u | (block_size << 16));      // versionNumber 2 (1.3+), descriptorBlockSize
    append_u32(out, model | (1u << 8) | (1u << 16));  // colorModel, primaries BT709, transfer LINEAR, flags 0
    append_u32(out, bc6h ? (3u | (3u << 8)) : 0u);    // texelBlockDimension0..3, each size - 1: 4x4x1x1 or 1x1x1x1
    append_u32(out, static_cast<std::uint32_t>(ktx_texel_bytes(format)));  // bytesPlane0 (1..3: 0)
    append_u32(out, 0);                            // bytesPlane4..7
    for (const DfdSample& s : samples) {
        append_u32(out, s.bit_offset | ((s.bit_length - 1) << 16) | (s.channel_type << 24));
        append_u32(out, 0);  // samplePosition0..3
        append_u32(out, s.lower);
        append_u32(out, s.upper);
    }
    return out;
}

std::vector<std::uint8_t> key_value_data(std::vector<std::pair<std::string, std::string>> kv) {
    std::sort(kv.begin(), kv.end());  // byte order of UTF-8 is code point order
    std::vector<std::uint8_t> out;
    for (const auto& [key, value] : kv) {
        append_u32(out, static_cast<std::uint32_t>(key.size() + 1 + value.size() + 1));
        out.insert(out.end(), key.begin(), key.end());
        out.push_back(0);
        out.insert(out.end(), value.begin(), value.end());
        out.push_back(0);
        while (out.size() % 4) out.push_back(0);
    }
    return out;
}

void validate(const KtxWriteOptions& options) {
    auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
    if (options.zstd_level < 0 || options.zstd_level > kMaxZstdLevel)
        fail("zstd level must be 0 (none) to " + std::to_string(kMaxZstdLevel));
    for (const auto& kv : options.key_values) {
        const std::string& key = kv.first;
        if (key.empty() || key.rfind("KTX", 0) == 0 || key.rfind("ktx", 0) == 0)
            fail("key '" + key + "' is empty or reserved (KTX/ktx)");
        if (key.find('\0') != std::string::npos) fail("key '" + key + "' holds a NUL");
    }
}

std::vector<std::uint8_t> zstd_compress(const std::vector<std::uint8_t>& in, int level) {
    std::vector<std::uint8_t> out(ZSTD_compressBound(in.size()));
    const std::size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level);
    if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

}  // namespace

bool parse_ktx_format(const std::string& name, KtxFormat* format) { return parse_texture_format(name, format); }
const char* ktx_format_name(KtxFormat format) { return texture_format_name(format); }
std::uint32_t ktx_vk_format(KtxFormat format) { return texture_vk_format(format); }
int ktx_texel_bytes(KtxFormat format) { return texture_block_bytes(format); }

std::string ktx_writer_name() { return std::string("bake-irradiance ") + BAKE_VERSION; }

std::vector<std::uint8_t> encode_ktx2(const KtxImages& images, const KtxWriteOptions& options) {
    validate(options);
    return encode_ktx2(encode_texture(images, options.format, options.bc6h_quality, options.threads), options);
}

std::vector<std::uint8_t> encode_ktx2(const EncodedTexture& texture, const KtxWriteOptions& options) {
    validate(options);
    validate_texture(texture);
    const KtxFormat format = texture.format;
    const int levels = static_cast<int>(texture.levels.size());
    const bool zstd = options.zstd_level > 0;

    std::vector<std::pair<std::string, std::string>> kv = options.key_values;
    kv.emplace_back("KTXorientation", "rd");
    kv.emplace_back("KTXwriter", ktx_writer_name());
    if (zstd) kv.emplace_back("KTXwriterScParams", "--ktx-zstd " + std::to_string(options.zstd_level));
    for (std::size_t i = 0; i < kv.size(); ++i)
        for (std::size_t j = i + 1; j < kv.size(); ++j)
            if (kv[i].first == kv[j].first) throw std::invalid_argument("key '" + kv[i].first + "' appears twice");
    const std::vector<std::uint8_t> dfd = data_format_descriptor(format);
    const std::vector<std::uint8_t> kvd = key_value_data(kv);

    // Levels each compressed on its own (levels in parallel).
    std::vector<std::vector<std::uint8_t>> compressed(zstd ? levels : 0);
    if (zstd)
        parallel_for(levels, options.threads, [&](int i) { compressed[i] = zstd_compress(texture.levels[i], options.zstd_level); });
    const std::vector<std::vector<std::uint8_t>>& data = zstd ? compressed : texture.levels;

    const std::size_t dfd_offset = kHeaderBytes + kLevelIndexEntry * levels;
    const std::size_t kvd_offset = dfd_offset + dfd.size();
    const std::size_t alignment = zstd ? 1 : static_cast<std::size_t>(ktx_texel_bytes(format));  // lcm(size, 4)
    std::vector<std::size_t> offset(levels);
    std::size_t end = kvd_offset + kvd.size();
    for (int i = levels - 1; i >= 0; --i) {  // smallest level first
        offset[i] = align_up(end, alignment);
        end = offset[i] + data[i].size();
    }

    std::vector<std::uint8_t> out(end, 0);
    std::memcpy(out.data(), kIdentifier, sizeof kIdentifier);
    const std::uint32_t type_size = format == KtxFormat::Rgba16Float ? 2u : format == KtxFormat::Bc6hUFloat ? 1u : 4u;
    const std::uint32_t header[9] = {ktx_vk_format(format),
                                     type_size,
                                     static_cast<std::uint32_t>(texture.width),
                                     static_cast<std::uint32_t>(texture.height),
                                     0,  // pixelDepth
                                     0,  // layerCount: not an array
                                     static_cast<std::uint32_t>(texture.faces),
                                     static_cast<std::uint32_t>(levels),
                                     zstd ? kSchemeZstd : 0u};
    for (int i = 0; i < 9; ++i) put_u32(out.data() + 12 + 4 * i, header[i]);
    put_u32(out.data() + 48, static_cast<std::uint32_t>(dfd_offset));
    put_u32(out.data() + 52, static_cast<std::uint32_t>(dfd.size()));
    put_u32(out.data() + 56, static_cast<std::uint32_t>(kvd.empty() ? 0 : kvd_offset));
    put_u32(out.data() + 60, static_cast<std::uint32_t>(kvd.size()));
    put_u64(out.data() + 64, 0);  // no supercompression global data
    put_u64(out.data() + 72, 0);
    for (int i = 0; i < levels; ++i) {
        std::uint8_t* entry = out.data() + kHeaderBytes + kLevelIndexEntry * i;
        put_u64(entry, offset[i]);
        put_u64(entry + 8, data[i].size());
        put_u64(entry + 16, texture.levels[i].size());
    }
    std::memcpy(out.data() + dfd_offset, dfd.data(), dfd.size());
    std::memcpy(out.data() + kvd_offset, kvd.data(), kvd.size());
    for (int i = 0; i < levels; ++i) std::memcpy(out.data() + offset[i], data[i].data(), data[i].size());
    return out;
}

namespace {

template <typename Texture>
void write_ktx2_file(const std::string& path, const Texture& texture, const KtxWriteOptions& options) {
    std::vector<std::uint8_t> bytes;
    try {
        bytes = encode_ktx2(texture, options);
    } catch (const std::exception& e) {
        throw OutputError(path + ": " + one_line(e.what()));
    }
    write_bytes_atomically(path, bytes);
}

}  // namespace

void write_ktx2(const std::string& path, const KtxImages& images, const KtxWriteOptions& options) {
    write_ktx2_file(path, images, options);
}
void write_ktx2(const std::string& path, const EncodedTexture& texture, const KtxWriteOptions& options) {
    write_ktx2_file(path, texture, options);
}

}  // namespace bake
