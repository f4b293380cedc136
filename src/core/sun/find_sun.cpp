#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "packed_fill.h"
#include "parallel.h"
#include "sphere_texels.h"
#include "sun.h"

namespace bake {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kDeg = 180.0 / kPi;

// The median's histogram: 1/8-octave bins of a positive float, indexed by its exponent and top three
// mantissa bits (so a bin is at most 12.5% wide); bin 0 holds zero, negative and subnormal values.
constexpr int kBins = 1 << 11;
int luminance_bin(float y) {
    if (!(y > 0.0f)) return 0;
    std::uint32_t bits;
    std::memcpy(&bits, &y, sizeof bits);
    return static_cast<int>(bits >> 20);
}
double bin_floor(int bin) {
    const std::uint32_t bits = static_cast<std::uint32_t>(bin) << 20;
    float y;
    std::memcpy(&y, &bits, sizeof y);
    return y;
}

bool finite3(const float* v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }

// Rec. 709 luminance in float: what every pass classifies texels by (non-finite when a channel is).
inline float luminance_f(const float* v) { return 0.2126f * v[0] + 0.7152f * v[1] + 0.0722f * v[2]; }

// Rows in chunks fixed by the input's size alone, merged in order: the sums do not depend on threads.
struct Chunks {
    int rows, rows_per_chunk, count;
    Chunks(const SphereTexels& t) : rows(t.rows()) {
        rows_per_chunk = std::max(1, (1 << 16) / std::max(1, t.row_length()));
        count = (rows + rows_per_chunk - 1) / rows_per_chunk;
    }
};

// Pass 1: the solid angle in each luminance bin (for the median), the map's luminance integral, its
// brightest texel and each row's. Non-finite texels are left out of all of them.
struct Survey {
    std::vector<double> histogram = std::vector<double>(kBins, 0.0);
    std::vector<float> row_peak;
    double solid_angle = 0, luminance = 0;
    float peak = -std::numeric_limits<float>::infinity();
};

Survey survey(const SphereTexels& texels, int threads) {
    const Chunks chunks(texels);
    Survey all;
    all.row_peak.assign(static_cast<std::size_t>(chunks.rows), all.peak);
    // Even and odd columns go to their own histogram and sums: two chains of additions, not one
    // (a smooth sky puts neighbours in the same bin, and each addition waited for the last).
    struct Part {
        std::vector<double> histogram = std::vector<double>(2 * kBins, 0.0);
        double solid_angle[2] = {0, 0}, luminance[2] = {0, 0};
    };
    std::vector<Part> parts(static_cast<std::size_t>(chunks.count));
    const std::size_t width = static_cast<std::size_t>(texels.row_length());
    parallel_for(chunks.count, resolve_threads(threads, chunks.count), [&](int k) {
        Part& p = parts[static_cast<std::size_t>(k)];
        std::vector<float> scratch;
        std::vector<double> omegas;
        const int end = std::min(chunks.rows, (k + 1) * chunks.rows_per_chunk);
        for (int row = k * chunks.rows_per_chunk; row < end; ++row) {
            const float* v = texels.row_values(row, scratch);
            texels.approx_row_solid_angles(row, omegas);
            float peak = all.row_peak[static_cast<std::size_t>(row)];
            const auto add = [&](std::size_t c, int lane) {
                const float y = luminance_f(v + 3 * c);
                if (!std::isfinite(y)) return;
                const double omega = omegas[c];
                p.histogram[static_cast<std::size_t>(lane * kBins + luminance_bin(y))] += omega;
                p.solid_angle[lane] += omega;
                p.luminance[lane] += y * omega;
                peak = std::max(peak, y);
            };
            std::size_t c = 0;
            for (; c + 1 < width; c += 2) {
                add(c, 0);
                add(c + 1, 1);
            }
            if (c < width) add(c, 0);
            all.row_peak[static_cast<std::size_t>(row)] = peak;
        }
    });
    for (const Part& p : parts) {
        for (std::size_t b = 0; b < static_cast<std::size_t>(kBins); ++b) all.histogram[b] += p.histogram[b] + p.histogram[kBins + b];
        all.solid_angle += p.solid_angle[0] + p.solid_angle[1];
        all.luminance += p.luminance[0] + p.luminance[1];
    }
    for (float peak : all.row_peak) all.peak = std::max(all.peak, peak);
    return all;
}

// The solid-angle-weighted median luminance, rounded down to its bin's floor (within 12.5%).
double median_luminance(const Survey& s) {
    double below = 0;
    for (int b = 0; b < kBins; ++b) {
        below += s.histogram[static_cast<std::size_t>(b)];
        if (below >= 0.5 * s.solid_angle) return bin_floor(b);
    }
    return 0;
}

// Pass 2: the texels of luminance >= threshold, ascending, with their luminance; only the rows whose
// brightest texel reaches it are read.
struct Bright {
    std::vector<std::size_t> texels;
    std::vector<float> luminance;
};

Bright bright_texels(const SphereTexels& texels, const Survey& all, double threshold, int threads) {
    const Chunks chunks(texels);
    std::vector<Bright> parts(static_cast<std::size_t>(chunks.count));
    const std::size_t width = static_cast<std::size_t>(texels.row_length());
    parallel_for(chunks.count, resolve_threads(threads, chunks.count), [&](int k) {
        Bright& b = parts[static_cast<std::size_t>(k)];
        std::vector<float> scratch;
        const int end = std::min(chunks.rows, (k + 1) * chunks.rows_per_chunk);
        for (int row = k * chunks.rows_per_chunk; row < end; ++row) {
            if (all.row_peak[static_cast<std::size_t>(row)] < threshold) continue;
            const float* v = texels.row_values(row, scratch);
            for (std::size_t c = 0; c < width; ++c, v += 3) {
                const float y = luminance_f(v);
                if (y >= threshold && std::isfinite(y)) {
                    b.texels.push_back(static_cast<std::size_t>(row) * width + c);
                    b.luminance.push_back(y);
                }
            }
        }
    });
    Bright all_bright;
    for (const Bright& b : parts) {
        all_bright.texels.insert(all_bright.texels.end(), b.texels.begin(), b.texels.end());
        all_bright.luminance.insert(all_bright.luminance.end(), b.luminance.begin(), b.luminance.end());
    }
    return all_bright;
}

// A connected set of bright texels, measured by its light above the map's median.
struct Source {
    std::vector<std::size_t> texels;
    double light = 0;        // sum of (Y - median) Omega
    double solid_angle = 0;
    std::size_t peak_texel = 0;
    float peak = 0;
};

// The bright texels' connected components (8-neighbourhood on the sphere), by union-find.
std::vector<Source> sources(const SphereTexels& texels, const Bright& bright, double median) {
    const std::size_t n = bright.texels.size();
    std::vector<std::size_t> parent(n);
    for (std::size_t k = 0; k < n; ++k) parent[k] = k;
    const auto root = [&](std::size_t k) {
        while (parent[k] != k) k = parent[k] = parent[parent[k]];
        return k;
    };
    std::size_t nb[8];
    for (std::size_t k = 0; k < n; ++k) {
        const int count = texels.neighbours(bright.texels[k], nb);
        for (int j = 0; j < count; ++j) {
            const auto it = std::lower_bound(bright.texels.begin(), bright.texels.end(), nb[j]);
            if (it == bright.texels.end() || *it != nb[j]) continue;
            const std::size_t a = root(k), b = root(static_cast<std::size_t>(it - bright.texels.begin()));
            if (a != b) parent[std::max(a, b)] = std::min(a, b);
        }
    }
    std::vector<Source> out;
    std::unordered_map<std::size_t, std::size_t> index;  // root -> its source
    for (std::size_t k = 0; k < n; ++k) {
        const auto [it, added] = index.emplace(root(k), out.size());
        if (added) out.emplace_back();
        Source& s = out[it->second];
        const double omega = texels.solid_angle(bright.texels[k]);
        s.texels.push_back(bright.texels[k]);
        s.light += (bright.luminance[k] - median) * omega;
        s.solid_angle += omega;
        if (bright.luminance[k] > s.peak) {
            s.peak = bright.luminance[k];
            s.peak_texel = bright.texels[k];
        }
    }
    return out;
}

double cap_radius(double solid_angle) { return std::acos(std::clamp(1.0 - solid_angle / (2.0 * kPi), -1.0, 1.0)); }

// The source grown by `margin` rings of neighbours, then the `width` rings just outside that (the
// sky around it). Non-finite texels join neither.
void grow(const SphereTexels& texels, const std::vector<std::size_t>& core, int margin, int width,
          std::vector<std::size_t>* region, std::vector<std::size_t>* ring) {
    std::unordered_set<std::size_t> seen(core.begin(), core.end());
    *region = core;
    std::vector<std::size_t> frontier = core, next;
    std::size_t nb[8];
    float v[3];
    for (int step = 0; step < margin + width; ++step) {
        next.clear();
        for (std::size_t i : frontier) {
            const int count = texels.neighbours(i, nb);
            for (int j = 0; j < count; ++j) {
                if (!seen.insert(nb[j]).second) continue;
                texels.value(nb[j], v);
                if (!finite3(v)) continue;
                next.push_back(nb[j]);
                (step < margin ? region : ring)->push_back(nb[j]);
            }
        }
        frontier.swap(next);
    }
    std::sort(region->begin(), region->end());
}

// The solid-angle-weighted median of each channel over the ring: robust against what the ring
// catches of other sources or of a codec's ringing.
std::array<float, 3> ring_median(const SphereTexels& texels, const std::vector<std::size_t>& ring) {
    std::array<float, 3> out{};
    std::vector<std::pair<float, double>> values(ring.size());
    float v[3];
    for (int c = 0; c < 3; ++c) {
        double total = 0;
        for (std::size_t k = 0; k < ring.size(); ++k) {
            texels.value(ring[k], v);
            values[k] = {v[c], texels.solid_angle(ring[k])};
            total += values[k].second;
        }
        std::sort(values.begin(), values.end());
        double below = 0;
        for (const auto& [value, omega] : values) {
            below += omega;
            if (below >= 0.5 * total) {
                out[static_cast<std::size_t>(c)] = value;
                break;
            }
        }
    }
    return out;
}

std::string format(const char* fmt, double a, double b = 0, double c = 0, double d = 0, double e = 0) {
    char buf[256];
    std::snprintf(buf, sizeof buf, fmt, a, b, c, d, e);
    return buf;
}

}  // namespace

