#include "sh_window.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace bake {

namespace {

constexpr double kPi = 3.14159265358979323846;

struct WindowName {
    ShWindowKind kind;
    const char* name;
};
constexpr WindowName kWindowNames[] = {
    {ShWindowKind::None, "none"},   {ShWindowKind::Hann, "hann"}, {ShWindowKind::Lanczos, "lanczos"},
    {ShWindowKind::Gauss, "gauss"}, {ShWindowKind::Auto, "auto"},
};

// Y_00: the DC coefficient times this is the mean over the sphere.
constexpr double kY00 = 0.282094791773878;

void require_order(int order) {
    if (!is_supported_order(order)) throw std::invalid_argument("SH window: unsupported order " + std::to_string(order));
}

// --- Minimum search -------------------------------------------------------------------------

// Cells per cube-face edge of the search grid.
constexpr int kGridCells = 32;
// Most starting nodes refined per channel.
constexpr int kMaxStarts = 8;
// The compass search stops below this step (radians): the value is then within ~M * 1e-16.
constexpr double kSearchStepTolerance = 1e-8;
// Bounds the work of the compass search on ill-conditioned valleys.
constexpr int kMaxSearchIterations = 400;

// Largest angle from a direction to its nearest grid node: a point of a face cell lies within
// the half-diagonal sqrt(2)/n of a corner in the face plane, and projecting onto the sphere
// does not lengthen chords.
double grid_covering_radius() { return 2 * std::asin(std::sqrt(2.0) / kGridCells / 2); }

// The grid's unit directions and their basis values up to kMaxShOrder, computed once.
struct DirectionGrid {
    std::vector<Vec3> directions;
    std::vector<double> basis;  // kMaxShCount per direction
};

const DirectionGrid& direction_grid() {
    static const DirectionGrid grid = [] {
        DirectionGrid g;
        for (int axis = 0; axis < 3; ++axis)
            for (double sign : {1.0, -1.0})
                for (int i = 0; i <= kGridCells; ++i)
                    for (int j = 0; j <= kGridCells; ++j) {
                        const double a = 2.0 * i / kGridCells - 1, b = 2.0 * j / kGridCells - 1;
                        double p[3];
                        p[axis] = sign;
                        p[(axis + 1) % 3] = a;
                        p[(axis + 2) % 3] = b;
                        g.directions.push_back(normalize(Vec3{p[0], p[1], p[2]}));
                    }
        g.basis.resize(g.directions.size() * kMaxShCount);
        for (size_t n = 0; n < g.directions.size(); ++n) eval_sh_basis(kMaxShOrder, g.directions[n], &g.basis[n * kMaxShCount]);
        return g;
    }();
    return grid;
}

double eval_channel(const ShCoefficients& c, int channel, const Vec3& d) {
    double y[kMaxShCount];
    eval_sh_basis(c.order, d, y);
    double sum = 0;
    for (int k = 0; k < c.count(); ++k) sum += c.rgb[static_cast<size_t>(k)][static_cast<size_t>(channel)] * y[k];
    return sum;
}

// M of the accuracy bound (sh_window.h): bounds the second derivative along great circles.
double second_derivative_bound(const ShCoefficients& c, int channel) {
    double bound = 0;
    for (int l = 1; l < c.order; ++l) {
        double norm2 = 0;
        for (int k = l * l; k < (l + 1) * (l + 1); ++k) {
            const double e = c.rgb[static_cast<size_t>(k)][static_cast<size_t>(channel)];
            norm2 += e * e;
        }
        bound += l * l * std::sqrt((2 * l + 1) / (4 * kPi) * norm2);
    }
    return bound;
}

// Compass search for a local minimum of one channel near `start`, in the gnomonic chart of the
// tangent plane at start (eight directions; the step halves when none of them is lower).
double refine_minimum(const ShCoefficients& c, int channel, const Vec3& start, double start_value, double step) {
    // Any vector not parallel to start gives the tangent frame.
    const Vec3 helper = std::fabs(start.x) < 0.9 ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
    const double along = dot(helper, start);
    const Vec3 e1 = normalize(Vec3{helper.x - along * start.x, helper.y - along * start.y, helper.z - along * start.z});
    const Vec3 e2{start.y * e1.z - start.z * e1.y, start.z * e1.x - start.x * e1.z, start.x * e1.y - start.y * e1.x};
    auto at = [&](double a, double b) {
        return normalize(Vec3{start.x + a * e1.x + b * e2.x, start.y + a * e1.y + b * e2.y, start.z + a * e1.z + b * e2.z});
    };
    const double diagonal = std::sqrt(0.5);
    const double compass[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1},
                                  {diagonal, diagonal}, {-diagonal, diagonal}, {diagonal, -diagonal}, {-diagonal, -diagonal}};
    double a = 0, b = 0, best = start_value;
    for (int it = 0; it < kMaxSearchIterations && step > kSearchStepTolerance; ++it) {
        int best_dir = -1;
        for (int dir = 0; dir < 8; ++dir) {
            const double v = eval_channel(c, channel, at(a + step * compass[dir][0], b + step * compass[dir][1]));
            if (v < best) {
                best = v;
                best_dir = dir;
            }
        }
        if (best_dir < 0) {
            step *= 0.5;
        } else {
            a += step * compass[best_dir][0];
            b += step * compass[best_dir][1];
        }
    }
    return best;
}

