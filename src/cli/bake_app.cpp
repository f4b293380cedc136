#include "bake_app.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coefficients_json.h"
#include "environment_loader.h"
#include "errors.h"
#include "gl_context.h"
#include "gpu_projector.h"
#include "image_io.h"
#include "projection.h"
#include "sh_compare.h"
#include "texel_policy.h"

namespace bake {

namespace {

constexpr const char* kTool = "bake-irradiance";

struct Options {
    std::vector<std::string> inputs;
    std::vector<std::string> faces;
    std::vector<std::string> outputs;
    int order = 3;
    int size = 32;
    std::string layout;
    std::string output_layout = "cube";
    std::string device = "auto";
    std::string gl = "auto";
    bool compare = false;
    double tolerance = 1e-5;
    bool no_clobber = false;
    bool clamp_negative = false;
    bool replace_nonfinite = false;
    std::uint64_t max_pixels = kDefaultMaxPixels;
    int threads = 0;
    bool verbose = false;
    bool quiet = false;
};

const char* kFooter = R"(Examples:
  bake-irradiance sky.exr -o sky_irr.exr                 irradiance cube map (6 faces 32x32, vertical strip)
  bake-irradiance sky.hdr -o sky.json --order 5          25 SH coefficients as JSON
  bake-irradiance sky.exr -o irr.exr -o irr.json --output-layout equirect --size 64
  bake-irradiance --faces px.exr nx.exr py.exr ny.exr pz.exr nz.exr -o irr.exr
  bake-irradiance cube_{face}.hdr -o irr.exr             {face} expands to px nx py ny pz nz
  bake-irradiance sky.exr -o irr.json --device gpu --compare --tolerance 1e-5

Outputs: the type follows the extension: .exr (irradiance map, float RGB, OpenEXR envmap attribute
set) or .json (coefficients and their convention). Each is written to a temporary file and renamed.

--compare runs the GPU and the double-precision CPU path and reports every coefficient. Its error
measure is |GPU - CPU| divided by the Euclidean norm of the CPU's coefficient vector of that
channel (R, G or B); the run fails if the largest exceeds --tolerance.

Exit codes: 0 success, 1 internal error, 2 usage error, 3 input unreadable or invalid,
4 output could not be written, 5 GPU path demanded (--device gpu, --compare) but unavailable
or failed, 6 --compare difference beyond tolerance.
Conventions (SH basis, axes, layouts): docs/CONVENTION.md; also stated inside every JSON.)";

bool ends_with_ci(const std::string& s, const std::string& suffix) {
    if (s.size() < suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
    return true;
}

void print_line(const std::string& line) { std::cerr << kTool << ": " << line << "\n"; }

// Loads the environment named by the options and applies the texel policy.
Environment load_input(const Options& o, BakeRecord& record) {
    LoadOptions lo;
    lo.max_pixels = o.max_pixels;
    if (!o.layout.empty()) lo.layout = parse_layout(o.layout);

    Environment env;
    std::string label;
    if (!o.faces.empty()) {
        std::array<std::string, 6> paths;
        std::copy(o.faces.begin(), o.faces.end(), paths.begin());
        env = load_environment_faces(paths, lo);
        record.inputs.assign(o.faces.begin(), o.faces.end());
        label = o.faces[0];
    } else if (auto pattern = expand_face_pattern(o.inputs[0])) {
        env = load_environment_faces(*pattern, lo);
        record.inputs.assign(pattern->begin(), pattern->end());
        label = o.inputs[0];
    } else {
        env = load_environment(o.inputs[0], lo);
        record.inputs = {o.inputs[0]};
        label = o.inputs[0];
    }
    record.layout = env.layout;
    record.source_width = env.width();
    record.source_height = env.height();

    const TexelStats stats = scan_texels(env);
    record.nonfinite_policy = o.replace_nonfinite ? "zero" : "reject";
    record.nonfinite_count = stats.nonfinite;
    if (stats.nonfinite > 0) {
        if (!o.replace_nonfinite)
            throw InputError(label + ": " + std::to_string(stats.nonfinite) + " NaN/Inf values (first at " +
                             stats.first_nonfinite + "); --replace-nonfinite sets them to 0");
        zero_nonfinite(env);
        if (!o.quiet)
            print_line("warning: " + label + ": replaced " + std::to_string(stats.nonfinite) +
                       " NaN/Inf values by 0 (first at " + stats.first_nonfinite + ")");
    }
    record.negative_policy = o.clamp_negative ? "clamp" : "keep";
    record.negative_count = stats.negative;
    record.negative_min = stats.min_value;
    if (stats.negative > 0) {
        if (o.clamp_negative) clamp_negative(env);
        if (!o.quiet) {
            char min[32];
            std::snprintf(min, sizeof min, "%g", static_cast<double>(stats.min_value));
            print_line("warning: " + label + ": " + std::to_string(stats.negative) + " negative values (min " + min +
                       (o.clamp_negative ? "), clamped to 0" : "), kept; --clamp-negative sets them to 0"));
        }
    }
    return env;
}

// The GPU, when the options want it and a context exists; a notice or an error otherwise.
struct GpuPath {
    std::unique_ptr<GlContext> context;
    std::unique_ptr<GpuProjector> projector;
};

std::optional<GpuPath> open_gpu(const Options& o) {
    if (o.device == "cpu" && !o.compare) return std::nullopt;
    const GlBackend backend = o.gl == "egl" ? GlBackend::Egl : o.gl == "glfw" ? GlBackend::Glfw : GlBackend::Auto;
    try {
        GpuPath gpu;
        gpu.context = GlContext::create(backend, o.verbose);
        gpu.projector = std::make_unique<GpuProjector>(*gpu.context);
        if (o.verbose) {
            const GlContextInfo& info = gpu.context->info();
            print_line("OpenGL context: " + info.backend + ", renderer '" + info.renderer + "', version '" +
                       info.version + "'");
        }
        return gpu;
    } catch (const GpuError& e) {
        if (o.device == "gpu" || o.compare) throw;
        if (!o.quiet) print_line(std::string("notice: no usable OpenGL 4.3 context (") + e.what() + "); using the CPU path");
        return std::nullopt;
    }
}

void print_comparison(const ShComparison& cmp, const Projection& gpu, const Projection& cpu) {
    static const char* const channel = "RGB";
    std::printf("%-4s %-3s %-3s %-2s %24s %24s %12s %12s\n", "k", "l", "m", "ch", "gpu", "cpu", "abs_diff",
                "rel_diff");
    for (const CoefficientDifference& d : cmp.rows)
        std::printf("%-4d %-3d %-3d %-2c %24.17g %24.17g %12.4e %12.4e\n", d.k, sh_band(d.k), sh_m(d.k),
                    channel[d.channel], d.value, d.reference, d.abs_diff, d.rel_diff);
    const double four_pi = 4.0 * 3.14159265358979323846;
    std::printf("solid angle sum: gpu %.17g (4pi%+.3e), cpu %.17g (4pi%+.3e)\n", gpu.solid_angle_sum,
                gpu.solid_angle_sum - four_pi, cpu.solid_angle_sum, cpu.solid_angle_sum - four_pi);
    std::printf("max abs diff %.4e, max rel diff %.4e (relative to each channel's coefficient-vector norm)\n",
                cmp.max_abs_diff, cmp.max_rel_diff);
}

// Irradiance map for the EXR output: equirect (4N x 2N) or cube (vertical strip, N x 6N).
Image render_map(const Options& o, const ShCoefficients& e, GpuProjector* gpu) {
    if (o.output_layout == "equirect")
        return gpu ? gpu->render_irradiance_equirect(e, 4 * o.size, 2 * o.size)
                   : render_irradiance_equirect(e, 4 * o.size, 2 * o.size);
    const CubeMap cube = gpu ? gpu->render_irradiance_cube(e, o.size) : render_irradiance_cube(e, o.size);
    return assemble_cube(cube, Layout::VStrip);
}

int run(const Options& o) {
    // Checked before any work, so a refused run costs nothing and writes nothing.
    if (o.no_clobber)
        for (const std::string& out : o.outputs)
            if (std::ifstream(out).good()) throw OutputError(out + ": exists (--no-clobber)");

    BakeRecord record;
    Environment env = load_input(o, record);

    std::optional<GpuPath> gpu = open_gpu(o);
    const bool use_gpu = gpu && o.device != "cpu";

    Projection result;
    if (use_gpu) {
        result = gpu->projector->project(env, o.order);
        record.computed_by = "gpu";
        record.renderer = gpu->context->info().renderer;
        record.gl_version = gpu->context->info().version;
    } else {
        result = project_sh_cpu(env, o.order, o.threads);
        record.computed_by = "cpu";
    }
    record.radiance = result.radiance;
    record.irradiance = irradiance_from_radiance(result.radiance);
    record.solid_angle_sum = result.solid_angle_sum;

    if (o.compare) {
        const Projection gpu_result = use_gpu ? result : gpu->projector->project(env, o.order);
        const Projection cpu_result = use_gpu ? project_sh_cpu(env, o.order, o.threads) : result;
        const ShComparison cmp = compare_sh(gpu_result.radiance, cpu_result.radiance);
        print_comparison(cmp, gpu_result, cpu_result);
        const ShCoefficients e_cpu = irradiance_from_radiance(cpu_result.radiance);
        const ImageDifference map_diff =
            compare_images(render_map(o, irradiance_from_radiance(gpu_result.radiance), gpu->projector.get()),
                           render_map(o, e_cpu, nullptr));
        std::printf("irradiance map (%s, size %d): max abs diff %.4e, max |E| %.4e, relative %.4e\n",
                    o.output_layout.c_str(), o.size, map_diff.max_abs_diff, map_diff.max_abs_reference,
                    map_diff.max_abs_reference > 0 ? map_diff.max_abs_diff / map_diff.max_abs_reference : 0.0);
        // NaN must fail too, hence the negated comparison.
        if (!(cmp.max_rel_diff <= o.tolerance)) {
            char line[160];
            std::snprintf(line, sizeof line, "compare: max relative difference %.4e exceeds tolerance %.4e",
                          cmp.max_rel_diff, o.tolerance);
            print_line(line);
            return kExitCompareMismatch;
        }
    }

    for (const std::string& out : o.outputs) {
        if (ends_with_ci(out, ".json")) {
            write_coefficients_json(out, record);
        } else {
            const Image map = render_map(o, record.irradiance, use_gpu ? gpu->projector.get() : nullptr);
            write_exr(out, map, o.output_layout == "equirect" ? EnvmapHint::LatLong : EnvmapHint::Cube);
        }
    }
    if (o.outputs.empty() && !o.compare && !o.quiet) print_line("note: no -o given; nothing written");
    return kExitOk;
}

}  // namespace

int run_bake_app(int argc, char** argv) {
    Options o;
    CLI::App app{"Bakes image-based lighting: projects an HDR environment map onto spherical harmonics "
                 "(order 3 or 5) on the GPU (OpenGL 4.3 compute) or CPU, and writes the irradiance map "
                 "and/or the coefficients.",
                 kTool};
    app.footer(kFooter);
    app.get_formatter()->column_width(34);
    app.add_option("input", o.inputs, "Environment map: .hdr or .exr (equirect 2:1, cross 4:3/3:4, strip 6:1/1:6, "
                                      "or a pattern with {face})");
    app.add_option("--faces", o.faces, "Six face files in the order +X -X +Y -Y +Z -Z")->expected(6);
    app.add_option("-o,--output", o.outputs, "Output file: .exr irradiance map or .json coefficients (repeatable)");
    app.add_option("--order", o.order, "SH order: 3 (9 coefficients, bands l<=2) or 5 (25, l<=4)")
        ->check(CLI::IsMember({3, 5}))
        ->capture_default_str();
    app.add_option("--size", o.size, "Output face size N (equirect output is 4N x 2N)")
        ->check(CLI::Range(1, 8192))
        ->capture_default_str();
    app.add_option("--layout", o.layout, "Force the input layout instead of detecting it")
        ->check(CLI::IsMember({"equirect", "hcross", "vcross", "hstrip", "vstrip"}));
    app.add_option("--output-layout", o.output_layout, "Irradiance map layout")
        ->check(CLI::IsMember({"cube", "equirect"}))
        ->capture_default_str();
    app.add_option("--device", o.device, "auto: GPU if an OpenGL 4.3 context exists, else CPU with a notice")
        ->check(CLI::IsMember({"auto", "gpu", "cpu"}))
        ->capture_default_str();
    app.add_option("--gl", o.gl, "OpenGL context: EGL (headless), GLFW (hidden window), or auto")
        ->check(CLI::IsMember({"auto", "egl", "glfw"}))
        ->capture_default_str();
    app.add_flag("--compare", o.compare, "Run GPU and CPU paths and report their differences");
    app.add_option("--tolerance", o.tolerance, "Largest relative difference --compare accepts")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_flag("--no-clobber", o.no_clobber, "Refuse to overwrite an existing output (default: overwrite)");
    app.add_flag("--clamp-negative", o.clamp_negative, "Set negative texel values to 0 before projecting");
    app.add_flag("--replace-nonfinite", o.replace_nonfinite, "Set NaN/Inf texel values to 0 instead of failing");
    app.add_option("--max-pixels", o.max_pixels, "Refuse images with more pixels than this (checked from the header)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--threads", o.threads, "CPU path threads (0: all cores)")->check(CLI::NonNegativeNumber);
    app.add_flag("-v,--verbose", o.verbose, "Print the OpenGL context and driver messages");
    app.add_flag("-q,--quiet", o.quiet, "Print only errors");

    try {
        app.parse(argc, argv);
        if (o.inputs.empty() == o.faces.empty())
            throw CLI::ValidationError("input", "give one input file, or --faces with six files");
        if (o.inputs.size() > 1) throw CLI::ValidationError("input", "one input file at a time");
        if (o.outputs.empty() && !o.compare)
            throw CLI::ValidationError("--output", "nothing to do: give -o out.exr and/or -o out.json");
        for (const std::string& out : o.outputs)
            if (!ends_with_ci(out, ".exr") && !ends_with_ci(out, ".json"))
                throw CLI::ValidationError("--output", "'" + out + "' must end in .exr or .json");
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << kTool << ": " << e.what() << " (see --help)\n";
        return kExitUsage;
    }

    try {
        return run(o);
    } catch (const InputError& e) {
        print_line(e.what());
        return kExitInput;
    } catch (const OutputError& e) {
        print_line(e.what());
        return kExitOutput;
    } catch (const GpuError& e) {
        print_line(std::string("GPU path failed: ") + e.what());
        return kExitGpuUnavailable;
    } catch (const std::bad_alloc&) {
        print_line("out of memory");
        return kExitFailure;
    } catch (const std::exception& e) {
        print_line(std::string("internal error: ") + e.what());
        return kExitFailure;
    }
}

}  // namespace bake
