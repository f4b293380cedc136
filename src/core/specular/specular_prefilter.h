#pragma once
// The specular half of image-based lighting: the environment prefiltered with a microfacet lobe for
// a chain of roughnesses (Karis 2013's split sum, with N = V = R), CPU side: the source cube map the
// prefilter reads, its mip chain, the sample sets the GPU path uses, and a double brute-force
// reference that integrates the lobe over every source texel. Two lobes: GGX (ggx.h, --specular)
// and Charlie (charlie.h, KHR_materials_sheen's sheen), the same machinery for both.
//
// The lobe. With V = N, a reflected direction l has half vector h = normalize(n + l) and
// n·h = v·h, so importance sampling h from D(h)·(n·h) gives l the density D(h)/4, and Karis'
// estimator Σ L(l)·(n·l) / Σ (n·l) converges to
//     P(n) = ∫ L(l) W(n, l) dl / ∫ W(n, l) dl,   W(n, l) = max(0, n·l) · D(h),
// which is what the reference computes over the source texels and what the GPU estimates. For
// Charlie, D peaks at grazing h, whose reflections of n fall behind n's horizon: its samples are
// drawn from D(h)·(n·h) restricted to the h that reflect above it (charlie.h), which gives the same
// weights n·l. Its level 0 (roughness 0) is the lobe's limit, the mean over n's horizon circle
// (horizon_ring.h); GGX's level 0 is the source's area average (the mirror's limit).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cube_map.h"
#include "layout.h"
#include "specular_source.h"
#include "vec3.h"