bool channel_nonnegative(double min_value, double dc_coefficient) {
    return min_value >= -kShNonnegativeTolerance * std::fabs(dc_coefficient * kY00);
}

bool all_nonnegative(const Rgb& min_value, const ShCoefficients& irradiance) {
    for (size_t ch = 0; ch < 3; ++ch)
        if (!channel_nonnegative(min_value[ch], irradiance.rgb[0][ch])) return false;
    return true;
}

}  // namespace

std::optional<ShWindowKind> parse_sh_window(const std::string& name) {
    for (const auto& e : kWindowNames)
        if (name == e.name) return e.kind;
    return std::nullopt;
}

const char* sh_window_name(ShWindowKind kind) {
    for (const auto& e : kWindowNames)
        if (kind == e.kind) return e.name;
    return "?";
}

std::vector<double> sh_window_factors(ShWindowKind kind, int order, double cutoff) {
    require_order(order);
    if (kind == ShWindowKind::Auto) throw std::invalid_argument("SH window: auto has no fixed factors");
    std::vector<double> w(static_cast<size_t>(order), 1.0);
    if (kind == ShWindowKind::None) return w;
    if (!(std::isfinite(cutoff) && cutoff > 0)) throw std::invalid_argument("SH window: cutoff must be a positive number");
    for (int l = 1; l < order; ++l) {
        const double x = kPi * l / cutoff;
        double& f = w[static_cast<size_t>(l)];
        switch (kind) {
            case ShWindowKind::Hann: f = l < cutoff ? (1 + std::cos(x)) / 2 : 0; break;
            case ShWindowKind::Lanczos: f = l < cutoff ? std::sin(x) / x : 0; break;
            case ShWindowKind::Gauss: f = std::exp(-x * x / 4); break;
            default: break;
        }
    }
    return w;
}

double default_sh_window_cutoff(ShWindowKind kind, int order) {
    require_order(order);
    switch (kind) {
        case ShWindowKind::None: return 0;
        case ShWindowKind::Hann: return order + 2;
        case ShWindowKind::Lanczos:
        case ShWindowKind::Gauss: return order + 1;
        case ShWindowKind::Auto: break;
    }
    throw std::invalid_argument("SH window: auto has no default cutoff");
}

ShCoefficients apply_sh_window(const ShCoefficients& c, const std::vector<double>& band_factors) {
    if (static_cast<int>(band_factors.size()) != c.order)
        throw std::invalid_argument("SH window: " + std::to_string(band_factors.size()) + " band factors for order " +
                                    std::to_string(c.order));
    ShCoefficients out = c;
    for (int k = 0; k < out.count(); ++k)
        for (double& v : out.rgb[static_cast<size_t>(k)]) v *= band_factors[static_cast<size_t>(sh_band(k))];
    return out;
}

