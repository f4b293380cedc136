#pragma once
// The sun of an environment map as a light of its own (docs/sun.md): find_sun finds the dominant
// compact bright source and measures it; remove_sun gives the map without it, so that the map's IBL
// plus a directional light of the sun's illuminance light a scene as the whole map does.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "layout.h"
#include "vec3.h"

namespace bake {

struct SunOptions {
    // A source: the texels of luminance >= max(sky_contrast x the map's median, peak_fraction x the
    // map's brightest texel), connected on the sphere. No texel above sky_contrast x median: no sun.
    double sky_contrast = 20.0;
    double peak_fraction = 0.1;
    // The brightest source (by its light above the median) is the sun only if it has at least
    // `dominance` times the light of all the other sources together: several lamps give no sun.
    double dominance = 3.0;
    // ... and only if the source covers no more than a disc of this radius: a bright area of sky or
    // cloud stays in the IBL.
    double max_radius_deg = 10.0;
    // Rings of texels added around the source before it is removed: they hold the partly covered
    // texels of its rim (and a lossy codec's ringing), whose light is part of the sun's.
    int margin_texels = 2;
    // Width in texels of the ring just outside those whose median is the sky put in the sun's place.
    int fill_ring_texels = 2;
    int threads = 0;  // <= 0: all cores
};

// Everything in the map's units: radiance units (whatever a texel value of 1 means) and steradians.
struct Sun {
    Vec3 direction;                     // unit, from the scene toward the sun (docs/CONVENTION.md axes)
    std::array<double, 3> illuminance;  // E = sum over its texels of (L - fill) * Omega * (d . direction)
    double angular_radius = 0;          // radians, of the uniform disc with the same second moment
    double solid_angle = 0;             // 2 pi (1 - cos angular_radius): that disc's
    std::array<double, 3> removed;      // sum of (L - fill) * Omega: exactly what remove_sun takes away
    std::array<float, 3> fill;          // the radiance its texels hold in the residual (a value of the
                                        // map's packed encoding when it has one)
    std::vector<std::size_t> texels;    // SphereTexels indices (sphere_texels.h), ascending
    double texel_radius = 0;            // radians: the disc of the brightest texel's solid angle
    double energy_share = 0;            // luminance of `removed` / the map's whole luminance integral
    double source_share = 0;            // its light / that of all the sources found (dominance test)

    // illuminance / its largest channel, negative channels as 0: the light's colour in [0, 1]
    // (linear, the map's primaries); the intensity that goes with it is max_illuminance().
    std::array<double, 3> colour() const;
    double max_illuminance() const;
    double luminance() const;  // Rec. 709 luminance of `illuminance`: lux when the map is in cd/m^2
};

struct SunSearch {
    std::optional<Sun> sun;
    std::string verdict;  // one line: what was found, or why there is no sun
};

// Finds the dominant compact bright source (docs/sun.md has the method and its limits). Texels that
// are not finite are never part of it. Precondition: options' thresholds positive, margins >= 0.
SunSearch find_sun(const Environment& env, const SunOptions& options = {});

// The environment without the sun: the same layout, size and texel encoding (packed RGBE or half
// stays packed, as the bake holds it), the sun's texels set to sun.fill (which find_sun chose
// representable in that encoding), every other texel unchanged; so that the residual's integral plus
// sun.removed is the input's. The identity becomes a fresh one when it was set (the texels changed).
// Throws std::invalid_argument when the sun's texels or fill do not fit env (a Sun of another map).
Environment remove_sun(const Environment& env, const Sun& sun);
// The same without a copy.
void remove_sun_in_place(Environment& env, const Sun& sun);

double rec709_luminance(const float* rgb);
double rec709_luminance(const std::array<double, 3>& rgb);

}  // namespace bake
