// make-sample-sky: writes the procedural environment in assets/sample_sky.hdr.
//
//   make-sample-sky OUT.hdr [--width W]      (W even, >= 16; height = W / 2; default 512)
//   make-sample-sky OUT.exr [--width W] [--half] [--compression zip|dwab|piz|none]
//   make-sample-sky OUT.hdr --variant K      (K = 1, 2, ...: the sun elsewhere; 0 = the default sky)
//
// An equirectangular Radiance .hdr in the convention of docs/CONVENTION.md (row 0 looks at +Y,
// d = (sin t cos p, cos t, sin t sin p)): a blue sky darkening towards the zenith, a warm glow
// along the horizon, a halo and a small very bright sun disc, and a darker brown-grey ground.
// Pure function of the pixel index, so the output is deterministic (and the same whatever the
// number of threads that compute it). A name ending in .exr writes OpenEXR instead: RGB float
// (or half with --half), ZIP compression unless --compression says otherwise (dwab: lossy, for
// half channels). The benchmark (bench/end_to_end.cpp) makes its inputs with these options.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <Imath/half.h>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfThreading.h>

#include "atomic_file.h"
#include "cube_map.h"
#include "layout.h"
#include "errors.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

namespace {

constexpr double kPi = 3.14159265358979323846;

struct Rgb {
    double r, g, b;
};
Rgb operator+(Rgb a, Rgb b) { return {a.r + b.r, a.g + b.g, a.b + b.b}; }
Rgb operator*(Rgb a, double s) { return {a.r * s, a.g * s, a.b * s}; }
Rgb mix(Rgb a, Rgb b, double t) { return a * (1.0 - t) + b * t; }

// The sun: elevation 35 degrees, azimuth phi = +45 degrees (between +X and +Z), i.e.
// u = 0.625, v = 55/180 in the image. --variant K (K > 0) moves it: azimuth turned by K times
// the golden angle (137.5 degrees, so that any 20 variants are all different and spread),
// elevation 35 + 20 sin(1.3 K) degrees (from 15 to 55).
constexpr double kSunElevationDeg = 35.0;
constexpr double kSunPhiDeg = 45.0;
constexpr double kGoldenAngleDeg = 137.50776405003785;
constexpr double kSunRadiusDeg = 1.5;            // angular radius of the disc
const Rgb kSunRadiance = {5000.0, 4750.0, 4300.0};  // ~ 5000x the sky next to it

struct Dir {
    double x, y, z;
};

Dir sun_direction(double elevation_deg, double phi_deg) {
    const double theta = (90.0 - elevation_deg) * kPi / 180.0, phi = phi_deg * kPi / 180.0;
    return {std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)};
}

Dir direction(double u, double v) {
    const double theta = kPi * v, phi = 2.0 * kPi * u - kPi;
    return {std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)};
}

// Everything except the sun disc.
Rgb background(const Dir& d, const Dir& sun) {
    if (d.y < 0.0) {
        // Ground: brown-grey, darker towards the nadir.
        const Rgb ground = {0.20, 0.16, 0.12};
        return ground * (0.45 + 0.55 * std::exp(d.y / 0.25));
    }
    const double t = 1.0 - d.y;  // 0 at the zenith, 1 at the horizon
    const Rgb zenith = {0.10, 0.25, 0.80}, horizon = {0.60, 0.75, 1.00};
    Rgb sky = mix(zenith, horizon, t * t * t);
    sky = sky + Rgb{0.90, 0.55, 0.30} * (0.50 * std::exp(-d.y / 0.05));  // horizon glow
    const double c = d.x * sun.x + d.y * sun.y + d.z * sun.z;            // cosine to the sun
    sky = sky + Rgb{1.00, 0.85, 0.60} * (0.60 * std::pow(0.5 * (1.0 + c), 24.0));  // halo
    return sky;
}