Rgb min_sh_irradiance(const ShCoefficients& irradiance) {
    const DirectionGrid& grid = direction_grid();
    const size_t nodes = grid.directions.size();
    const double h = grid_covering_radius();
    const double cos_start_separation = std::cos(2 * h);  // closer starts would find the same minimum

    Rgb result{};
    std::vector<double> value(nodes);
    std::vector<size_t> candidates;
    for (int ch = 0; ch < 3; ++ch) {
        for (size_t n = 0; n < nodes; ++n) {
            const double* y = &grid.basis[n * kMaxShCount];
            double sum = 0;
            for (int k = 0; k < irradiance.count(); ++k) sum += irradiance.rgb[static_cast<size_t>(k)][static_cast<size_t>(ch)] * y[k];
            value[n] = sum;
        }
        const double grid_min = *std::min_element(value.begin(), value.end());

        // The node nearest the global minimiser is at most M h^2 / 2 above it, hence above grid_min.
        const double slack = second_derivative_bound(irradiance, ch) * h * h / 2;
        candidates.clear();
        for (size_t n = 0; n < nodes; ++n)
            if (value[n] <= grid_min + slack) candidates.push_back(n);
        std::stable_sort(candidates.begin(), candidates.end(), [&](size_t p, size_t q) { return value[p] < value[q]; });

        double best = grid_min;
        std::vector<Vec3> starts;
        for (size_t n : candidates) {
            if (static_cast<int>(starts.size()) == kMaxStarts) break;
            const Vec3& d = grid.directions[n];
            const bool near_a_start =
                std::any_of(starts.begin(), starts.end(), [&](const Vec3& s) { return dot(s, d) > cos_start_separation; });
            if (near_a_start) continue;
            starts.push_back(d);
            best = std::min(best, refine_minimum(irradiance, ch, d, value[n], h));
        }
        result[static_cast<size_t>(ch)] = best;
    }
    return result;
}

ShWindowChoice choose_sh_window(ShWindowKind requested, const ShCoefficients& irradiance, double cutoff) {
    require_order(irradiance.order);
    if (!(std::isfinite(cutoff) && cutoff >= 0))
        throw std::invalid_argument("SH window: cutoff must be a positive number, or 0 for the default");

    ShWindowChoice choice;
    choice.min_irradiance_before = min_sh_irradiance(irradiance);
    auto finish = [&](ShWindowKind kind, double w) {
        choice.kind = kind;
        choice.cutoff = kind == ShWindowKind::None ? 0 : w;
        choice.band_factors = sh_window_factors(kind, irradiance.order, choice.cutoff);
        choice.min_irradiance_after = kind == ShWindowKind::None
                                          ? choice.min_irradiance_before
                                          : min_sh_irradiance(apply_sh_window(irradiance, choice.band_factors));
        choice.nonnegative = all_nonnegative(choice.min_irradiance_after, irradiance);
        return choice;
    };

    if (requested != ShWindowKind::Auto)
        return finish(requested, cutoff > 0 ? cutoff : default_sh_window_cutoff(requested, irradiance.order));
    if (all_nonnegative(choice.min_irradiance_before, irradiance)) return finish(ShWindowKind::None, 0);

    // Lanczos windows by u = 1/cutoff: u -> 0 is no window (negative here), u = 1 keeps band 0
    // only, whose irradiance is the constant mean; a negative mean cannot be helped.
    auto nonnegative_at = [&](double u) {
        const double w = 1 / u;
        return all_nonnegative(
            min_sh_irradiance(apply_sh_window(irradiance, sh_window_factors(ShWindowKind::Lanczos, irradiance.order, w))),
            irradiance);
    };
    if (!nonnegative_at(1.0)) return finish(ShWindowKind::Lanczos, 1.0);

    constexpr int kScanSteps = 64;
    constexpr int kBisections = 30;
    double negative_u = 0, nonnegative_u = 1;
    for (int k = 1; k < kScanSteps; ++k) {
        const double u = static_cast<double>(k) / kScanSteps;
        if (nonnegative_at(u)) {
            nonnegative_u = u;
            break;
        }
        negative_u = u;
    }
    for (int i = 0; i < kBisections; ++i) {
        const double mid = (negative_u + nonnegative_u) / 2;
        (nonnegative_at(mid) ? nonnegative_u : negative_u) = mid;
    }
    return finish(ShWindowKind::Lanczos, 1 / nonnegative_u);
}

}  // namespace bake