double rec709_luminance(const float* rgb) { return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]; }
double rec709_luminance(const std::array<double, 3>& rgb) { return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]; }

double Sun::max_illuminance() const { return std::max({illuminance[0], illuminance[1], illuminance[2], 0.0}); }
double Sun::luminance() const { return rec709_luminance(illuminance); }
std::array<double, 3> Sun::colour() const {
    const double m = max_illuminance();
    std::array<double, 3> c{};
    for (std::size_t k = 0; k < 3; ++k) c[k] = m > 0 ? std::max(0.0, illuminance[k]) / m : 0.0;
    return c;
}

SunSearch find_sun(const Environment& env, const SunOptions& options) {
    const SphereTexels texels(env);
    SunSearch out;
    if (texels.count() == 0) {
        out.verdict = "no sun: the map is empty";
        return out;
    }
    const Survey all = survey(texels, options.threads);
    const double median = median_luminance(all);
    if (!(all.peak > 0) || all.peak < options.sky_contrast * median) {
        out.verdict = format("no sun: no texel reaches %g times the median luminance %g (the brightest is %g)",
                             options.sky_contrast, median, all.peak);
        return out;
    }
    const double threshold = std::max(options.sky_contrast * median, options.peak_fraction * all.peak);

    // The sun's light is at most peak x the largest disc, the others' at least (threshold - median)
    // per steradian: above this solid angle of bright texels no source can dominate, and none is
    // collected (a bin counts only when its floor is above the threshold: a lower bound).
    const double max_radius = options.max_radius_deg / kDeg;
    const double disc = 2.0 * kPi * (1.0 - std::cos(max_radius));
    const double cap = disc * (1.0 + all.peak / (options.dominance * (threshold - median)));
    double bright_lower = 0;
    for (int b = 0; b < kBins; ++b)
        if (bin_floor(b) >= threshold) bright_lower += all.histogram[static_cast<std::size_t>(b)];
    if (bright_lower > cap) {
        out.verdict = format("no sun: %.3g sr of the map is brighter than %g, too much for one compact source to dominate",
                             bright_lower, threshold);
        return out;
    }

    // Never empty: the threshold is at most the brightest texel's luminance.
    std::vector<Source> found = sources(texels, bright_texels(texels, all, threshold, options.threads), median);
    std::size_t best = 0;
    double total = 0;
    for (std::size_t k = 0; k < found.size(); ++k) {
        total += found[k].light;
        if (found[k].light > found[best].light) best = k;
    }
    const Source& source = found[best];
    const double share = total > 0 ? source.light / total : 0.0;
    if (source.light < options.dominance * (total - source.light)) {
        out.verdict = format("no sun: the brightest of %g sources has %.1f%% of their light, below the %.1f%% that makes one dominant",
                             static_cast<double>(found.size()), 100.0 * share,
                             100.0 * options.dominance / (options.dominance + 1.0));
        return out;
    }
    const double core_radius = cap_radius(source.solid_angle);
    if (core_radius > max_radius) {
        out.verdict = format("no sun: the dominant source spans a disc of %.2f deg, more than %g deg: a bright area, not a sun",
                             core_radius * kDeg, options.max_radius_deg);
        return out;
    }

    std::vector<std::size_t> region, ring;
    grow(texels, source.texels, options.margin_texels, options.fill_ring_texels, &region, &ring);
    if (ring.empty()) {
        out.verdict = "no sun: no sky around the source to put in its place";
        return out;
    }
    Sun sun;
    sun.fill = ring_median(texels, ring);
    if (env.is_packed()) sun.fill = pack_fill(env.packed.encoding, sun.fill).value;  // what remove_sun can write
    sun.removed = {0, 0, 0};
    sun.illuminance = {0, 0, 0};
    double centre[3] = {0, 0, 0};
    std::vector<std::array<double, 3>> excess(region.size());
    float v[3];
    for (std::size_t k = 0; k < region.size(); ++k) {
        texels.value(region[k], v);
        const double omega = texels.solid_angle(region[k]);
        for (std::size_t c = 0; c < 3; ++c) {
            excess[k][c] = static_cast<double>(v[c]) - static_cast<double>(sun.fill[c]);
            sun.removed[c] += excess[k][c] * omega;
        }
        const double w = rec709_luminance(excess[k]) * omega;
        const Vec3 d = texels.direction(region[k]);
        centre[0] += w * d.x;
        centre[1] += w * d.y;
        centre[2] += w * d.z;
    }
    const Vec3 sum{centre[0], centre[1], centre[2]};
    if (!(length(sum) > 0)) {
        out.verdict = "no sun: the source holds no light above the sky around it";
        return out;
    }
    sun.direction = normalize(sum);
    // Second moment about the centre: a uniform cap of radius r has <1 - cos theta> = (1 - cos r) / 2.
    // Each texel's light is taken as spread evenly over it (spread()), which is what a texel knows.
    double moment = 0, weight = 0;
    for (std::size_t k = 0; k < region.size(); ++k) {
        const Vec3 d = texels.direction(region[k]);
        const double omega = texels.solid_angle(region[k]), cosine = dot(d, sun.direction);
        const Vec3 gap{d.x - sun.direction.x, d.y - sun.direction.y, d.z - sun.direction.z};
        for (std::size_t c = 0; c < 3; ++c) sun.illuminance[c] += excess[k][c] * omega * cosine;
        const double w = rec709_luminance(excess[k]) * omega;
        moment += w * (0.5 * dot(gap, gap) + texels.spread(region[k]) * cosine);  // 1 - cos = |d - s|^2 / 2
        weight += w;
    }
    sun.texel_radius = cap_radius(texels.solid_angle(source.peak_texel));
    sun.angular_radius = std::max(sun.texel_radius, std::acos(std::clamp(1.0 - 2.0 * moment / weight, -1.0, 1.0)));
    sun.solid_angle = 2.0 * kPi * (1.0 - std::cos(sun.angular_radius));
    sun.energy_share = all.luminance > 0 ? rec709_luminance(sun.removed) / all.luminance : 0.0;
    sun.source_share = share;
    sun.texels = std::move(region);
    out.verdict = format("sun toward (%.4f, %.4f, %.4f), radius %.3g deg, ", sun.direction.x, sun.direction.y,
                         sun.direction.z, sun.angular_radius * kDeg) +
                  format("illuminance %.4g (luminance), %.1f%% of the map's light", sun.luminance(), 100.0 * sun.energy_share);
    out.sun = std::move(sun);
    return out;
}

}  // namespace bake