// Runs body(i) for i in [0, n) on `threads` threads (contiguous blocks of i).
template <typename Body>
void parallel_rows(int n, unsigned threads, const Body& body) {
    threads = std::max(1u, std::min(threads, static_cast<unsigned>(std::max(n, 1))));
    if (threads == 1) {
        for (int i = 0; i < n; ++i) body(i);
        return;
    }
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            const int begin = static_cast<int>(static_cast<long long>(n) * t / threads);
            const int end = static_cast<int>(static_cast<long long>(n) * (t + 1) / threads);
            for (int i = begin; i < end; ++i) body(i);
        });
    for (std::thread& th : pool) th.join();
}

// RGB OpenEXR, scanline, float or half channels, the given compression.
void write_exr_file(const std::string& path, int width, int height, const std::vector<float>& rgb, bool half,
                    Imf::Compression compression) {
    Imf::Header header(width, height);
    header.compression() = compression;
    const Imf::PixelType type = half ? Imf::HALF : Imf::FLOAT;
    for (const char* c : {"R", "G", "B"}) header.channels().insert(c, Imf::Channel(type));
    std::vector<Imath::half> halves;
    Imf::FrameBuffer fb;
    const std::size_t xs = 3 * (half ? sizeof(Imath::half) : sizeof(float));
    const std::size_t ys = xs * static_cast<std::size_t>(width);
    char* base;
    if (half) {
        halves.resize(rgb.size());
        for (std::size_t i = 0; i < rgb.size(); ++i) halves[i] = Imath::half(rgb[i]);
        base = reinterpret_cast<char*>(halves.data());
    } else {
        base = const_cast<char*>(reinterpret_cast<const char*>(rgb.data()));
    }
    const std::size_t cs = half ? sizeof(Imath::half) : sizeof(float);
    fb.insert("R", Imf::Slice(type, base + 0 * cs, xs, ys));
    fb.insert("G", Imf::Slice(type, base + 1 * cs, xs, ys));
    fb.insert("B", Imf::Slice(type, base + 2 * cs, xs, ys));
    Imf::OutputFile file(path.c_str(), header);
    file.setFrameBuffer(fb);
    file.writePixels(height);
}

bool ends_with(const std::string& s, const std::string& suffix) {
    if (s.size() < suffix.size()) return false;
    std::string tail = s.substr(s.size() - suffix.size());
    for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return tail == suffix;
}

}  // namespace

