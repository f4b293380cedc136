// make-sample-sky: writes the procedural environment in assets/sample_sky.hdr.
//
//   make-sample-sky OUT.hdr [--width W]      (W even, >= 16; height = W / 2; default 512)
//
// An equirectangular Radiance .hdr in the convention of docs/CONVENTION.md (row 0 looks at +Y,
// d = (sin t cos p, cos t, sin t sin p)): a blue sky darkening towards the zenith, a warm glow
// along the horizon, a halo and a small very bright sun disc, and a darker brown-grey ground.
// Pure function of the pixel index, so the output is deterministic.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

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
// u = 0.625, v = 55/180 in the image.
constexpr double kSunElevationDeg = 35.0;
constexpr double kSunPhiDeg = 45.0;
constexpr double kSunRadiusDeg = 1.5;            // angular radius of the disc
const Rgb kSunRadiance = {5000.0, 4750.0, 4300.0};  // ~ 5000x the sky next to it

struct Dir {
    double x, y, z;
};

Dir sun_direction() {
    const double theta = (90.0 - kSunElevationDeg) * kPi / 180.0, phi = kSunPhiDeg * kPi / 180.0;
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

}  // namespace

int main(int argc, char** argv) {
    std::string out;
    int width = 512;
    int cube = 0;  // face size of a horizontal-cross output, or 0 for equirect
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--width" && i + 1 < argc) {
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
                        "       make-sample-sky OUT.hdr --cube N      (the same sky as a 4N x 3N horizontal cross)\n");
            return 0;
        } else if (out.empty() && !a.empty() && a[0] != '-') {
            out = a;
        } else {
            std::fprintf(stderr, "usage: make-sample-sky OUT.hdr [--width W]\n");
            return 2;
        }
    }
    if (out.empty()) {
        std::fprintf(stderr, "usage: make-sample-sky OUT.hdr [--width W]\n");
        return 2;
    }

    const Dir sun = sun_direction();
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
    auto store = [](float* p, const Rgb& L) {
        p[0] = static_cast<float>(L.r);
        p[1] = static_cast<float>(L.g);
        p[2] = static_cast<float>(L.b);
    };

    int height = width / 2;
    std::vector<float> rgb;
    if (cube > 0) {
        // The same sky on the six faces of docs/CONVENTION.md, arranged as a horizontal cross.
        bake::CubeMap faces(cube);
        const double texel = 2.0 / cube, cos_near = std::cos(kSunRadiusDeg * kPi / 180.0 + 2.0 * texel);
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < cube; ++r)
                for (int c = 0; c < cube; ++c) {
                    auto at = [&](double fx, double fy) {
                        const bake::Vec3 v = bake::normalize(
                            bake::cube_face_direction(f, (c + fx) * texel - 1.0, (r + fy) * texel - 1.0));
                        return Dir{v.x, v.y, v.z};
                    };
                    store(faces.faces[static_cast<std::size_t>(f)].at(r, c), texel_radiance(at, cos_near));
                }
        const bake::Image cross = bake::assemble_cube(faces, bake::Layout::HCross);
        width = cross.width;
        height = cross.height;
        rgb = cross.rgb;
    } else {
        const double texel = 2.0 * kPi / width;
        const double cos_near = std::cos(kSunRadiusDeg * kPi / 180.0 + 1.5 * texel);
        rgb.resize(static_cast<std::size_t>(width) * height * 3);
        for (int i = 0; i < height; ++i)
            for (int j = 0; j < width; ++j) {
                auto at = [&](double fx, double fy) { return direction((j + fx) / width, (i + fy) / height); };
                store(&rgb[(static_cast<std::size_t>(i) * width + j) * 3], texel_radiance(at, cos_near));
            }
    }

    try {
        bake::write_atomically(out, [&](const std::string& tmp) {
            if (!stbi_write_hdr(tmp.c_str(), width, height, 3, rgb.data()))
                throw bake::OutputError(out + ": cannot write the Radiance HDR file");
        });
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make-sample-sky: %s\n", e.what());
        return 4;
    }
    std::printf("wrote %s (%dx%d %s; sun at elevation %.1f deg, phi %.1f deg, direction "
                "(%.4f, %.4f, %.4f))\n",
                out.c_str(), width, height, cube > 0 ? "horizontal cross" : "equirect", kSunElevationDeg, kSunPhiDeg, sun.x, sun.y, sun.z);
    return 0;
}
