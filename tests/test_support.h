#pragma once
// Helpers shared by the tests: synthetic environments and the error measure of the issues.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cube_map.h"
#include "equirect.h"
#include "layout.h"
#include "packed_image.h"
#include "sh.h"

namespace bake::test {

constexpr double kPi = 3.14159265358979323846;

using RadianceFn = std::function<Rgb(const Vec3&)>;

inline void put(float* px, const Rgb& v) {
    for (int c = 0; c < 3; ++c) px[c] = static_cast<float>(v[c]);
}

// An environment whose texels hold fn(texel centre direction).
inline Environment make_cube_env(int n, const RadianceFn& fn) {
    Environment env;
    env.layout = Layout::Faces;
    env.cube = CubeMap(n);
    for (int f = 0; f < 6; ++f)
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c) put(env.cube.faces[static_cast<size_t>(f)].at(r, c), fn(cube_texel_direction(f, r, c, n)));
    return env;
}

inline Environment make_equirect_env(int w, int h, const RadianceFn& fn) {
    Environment env;
    env.layout = Layout::Equirect;
    env.equirect = Image(w, h);
    for (int r = 0; r < h; ++r)
        for (int c = 0; c < w; ++c) put(env.equirect.at(r, c), fn(equirect_texel_direction(r, c, w, h)));
    return env;
}

// A dim sky (0.2 - 0.6, smooth) with one texel of sun (2e3 - 5e3): the case a point-sampled source
// misses or over-counts (the GGX and Charlie chains' brute-force tests).
inline Rgb dim_sky(const Vec3& d) { return {0.4 + 0.2 * d.y, 0.35 + 0.1 * d.x, 0.3 - 0.1 * d.z}; }
const Rgb kSun{5e3, 4e3, 2e3};

inline Environment sun_equirect(int w, int h, int row, int col) {
    Environment env = make_equirect_env(w, h, dim_sky);
    put(env.equirect.at(row, col), kSun);
    return env;
}

inline Environment sun_cube(int n, int face, int row, int col) {
    Environment env = make_cube_env(n, dim_sky);
    put(env.cube.faces[static_cast<std::size_t>(face)].at(row, col), kSun);
    return env;
}

// The one-texel suns both chains are checked on: lat-long and cube inputs, a sun by a pole and one
// across y = 0, two chain sizes, and random texels around a sun. `sun` is its direction.
struct SunCase {
    std::string name;
    Environment env;
    int base;
    Vec3 sun;
};
inline std::vector<SunCase> one_texel_sun_cases() {
    std::vector<SunCase> cases;
    auto latlong = [&](const std::string& name, int w, int h, int row, int col, int base) {
        cases.push_back({name, sun_equirect(w, h, row, col), base, equirect_texel_direction(row, col, w, h)});
    };
    auto cube = [&](const std::string& name, int n, int face, int row, int col, int base) {
        cases.push_back({name, sun_cube(n, face, row, col), base, cube_texel_direction(face, row, col, n)});
    };
    latlong("lat-long 97x49 sun", 97, 49, 13, 71, 16);
    latlong("lat-long 64x32 sun next to the pole", 64, 32, 0, 20, 16);
    latlong("lat-long 80x40 sun on the equator, base 32", 80, 40, 20, 9, 32);
    cube("cube 13 sun across y = 0", 13, 4, 6, 8, 16);
    cube("cube 11 sun", 11, 1, 3, 2, 16);
    Environment random = make_equirect_env(72, 36, dim_sky);
    std::mt19937 rng(3);
    for (float& v : random.equirect.rgb) v = static_cast<float>(std::uniform_real_distribution<double>(0, 2)(rng));
    put(random.equirect.at(10, 50), kSun);
    cases.push_back({"lat-long 72x36 random texels and a sun", random, 16, equirect_texel_direction(10, 50, 72, 36)});
    return cases;
}

// Random texel values (uniform in [lo, hi)), reproducible.
inline Environment make_random_cube_env(int n, unsigned seed, float lo = 0.0f, float hi = 1.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    Environment env;
    env.layout = Layout::Faces;
    env.cube = CubeMap(n);
    for (auto& face : env.cube.faces)
        for (float& v : face.rgb) v = u(rng);
    return env;
}

// A lat-long environment of w x h packed texels, all bytes zero.
inline Environment zero_packed_equirect(int w, int h, TexelEncoding encoding) {
    Environment env;
    env.layout = Layout::Equirect;
    env.packed.encoding = encoding;
    env.packed.width = w;
    env.packed.height = h;
    env.packed.bytes.resize(env.packed.pixel_count() * bytes_per_texel(encoding));
    return env;
}

// Random packed lat-long texels: RGBE with exponents in [100, 160] (values ~2^-36..2^24) and
// some all-zero texels; or any finite half, negative and subnormal ones included.
inline Environment random_packed_equirect(int w, int h, TexelEncoding encoding, unsigned seed) {
    std::mt19937 rng(seed);
    Environment env = zero_packed_equirect(w, h, encoding);
    std::uniform_int_distribution<int> byte(0, 255), exponent(100, 160), one_in(0, 19);
    if (encoding == TexelEncoding::Rgbe8) {
        for (std::size_t i = 0; i < env.packed.pixel_count(); ++i) {
            std::uint8_t* t = &env.packed.bytes[4 * i];
            const bool zero = one_in(rng) == 0;
            for (int c = 0; c < 3; ++c) t[c] = zero ? 0 : static_cast<std::uint8_t>(byte(rng));
            t[3] = zero ? 0 : static_cast<std::uint8_t>(exponent(rng));
        }
    } else {
        std::uniform_int_distribution<int> bits(0, 0xffff);
        for (std::size_t i = 0; i < env.packed.pixel_count() * 3; ++i) {
            std::uint16_t v;
            do v = static_cast<std::uint16_t>(bits(rng));
            while ((v & 0x7c00) == 0x7c00);  // finite only
            std::memcpy(&env.packed.bytes[2 * i], &v, 2);
        }
    }
    return env;
}