int main(int argc, char** argv) {
    std::string out;
    int width = 512;
    int cube = 0;  // face size of a horizontal-cross output, or 0 for equirect
    long variant = 0;
    double grain = 0.0;
    bool half = false;
    std::string compression_name = "zip";
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    const char* usage =
        "usage: make-sample-sky OUT.hdr|OUT.exr [--width W] [--cube N] [--variant K] [--half] "
        "[--compression zip|dwab|piz|none] [--grain G] [--threads N]\n";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--variant" && i + 1 < argc) {
            char* end = nullptr;
            variant = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || variant < 0 || variant > 1000000) {
                std::fprintf(stderr, "make-sample-sky: --variant must be a whole number from 0 to 1000000\n");
                return 2;
            }
        } else if (a == "--grain" && i + 1 < argc) {
            char* end = nullptr;
            grain = std::strtod(argv[++i], &end);
            if (*end != '\0' || !(grain >= 0.0 && grain <= 0.5)) {
                std::fprintf(stderr, "make-sample-sky: --grain must be a number from 0 to 0.5\n");
                return 2;
            }
        } else if (a == "--half") {
            half = true;
        } else if (a == "--compression" && i + 1 < argc) {
            compression_name = argv[++i];
            if (compression_name != "zip" && compression_name != "dwab" && compression_name != "piz" &&
                compression_name != "none") {
                std::fprintf(stderr, "make-sample-sky: --compression must be zip, dwab, piz or none\n");
                return 2;
            }
        } else if (a == "--threads" && i + 1 < argc) {
            char* end = nullptr;
            const long t = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || t < 0 || t > 1024) {
                std::fprintf(stderr, "make-sample-sky: --threads must be a number from 0 (all) to 1024\n");
                return 2;
            }
            if (t > 0) threads = static_cast<unsigned>(t);
        } else if (a == "--width" && i + 1 < argc) {
            char* end = nullptr;
            const long w = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || w < 16 || w > 16384 || w % 2 != 0) {
                std::fprintf(stderr, "make-sample-sky: --width must be an even number from 16 to 16384\n");
                return 2;
            }
            width = static_cast<int>(w);
        } else if (a == "--cube" && i + 1 < argc) {
            char* end = nullptr;
            const long n = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || n < 1 || n > 4096) {
                std::fprintf(stderr, "make-sample-sky: --cube must be a face size from 1 to 4096\n");
                return 2;
            }
            cube = static_cast<int>(n);
        } else if (a == "-h" || a == "--help") {
            std::printf("usage: make-sample-sky OUT.hdr [--width W]   (W even, default 512; height W/2)\n"
                        "       make-sample-sky OUT.hdr --cube N      (the same sky as a 4N x 3N horizontal cross)\n"
                        "       make-sample-sky OUT.exr [--half] [--compression zip|dwab|piz|none]\n"
                        "                                            (OpenEXR RGB, float unless --half; default zip)\n"
                        "       --variant K   K > 0: the sun moved (azimuth + K x 137.5 deg, elevation\n"
                        "                     35 + 20 sin(1.3 K) deg); 0: the default sky\n"
                        "       --grain G     multiply each texel by 1 + G x (noise in [-1, 1]), like a photograph's\n"
                        "                     grain: real maps' texels differ from their neighbours (default 0)\n"
                        "       --threads N   threads computing the texels (default: all; same output)\n");
            return 0;
        } else if (out.empty() && !a.empty() && a[0] != '-') {
            out = a;
        } else {
            std::fprintf(stderr, "%s", usage);
            return 2;
        }
    }
    if (out.empty()) {
        std::fprintf(stderr, "%s", usage);
        return 2;
    }
    const bool exr = ends_with(out, ".exr");
    if (!exr && (half || compression_name != "zip")) {
        std::fprintf(stderr, "make-sample-sky: --half and --compression are for .exr outputs\n");
        return 2;
    }

    double sun_elevation_deg = kSunElevationDeg, sun_phi_deg = kSunPhiDeg;
    if (variant > 0) {
        const double k = static_cast<double>(variant);
        sun_phi_deg = std::fmod(kSunPhiDeg + kGoldenAngleDeg * k, 360.0);
        if (sun_phi_deg > 180.0) sun_phi_deg -= 360.0;
        sun_elevation_deg = kSunElevationDeg + 20.0 * std::sin(1.3 * k);
    }
    const Dir sun = sun_direction(sun_elevation_deg, sun_phi_deg);
    const double cos_sun = std::cos(kSunRadiusDeg * kPi / 180.0);
    constexpr int kSub = 8;  // 8x8 supersampling of the disc edge, for a smooth, stable coverage

    // Radiance over a texel whose centre and sub-sample directions come from `at(fx, fy)`,
    // fx, fy in [0, 1] across the texel; `near` tells whether the sun's disc may touch it.
    auto texel_radiance = [&](const auto& at, double cos_near) {
        const Dir d = at(0.5, 0.5);
        Rgb L = background(d, sun);
        if (d.x * sun.x + d.y * sun.y + d.z * sun.z > cos_near) {
            int inside = 0;
            for (int a = 0; a < kSub; ++a)
                for (int b = 0; b < kSub; ++b) {
                    const Dir s = at((b + 0.5) / kSub, (a + 0.5) / kSub);
                    inside += (s.x * sun.x + s.y * sun.y + s.z * sun.z) > cos_sun;
                }
            L = L + kSunRadiance * (static_cast<double>(inside) / (kSub * kSub));
        }
        return L;
    };
    // --grain: a hash of the texel's address, so the output stays a pure function of it. Without
    // grain, neighbouring texels of the smooth sky often round to the same RGBE bytes and a .hdr
    // is mostly runs, far smaller and faster to decode than a real map.
    auto grain_factor = [&](std::uint64_t index, int channel) {
        std::uint64_t x = index * 3 + static_cast<std::uint64_t>(channel) + 0x9e3779b97f4a7c15ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        x ^= x >> 31;
        return 1.0 + grain * (static_cast<double>(x >> 11) * 0x1.0p-52 - 1.0);
    };
    auto store = [&](float* p, const Rgb& L, std::uint64_t index) {
        p[0] = static_cast<float>(L.r * (grain > 0 ? grain_factor(index, 0) : 1.0));
        p[1] = static_cast<float>(L.g * (grain > 0 ? grain_factor(index, 1) : 1.0));
        p[2] = static_cast<float>(L.b * (grain > 0 ? grain_factor(index, 2) : 1.0));
    };

    int height = width / 2;
    std::vector<float> rgb;
    if (cube > 0) {
        // The same sky on the six faces of docs/CONVENTION.md, arranged as a horizontal cross.
        bake::CubeMap faces(cube);
        const double texel = 2.0 / cube, cos_near = std::cos(kSunRadiusDeg * kPi / 180.0 + 2.0 * texel);
        parallel_rows(6 * cube, threads, [&](int fr) {
            const int f = fr / cube, r = fr % cube;
            for (int c = 0; c < cube; ++c) {
                auto at = [&](double fx, double fy) {
                    const bake::Vec3 v = bake::normalize(
                        bake::cube_face_direction(f, (c + fx) * texel - 1.0, (r + fy) * texel - 1.0));
                    return Dir{v.x, v.y, v.z};
                };
                store(faces.faces[static_cast<std::size_t>(f)].at(r, c), texel_radiance(at, cos_near),
                      (static_cast<std::uint64_t>(f) * cube + r) * cube + c);
            }
        });
        const bake::Image cross = bake::assemble_cube(faces, bake::Layout::HCross);
        width = cross.width;
        height = cross.height;
        rgb.assign(cross.rgb.begin(), cross.rgb.end());
    } else {
        const double texel = 2.0 * kPi / width;
        const double cos_near = std::cos(kSunRadiusDeg * kPi / 180.0 + 1.5 * texel);
        rgb.resize(static_cast<std::size_t>(width) * height * 3);
        parallel_rows(height, threads, [&](int i) {
            for (int j = 0; j < width; ++j) {
                auto at = [&](double fx, double fy) { return direction((j + fx) / width, (i + fy) / height); };
                store(&rgb[(static_cast<std::size_t>(i) * width + j) * 3], texel_radiance(at, cos_near),
                      static_cast<std::uint64_t>(i) * width + j);
            }
        });
    }

    try {
        bake::write_atomically(out, [&](const std::string& tmp) {
            if (exr) {
                const Imf::Compression c = compression_name == "dwab" ? Imf::DWAB_COMPRESSION
                                           : compression_name == "piz" ? Imf::PIZ_COMPRESSION
                                           : compression_name == "none" ? Imf::NO_COMPRESSION
                                                                        : Imf::ZIP_COMPRESSION;
                Imf::setGlobalThreadCount(static_cast<int>(threads));
                try {
                    write_exr_file(tmp, width, height, rgb, half, c);
                } catch (const std::exception& e) {
                    throw bake::OutputError(out + ": cannot write the OpenEXR file: " + e.what());
                }
            } else if (!stbi_write_hdr(tmp.c_str(), width, height, 3, rgb.data())) {
                throw bake::OutputError(out + ": cannot write the Radiance HDR file");
            }
        });
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make-sample-sky: %s\n", e.what());
        return 4;
    }
    const std::string format = exr ? std::string(half ? "half" : "float") + " " + compression_name + " EXR, " : "";
    std::printf("wrote %s (%dx%d %s%s; sun at elevation %.1f deg, phi %.1f deg, direction "
                "(%.4f, %.4f, %.4f))\n",
                out.c_str(), width, height, format.c_str(), cube > 0 ? "horizontal cross" : "equirect",
                sun_elevation_deg, sun_phi_deg, sun.x, sun.y, sun.z);
    return 0;
}