namespace bake {

// Progress units of one step of the chain (the source, or one level after the first: each costs
// about the same, samples x4 where texels /4). 6 x 1024: a whole number of units for each of a
// level's 6n rows, so that a level of the CPU path advances row by row (minutes at 1024^2).
constexpr long long kSpecularProgressUnits = 6 * 1024;

// The lobe a chain is prefiltered with.
enum class SpecularLobe {
    Ggx,      // GGX (Trowbridge-Reitz), alpha = roughness²: the specular chain
    Charlie,  // Estevez & Kulla's sheen, alpha = sheenRoughness²: KHR_materials_sheen's chain
};
const char* specular_lobe_name(SpecularLobe lobe);  // "GGX", "Charlie"

struct SpecularSettings {
    SpecularLobe lobe = SpecularLobe::Ggx;
    int base_size = 256;      // face size of level 0 (a power of two)
    int last_size = 1;        // face size of the last level (a power of two, at most base_size): roughness 1 there
    // Levels base_size .. last_size, level i for roughness i / (levels - 1).
    int levels() const;
    // The chain's length, for --specular-levels N (Bevy once wanted a fixed count) and
    // --specular-min-size S (glTF viewers read down to 16²): last_size = base_size >> (N - 1), or S.
    // Throw std::invalid_argument unless 1 <= N <= specular_level_count(base_size), or S is a power of
    // two in [1, base_size]. Set base_size first.
    void set_levels(int count);
    void set_min_size(int size);
    int source_size = 0;      // face size of the source cube the lobe is integrated over; 0: default_specular_source_size
    int samples = 1024;       // GGX samples per output texel of level 1 on the GPU; see specular_level_samples
    double lod_bias = 1.0;    // added to the mip level each sample reads (Karis 2013: +1 smooths the few-sample case)
};

// Default source face: the input's own resolution (an equirect W wide has W/4 texels a face)
// rounded up to a power of two, at least the base size and at most twice it, so that level 0 is
// an exact area average and the sharpest prefiltered level sees its lobe over about ten texels.
int default_specular_source_size(const Environment& env, int base_size);
// The same for a lat-long input `width` texels wide (known from its header before it decodes).
int default_specular_source_size(int equirect_width, int base_size);

// Solid angles of an n x n cube face's texels (the same on every face), row-major
// (cube_texel_solid_angle), on `threads` threads (0: all cores).
std::vector<double> face_solid_angles(int n, int threads = 0);

// The source cube the prefilter reads: every texel the exact area average of the input over it
// (specular_source.h), so that its integral is the input's; packed texels are read as their
// expansion.
CubeMap make_specular_source(const Environment& env, int size, int threads = 0);

// Solid-angle-weighted 2x2 averages down to 1x1: level 0 is `base` itself (size a power of two).
// (`base` by value: moved in where the caller has no further use for it.)
std::vector<CubeMap> cube_mip_chain(CubeMap base, int threads = 0);

// The chain's level 0 (roughness 0): the area average of the source over each texel of the base
// size, i.e. the source's mip level of that size (or, for a smaller source, its texel under each one).
CubeMap specular_level_zero(const std::vector<CubeMap>& source_mips, int base_size);

// Samples a texel of level i (>= 1) takes: samples · 4^(i-1), at most kMaxSpecularSamples. A level
// has a quarter of the texels of the one above, so every level costs about the same, and the wide
// lobes of the rough levels, where few samples would each read a blurred mip, are summed nearly
// texel by texel.
constexpr int kMaxSpecularSamples = 1 << 16;
int specular_level_samples(int samples, int level);

// One GPU sample of a level: the direction l in the local frame (+Z = n) and the source mip level it
// reads. Its weight is l.z (n·l); samples with n·l <= 0 are dropped.
struct SpecularSample {
    float x, y, z, lod;
};
// `samples` Hammersley points through the lobe for alpha = roughness² (GGX: its NDF; Charlie:
// sample_charlie_lobe), with Karis' mip-filtered sampling: lod = max(0, ½·log2(Ω_s / Ω_p) + lod_bias),
// Ω_s = 1 / (samples · pdf(l)), Ω_p = 4π/(6·source_size²). Charlie at roughness 0: `samples`
// directions evenly spaced on the horizon circle (horizon_ring.h), z = kHorizonSampleZ so that
// their weights are equal, Ω_s = (2π / samples)².
constexpr float kHorizonSampleZ = 1.0f / (1 << 20);
std::vector<SpecularSample> specular_sample_set(double roughness, int samples, int source_size, double lod_bias,
                                                SpecularLobe lobe = SpecularLobe::Ggx);

// What the prefilter reads. Importance sampling errs in proportion to what a few samples see:
// a sun of 1e4 on a few texels is off by percents. So the input's own texels whose |luminance|
// exceeds the threshold (kSpecularBrightFactor times the mean |luminance|, raised until at most
// kMaxBrightTexels remain; split_bright_texels) are scaled down to it for the samples, and their
// excess is added texel by texel with the lobe's exact weight, Σ excess·Ω·W(n·d) / ∫W. The split
// is made on the input, not on the source cube: a sun keeps its own position and size (a source
// texel would move it by up to half a texel and spread it over the texel, which errs by percents
// at the sharp levels and at roughness 1; issue 19). Both sources are exact area averages
// (specular_source.h). Measured: bench/NOTES.md, "Specular" and "Specular source".
constexpr double kSpecularBrightFactor = 2.0;
constexpr int kMaxBrightTexels = 4096;
// The bright split of an input (split_bright_texels with the prefilter's factor and limit). It
// depends on the input alone, so a bake makes it where the input decodes (a worker thread, while
// the GL context starts) and every chain of that input uses it.
struct BrightSplit {
    std::vector<BrightTexel> texels;
    LuminanceCap cap;
    double ms = 0;  // wall clock
};
BrightSplit split_specular_bright(const Environment& env, int threads = 0, double bright_factor = kSpecularBrightFactor,
                                  int max_bright = kMaxBrightTexels);

struct SpecularInput {
    int size = 0;                       // face size of the source (mips[0])
    std::vector<CubeMap> mips;          // the source and its mips: level 0 of the chain reads these
    std::vector<CubeMap> capped_mips;   // the source of the capped input, and its mips: the samples read these
    // Where both chains are when mips and capped_mips are empty: kept by the backend that computed
    // them, where its prefilter reads them (the GPU: no read back, no upload), as its `resident_generation`;
    // empty / 0 when they are above.
    std::string resident_on;
    std::uint64_t resident_generation = 0;
    std::vector<BrightTexel> bright;    // the excess the cap removed, texels of the input
    double threshold = 0;               // |luminance| above which a texel is capped (infinity: none)
    bool bright_equirect = false;       // the bright texels' grid: lat-long width x height, or cube faces of width
    int bright_width = 0, bright_height = 0;
    // Wall-clock milliseconds of its parts (--timings): the bright split over the input, the area
    // averages (full and capped), the mip chains; and where the averages were computed.
    double split_ms = 0, average_ms = 0, mips_ms = 0;
    bool split_given = false;  // the split was made beforehand (BrightSplit), split_ms its time then
    std::string average_by = "cpu";
};
// The source of `source_size` from the input, split as above (packed texels are read as their
// expansion), or with `split` when given (split_specular_bright of this input, same factor and limit).
SpecularInput prepare_specular_input(const Environment& env, int source_size, int threads = 0,
                                     double bright_factor = kSpecularBrightFactor, int max_bright = kMaxBrightTexels,
                                     const BrightSplit* split = nullptr);
// The same with the area averages (full and capped) made by `average` (the GPU's, say) in place of
// area_average_cube; `average_by` names it in --timings. An `average` that leaves both cubes empty
// keeps them (and their mips) itself: the result's mips are then empty (the caller marks it resident).
using SpecularAverage = std::function<void(const Environment&, int size, const LuminanceCap&, CubeMap* full, CubeMap* capped)>;
// `alongside_split`, when given, runs on this thread while the split runs on another (the GPU's
// upload of the input, say). `split`: the input's split made beforehand (then used as is, and
// alongside_split runs alone).
SpecularInput prepare_specular_input(const Environment& env, int source_size, const SpecularAverage& average,
                                     const std::string& average_by, int threads = 0,
                                     double bright_factor = kSpecularBrightFactor, int max_bright = kMaxBrightTexels,
                                     const std::function<void()>& alongside_split = {}, const BrightSplit* split = nullptr);
// The same for a cube taken as the input itself (its own size).
SpecularInput prepare_specular_input(const CubeMap& source, int threads = 0, double bright_factor = kSpecularBrightFactor,
                                     int max_bright = kMaxBrightTexels);

// ∫ W(n, l) dl over the sphere, W = max(0, n·l)·D(h): the weight the bright texels are divided by
// (GGX: 2π ∫₀¹ c·D(√((1+c)/2)) dc, composite Simpson in theta, relative error below 1e-9; Charlie:
// charlie_lobe_integral, in closed form, for the lobe without its constant 2^(-1/(2 alpha))).
double specular_lobe_integral(double alpha, SpecularLobe lobe = SpecularLobe::Ggx);
// The lobe W at c = n·l, 1 - c given apart (Charlie: charlie_lobe, scaled as its integral above).
double specular_lobe_weight(double c, double one_minus_c, double alpha, SpecularLobe lobe = SpecularLobe::Ggx);

// Parts a side a bright texel of angular size `extent` (radians; its longer side) is cut into at
// roughness r, so that the lobe (about 2·alpha wide) varies little within a part,
// ceil(8 · extent / (2 alpha)), and so that a part across an output direction's horizon, where
// W has a kink the rule takes for smooth, is at most kBrightPartExtent wide (large texels of
// small inputs only: 512 x 256 texels are 0.012 rad); at most 8. Each part is summed at the
// 2 x 2 Gauss-Legendre nodes. Charlie's kink is at its ring's foot (W rises from 0 to its peak within
// 2 alpha of the horizon): its parts are at most kCharlieBrightPartAlphas · alpha wide there too.
constexpr double kBrightPartExtent = 0.02;
constexpr double kCharlieBrightPartAlphas = 0.5;
int specular_bright_subdivision(double roughness, double extent, SpecularLobe lobe = SpecularLobe::Ggx);

// The bright texels' parts for one level: direction (xyz) and solid angle (w), then excess (xyz).
// None for Charlie's level 0 (roughness 0), whose bright texels HorizonBright sums.
std::vector<float> specular_bright_parts(const SpecularInput& input, double roughness, SpecularLobe lobe = SpecularLobe::Ggx);

// The GPU path's estimator on the CPU, in double (the fallback without OpenGL): the same sample
// sets, each read with seamless trilinear filtering of the capped mip chain (sample_cube_bilinear),
// plus the bright texels' exact sum. settings.lobe: GGX or Charlie (whose level 0 is estimated too).
std::vector<CubeMap> prefilter_specular_sampled(const SpecularInput& input, const SpecularSettings& settings,
                                                int threads = 0);

// A bilinear read of one level at direction d, seamless as GL's: a tap beyond the face's edge
// reads the neighbouring face's texel its centre falls in; beyond a cube corner, where there is
// no texel, the mean of the other three taps (the GL specification's recommendation).
void sample_cube_bilinear(const CubeMap& level, const Vec3& d, double out[3]);

// The reference: P(n) for one direction, in double, over every texel of `source`, each texel cut
// into k x k parts where the lobe is narrow next to it (k from the texel's angular size, the lobe
// width alpha and its angular distance from n; at most 32), so that the lobe's variation inside a
// part stays below an eighth of its scale, each part summed at the 2 x 2 Gauss-Legendre nodes
// (fourth order). roughness 0 returns the texel n falls in (GGX), or the mean over n's horizon
// circle, every texel weighted by the length of the circle inside it (Charlie).
void prefilter_specular_at(const CubeMap& source, const Vec3& n, double roughness, double out[3],
                           SpecularLobe lobe = SpecularLobe::Ggx);

// The whole chain by the reference: level i for roughness i/(levels-1), level 0 as specular_level_zero
// (GGX) or prefilter_specular_at (Charlie). O(outputs x source texels): for checking, on small sizes.
std::vector<CubeMap> prefilter_specular_cpu(const CubeMap& source, int base_size, int threads = 0,
                                            SpecularLobe lobe = SpecularLobe::Ggx);

// How far a chain is from a reference chain, per level: max |a - b| over the level's max |b|
// (the measure of the 1e-3 target) and the mean of |a - b| / |b| over texels with
// |b| > 1e-3 · max |b|, all channels.
struct SpecularLevelDifference {
    int level = 0;
    double roughness = 0;
    double max_rel_to_max = 0;
    double mean_rel = 0;
};
std::vector<SpecularLevelDifference> compare_specular_chains(const std::vector<CubeMap>& a, const std::vector<CubeMap>& b);
// The same measures over two lists of values (level and roughness left 0).
SpecularLevelDifference compare_specular_values(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace bake