// A smooth, positive, non-symmetric radiance: a soft "sky" with a broad warm lobe.
inline Rgb smooth_radiance(const Vec3& d) {
    const double lobe = std::exp(2.0 * (0.3 * d.x + 0.8 * d.y - 0.5 * d.z) - 2.0);
    return {1.0 + 0.5 * d.y + 3.0 * lobe, 0.8 + 0.3 * d.x + 2.0 * lobe, 0.6 - 0.2 * d.z + 1.0 * lobe};
}

// Calls fn(rgb, direction, omega) for every texel of the source, in double, from core's own
// definitions (cube faces in order, then rows and columns; or the equirect rows).
template <typename Fn>
void for_each_texel(const Environment& env, const Fn& fn) {
    if (env.is_cube()) {
        const int n = env.cube.size;
        for (int f = 0; f < 6; ++f)
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c)
                    fn(env.cube.faces[static_cast<size_t>(f)].at(r, c), cube_texel_direction(f, r, c, n),
                       cube_texel_solid_angle(r, c, n));
    } else {
        const Image& img = env.equirect;
        for (int r = 0; r < img.height; ++r)
            for (int c = 0; c < img.width; ++c)
                fn(img.at(r, c), equirect_texel_direction(r, c, img.width, img.height),
                   equirect_row_solid_angle(r, img.width, img.height));
    }
}

// A fresh, empty scratch directory below the test's working directory (ctest runs every test
// case in one shared work folder); returns its name.
inline std::string scratch(const std::string& name) {
    std::filesystem::remove_all(name);
    std::filesystem::create_directories(name);
    return name;
}

// The names in a directory (not below it), sorted.
inline std::vector<std::string> names_in(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// Whether anything in or below a directory has a name starting with '.' (a temporary left over).
inline bool has_hidden_file(const std::string& dir) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
        if (e.path().filename().string().rfind('.', 0) == 0) return true;
    return false;
}

// The lines of a text, without their '\n'; a last line without one counts too.
inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The largest |value| of any channel.
inline double max_abs(const std::vector<Rgb>& values) {
    double m = 0;
    for (const Rgb& v : values)
        for (double x : v) m = std::max(m, std::fabs(x));
    return m;
}

// Legendre polynomial P_l(t) by the three-term recurrence.
inline double legendre_p(int l, double t) {
    double p0 = 1, p1 = t;
    if (l == 0) return p0;
    for (int n = 2; n <= l; ++n) {
        const double p2 = ((2 * n - 1) * t * p1 - (n - 1) * p0) / n;
        p0 = p1;
        p1 = p2;
    }
    return p1;
}

// Exact irradiance of the discrete environment: sum over texels of L * Omega * max(0, n . d).
inline Rgb brute_force_irradiance(const Environment& env, const Vec3& n) {
    Rgb e{0, 0, 0};
    for_each_texel(env, [&](const float* px, const Vec3& d, double omega) {
        const double w = omega * std::max(0.0, dot(n, d));
        for (int c = 0; c < 3; ++c) e[c] += px[c] * w;
    });
    return e;
}

// The reference JSONs' normals: k = 0..N-1, y = 1 - (2k+1)/N, phi = k pi (3 - sqrt 5).
inline std::vector<Vec3> fibonacci_sphere(int count) {
    std::vector<Vec3> pts;
    const double golden = kPi * (3 - std::sqrt(5.0));
    for (int i = 0; i < count; ++i) {
        const double y = 1 - 2 * (i + 0.5) / count, r = std::sqrt(1 - y * y);
        pts.push_back({r * std::cos(golden * i), y, r * std::sin(golden * i)});
    }
    return pts;
}

// max over k, c of |a - ref| / ||ref channel c||: the error measure of the issues.
inline double max_relative_error(const ShCoefficients& a, const ShCoefficients& ref) {
    double worst = 0;
    const int count = std::min(a.count(), ref.count());
    for (int c = 0; c < 3; ++c) {
        double norm = 0;
        for (int k = 0; k < count; ++k) norm += ref.rgb[static_cast<size_t>(k)][c] * ref.rgb[static_cast<size_t>(k)][c];
        norm = std::sqrt(norm);
        for (int k = 0; k < count; ++k)
            worst = std::max(worst, std::fabs(a.rgb[static_cast<size_t>(k)][c] - ref.rgb[static_cast<size_t>(k)][c]) / norm);
    }
    return worst;
}

// Whole files as bytes; write_bytes can write a prefix (truncated copies).
inline std::vector<char> read_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
inline void write_bytes(const std::string& path, const std::vector<char>& bytes, std::size_t n) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(n));
}
inline void write_bytes(const std::string& path, const std::vector<char>& bytes) { write_bytes(path, bytes, bytes.size()); }
// A file's bytes as a string ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
inline void write_text(const std::string& path, const std::string& s) { write_bytes(path, std::vector<char>(s.begin(), s.end())); }

inline nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

// Coefficients of an order from a reference JSON's [25][3] array field.
inline ShCoefficients coefficients_from(const nlohmann::json& rows, int order) {
    ShCoefficients c(order);
    for (int k = 0; k < sh_count(order); ++k)
        for (int ch = 0; ch < 3; ++ch) c.rgb[static_cast<size_t>(k)][ch] = rows.at(static_cast<size_t>(k)).at(static_cast<size_t>(ch)).get<double>();
    return c;
}

}  // namespace bake::test
