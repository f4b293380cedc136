#pragma once
#include <cstddef>
#include <string>
#include <vector>


#include "exact_irradiance.h"
#include "sh.h"

namespace bake {

// How far an SH irradiance E_sh is from the exact convolution E at a set of directions, per
// channel. The relative error at n is |E_sh(n) - E(n)| / |E(n)|, over the directions where
// |E(n)| > kShErrorFloor * max |E| of that channel (below that a ratio means nothing: a black
// hemisphere); `negative_fraction` is the share of all directions where E_sh(n) < 0 (ringing).
constexpr double kShErrorFloor = 1e-4;

struct ShErrorStats {
    int order = 0;
    Rgb mean_relative{}, max_relative{}, negative_fraction{};
    Rgb max_abs_over_mean{};  // max |E_sh - E| / mean |E| over all directions
    std::size_t excluded = 0;  // (direction, channel) pairs below the floor
    double worst_mean() const;  // the largest channel mean
};

// `irradiance` of order >= `order`, truncated to `order` (SH coefficients of lower bands do not
// depend on the order projected); `exact` holds E at `directions`.
ShErrorStats measure_sh_error(const ShCoefficients& irradiance, int order, const std::vector<Vec3>& directions,
                              const std::vector<Rgb>& exact);

// The error report of every bake: at the texel centres of a 6 x 16^2 cube (1536 directions, the
// same for every bake, so numbers compare across maps and options), against the exact irradiance
// over cells of at most 64 rows (128 x 64 cells, or 6 x 32^2 for cubes: cheap on either path,
// and its own bound, sin(D) times the radiance near the horizon, far below the SH errors it
// measures). Orders 3 and 5 always; `output` is the order and window written, when windowed.
constexpr int kShErrorGridSize = 16;
constexpr int kShErrorCellRows = 64;

struct ShErrorReport {
    std::string directions;   // "cube 6x16^2 texel centres"
    std::string reference;    // IrradianceCells::describe() of the reference cells
    double reference_cell_diameter = 0;
    ShErrorStats order3, order5;
    bool windowed = false;
    ShErrorStats output;      // when windowed: the coefficients as written
};

// `irradiance5`: order-5 irradiance coefficients (unwindowed); `exact`: E at cube_map_directions(kShErrorGridSize).
ShErrorReport make_sh_error_report(const ShCoefficients& irradiance5, const IrradianceCells& reference,
                                   const std::vector<Rgb>& exact);


// The line for stderr when the requested order's worst channel mean exceeds `threshold`, saying
// which order would do; empty when it does not.
std::string sh_error_warning(const ShErrorReport& report, int order, double threshold);

}  // namespace bake
