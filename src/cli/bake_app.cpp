#include "bake_app.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "atomic_file.h"
#include "coefficients_json.h"
#include "dfg.h"
#include "environment_loader.h"
#include "errors.h"
#include "ggx.h"
#include "gl_context.h"
#include "golden_check.h"
#include "gpu_projector.h"
#include "image_io.h"
#include "irradiance_analysis.h"
#include "gpu_exact_irradiance.h"
#include "gpu_irradiance_cells.h"
#include "gpu_specular.h"
#include "output_names.h"
#include "preview_image.h"
#include "progress.h"
#include "projection.h"
#include "run_report.h"
#include "shader_snippet.h"
#include "sh_compare.h"
#include "specular_io.h"
#include "specular_stage.h"
#include "texel_policy.h"

#ifndef BAKE_VERSION
#define BAKE_VERSION "unknown"
#endif

namespace bake {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kTool = "bake-irradiance";

// Inputs of at least this many bytes get a progress line on a terminal even when alone.
constexpr std::uintmax_t kLargeInputBytes = 32u << 20;

struct Options {
    std::vector<std::string> inputs;
    std::vector<std::string> faces;
    std::vector<std::string> outputs;
    std::string out_dir;
    std::vector<std::string> names;
    int order = 3;
    int size = 32;
    std::string irradiance = "sh";
    std::string window = "none";
    double window_cutoff = 0;
    double warn_error = 0.05;
    std::string layout;
    std::string output_layout = "cube";
    std::string device = "auto";
    std::string gl = "auto";
    bool compare = false;
    double tolerance = 1e-5;
    std::optional<double> abs_tolerance;
    bool tolerance_given = false;
    std::string golden;
    std::string report;
    std::string preview;
    int preview_width = 512;
    double preview_exposure = 0;
    std::vector<std::pair<std::string, std::string>> emits;
    std::string specular;
    int specular_size = 256;
    int specular_samples = 1024;
    std::string dfg;
    int dfg_size = 128;
    int jobs = 2;  // 20 x 4096x2048 .hdr on the GPU machine: 27 maps/s with 0, 50 with 2, 58 with 4
    bool fail_fast = false;
    bool timings = false;
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
  bake-irradiance sky.exr --golden golden/sky.json       CI check against a stored result (exit 7 if off)
  bake-irradiance maps/*.exr --out-dir out --name '{stem}_irr.exr' --name '{stem}.json' --jobs 2 --report report.json
  bake-irradiance sky.exr -o irr.json --preview sky.png --emit glsl sky_irr.glsl
  bake-irradiance sky.exr -o irr.exr --specular sky_spec.exr --dfg dfg.png    both halves of IBL
  bake-irradiance --dfg dfg.exr --dfg-size 64                                  the DFG table alone

Outputs: the type follows the extension: .exr (irradiance map, float RGB, OpenEXR envmap attribute
set) or .json (coefficients and their convention). Each is written to a temporary file and renamed.

Specular: --specular FILE.exr writes the environment prefiltered with GGX (alpha = roughness^2) as a
cube map with a full mip chain, base --specular-size (a power of two), level i for perceptual
roughness i/(levels-1), N = V = R: one tiled mip-mapped EXR (envmap=cube, each level a vertical
strip like the irradiance cube; two extra 1x3 and 1x1 levels close OpenEXR's chain), or one EXR a
level when the name holds {level}. --dfg FILE.exr|.png writes the split-sum table: u = N.V,
v = roughness (row 0 first), R = scale and G = bias of F0, B = their sum (energy compensation).

Batch: several inputs (or --out-dir/--name) bake each input in turn with one OpenGL context.
--name patterns (default '{stem}_irr.exr') name each input's outputs inside --out-dir (default .):
{stem} file name without folder and extension, {name} file name, {index} position from 1.
--golden, --preview and --emit paths may use the same placeholders, and must with several inputs.
A failing input does not stop the others (unless --fail-fast); stdout gets one line per input and
a total; the exit code is that of the first input that failed (in command-line order), else 0.
--jobs N decodes up to N next inputs on worker threads while the current one is baked (up to N+1
decoded images in memory; default 2, 0 decodes each input when its turn comes).

--compare runs the GPU and the double-precision CPU path and reports every coefficient. Its error
measure is |GPU - CPU| divided by the Euclidean norm of the CPU's coefficient vector of that
channel (R, G or B); the run fails if the largest exceeds --tolerance.
--golden compares radiance and irradiance coefficients with a coefficients JSON written by this
tool, with the same relative measure (norm of the golden's channel vector) and --tolerance
(default 1e-5); --abs-tolerance adds an absolute limit (given alone, it replaces the relative
one). Outputs are still written, so a changed result can be inspected or become the new golden.

Exit codes: 0 success, 1 internal error, 2 usage error, 3 input (or golden file) unreadable or
invalid, 4 output could not be written, 5 GPU path demanded (--device gpu, --compare) but
unavailable or failed, 6 --compare difference beyond tolerance, 7 --golden difference beyond
tolerance. Batch: the code of the first input that failed.
Conventions (SH basis, axes, layouts): docs/CONVENTION.md; also stated inside every JSON.)";

// NaN passes CLI11's PositiveNumber (NaN <= 0 is false) and would make every comparison fail.
CLI::Validator finite_number() {
    return CLI::Validator(
        [](std::string& text) {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            return (end && *end == '\0' && std::isfinite(v)) ? std::string() : "must be a finite number";
        },
        "FINITE");
}

// A whole number of at most 19 digits: plain digits, no sign, exponent or overflow (which CLI11 would
// otherwise saturate to "no limit").
CLI::Validator pixel_count() {
    return CLI::Validator(
        [](std::string& text) {
            const bool digits = !text.empty() && text.size() <= 19 &&
                                text.find_first_not_of("0123456789") == std::string::npos;
            if (!digits || std::stoull(text) == 0) return std::string("must be a whole number from 1 to 9999999999999999999");
            return std::string();
        },
        "PIXELS");
}

bool is_finite(const Projection& p) {
    for (const Rgb& c : p.radiance.rgb)
        for (double v : c)
            if (!std::isfinite(v)) return false;
    return std::isfinite(p.solid_angle_sum);
}

bool ends_with_ci(const std::string& s, const std::string& suffix) {
    if (s.size() < suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
    return true;
}

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string fmt_ms(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f ms", ms);
    return buf;
}

// One input and everything it produces.
struct Job {
    int index = 1;
    std::string label;                // the input as given (first face file for --faces)
    std::vector<std::string> outputs;  // .exr / .json
    std::string golden, preview;
    std::string specular;  // may hold {level}
    std::vector<std::pair<ShaderLanguage, std::string>> emits;
};

// An input decoded and checked, ready for projection (made on a worker thread with --jobs).
struct Loaded {
    Environment env;
    BakeRecord record;
    std::vector<std::string> warnings;
    double load_ms = 0;
    // The SH error report's cells (and the exact map's): built here, after the texel policy, so
    // that the first input's come while the GL context is made and a batch's with --jobs ahead;
    // none when the GPU path will sum a lat-long input's cells from the texels it uploads.
    std::optional<AnalysisCells> cells;
};

// A check that failed (--compare, --golden): its exit code and error line.
struct Mismatch {
    int code;
    std::string line;
};

// The GPU, when the options want it and a context exists.
struct GpuPath {
    std::unique_ptr<GlContext> context;
    std::unique_ptr<GpuProjector> projector;
    std::unique_ptr<GpuExactIrradiance> exact;
    std::unique_ptr<GpuIrradianceCells> cells;
    std::unique_ptr<GpuSpecularPrefilter> specular;
};

// Coefficients are always projected at order 5: the SH error report measures orders 3 and 5
// whatever was asked, and lower bands do not depend on the order projected (the CPU path's
// order-3 sums are the same bits either way).
constexpr int kProjectedOrder = 5;

Projection truncate_order(const Projection& p, int order) {
    Projection out = p;
    out.radiance = truncate_order(p.radiance, order);
    return out;
}

class App {
public:
    explicit App(const Options& o) : o_(o), progress_(false) {}
    int run();

private:
    void print_line(const std::string& line) {
        progress_.clear();
        std::cerr << kTool << ": " << line << "\n";
    }
    void print_out(const std::string& line) {
        progress_.clear();
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    }

    std::vector<Job> plan_jobs() const;
    Loaded load(const Job& job, bool cells_on_gpu) const;
    AnalysisCells analysis_cells(const Job& job, const Environment& env, bool& use_gpu, GpuProjector*& projector);
    void open_gpu();
    void prepare_gpu(const Job& first);
    void fall_back_to_cpu(const Job& job, const GpuError& e);
    int bake(const Job& job, const std::function<Loaded()>& get_loaded, FileReport& rep);
    void run_job(const Job& job, const std::function<Loaded()>& get_loaded, FileReport& rep);
    Image render_map(const ShCoefficients& e, GpuProjector* gpu) const;
    void print_comparison(const ShComparison& cmp, const Projection& gpu, const Projection& cpu);
    void print_summary(const FileReport& rep);

    const Options& o_;
    Progress progress_;
    bool batch_ = false;
    int job_count_ = 0;
    std::optional<GpuPath> gpu_;
    GoldenTolerance golden_tol_;
};

std::vector<Job> App::plan_jobs() const {
    std::vector<std::string> inputs = o_.inputs;
    if (!o_.faces.empty()) inputs = {o_.faces[0]};
    const bool several = inputs.size() > 1;
    auto expand = [&](const std::string& pattern, const std::string& input, int index, const char* option,
                      bool keep_level = false) {
        std::string expanded;
        try {
            expanded = expand_output_pattern(pattern, input, index, keep_level);
        } catch (const std::invalid_argument& e) {
            throw CLI::ValidationError(option, e.what());
        }
        if (several && !has_output_placeholder(pattern))
            throw CLI::ValidationError(option, "'" + pattern +
                                                   "' would name the same file for every input: use {stem}, {name} "
                                                   "or {index}");
        return expanded;
    };
    std::vector<Job> jobs;
    for (size_t i = 0; i < inputs.size(); ++i) {
        Job job;
        job.index = static_cast<int>(i) + 1;
        job.label = inputs[i];
        if (batch_) {
            // --out-dir alone writes the default name; neither: only --golden/--preview/--emit/--report.
            std::vector<std::string> names = o_.names;
            if (names.empty() && !o_.out_dir.empty()) names = {"{stem}_irr.exr"};
            const std::string dir = o_.out_dir.empty() ? "" : o_.out_dir;
            for (const std::string& n : names) {
                const std::string name = expand(n, job.label, job.index, "--name");
                job.outputs.push_back(dir.empty() ? name : (fs::path(dir) / name).string());
            }
        } else {
            job.outputs = o_.outputs;
        }
        if (!o_.golden.empty()) job.golden = expand(o_.golden, job.label, job.index, "--golden");
        if (!o_.preview.empty()) job.preview = expand(o_.preview, job.label, job.index, "--preview");
        if (!o_.specular.empty()) job.specular = expand(o_.specular, job.label, job.index, "--specular", true);
        for (const auto& [lang, file] : o_.emits)
            job.emits.emplace_back(*parse_shader_language(lang), expand(file, job.label, job.index, "--emit"));
        jobs.push_back(job);
    }
    // Every file the run reads (inputs, their faces, goldens) and writes, compared by what they
    // resolve to (links, "./", ".."): an output written twice loses a result, and an output
    // that is also read would feed a later input (or the next run's golden check) our own output.
    auto key = [](const std::string& path) {
        std::error_code ec;
        const fs::path absolute = fs::absolute(path, ec).lexically_normal();
        const fs::path canonical = fs::weakly_canonical(absolute, ec);
        return (ec ? absolute : canonical).string();
    };
    std::map<std::string, std::string> read;  // key -> as given
    auto add_read = [&](const std::string& path) { read.emplace(key(path), path); };
    for (const std::string& f : o_.faces) add_read(f);
    for (const std::string& in : o_.inputs) {
        if (const auto faces = expand_face_pattern(in)) {
            for (const std::string& f : *faces) add_read(f);
        } else {
            add_read(in);
        }
    }
    for (const Job& job : jobs)
        if (!job.golden.empty()) add_read(job.golden);
    std::map<std::string, std::string> writer;  // key -> the input whose output it is
    auto add_written = [&](const std::string& w, const std::string& by, const char* option) {
        const std::string k = key(w);
        if (const auto r = read.find(k); r != read.end())
            throw CLI::ValidationError(option, "'" + w + "' is also read by this run ('" + r->second +
                                                   "'): it would be overwritten");
        const auto [it, fresh] = writer.emplace(k, by);
        if (!fresh)
            throw CLI::ValidationError(option, "'" + w + "' would be written twice (for '" + it->second + "' and '" +
                                                   by + "')");
    };
    for (const Job& job : jobs) {
        for (const std::string& w : job.outputs) add_written(w, job.label, "output");
        if (!job.preview.empty()) add_written(job.preview, job.label, "--preview");
        if (!job.specular.empty()) {
            const int levels = specular_level_count(o_.specular_size);
            for (int level = 0; level < (has_level_placeholder(job.specular) ? levels : 1); ++level)
                add_written(expand_level_placeholder(job.specular, level), job.label, "--specular");
        }
        for (const auto& e : job.emits) add_written(e.second, job.label, "--emit");
    }
    if (!o_.report.empty()) add_written(o_.report, "--report", "--report");
    if (!o_.dfg.empty()) add_written(o_.dfg, "--dfg", "--dfg");
    return jobs;
}

// Loads the environment named by the job and applies the texel policy. Prints nothing: warnings
// are returned (this runs on worker threads with --jobs).
Loaded App::load(const Job& job, bool cells_on_gpu) const {
    const Clock::time_point t0 = Clock::now();
    LoadOptions lo;
    lo.max_pixels = o_.max_pixels;
    if (!o_.layout.empty()) lo.layout = parse_layout(o_.layout);
    lo.packed = true;  // RGBE / half texels stay packed: both paths read them so (1/3, 1/2 the memory)

    Loaded l;
    Environment& env = l.env;
    BakeRecord& record = l.record;
    const std::string& label = job.label;
    if (!o_.faces.empty()) {
        std::array<std::string, 6> paths;
        std::copy(o_.faces.begin(), o_.faces.end(), paths.begin());
        env = load_environment_faces(paths, lo);
        record.inputs.assign(o_.faces.begin(), o_.faces.end());
    } else if (auto pattern = expand_face_pattern(label)) {
        env = load_environment_faces(*pattern, lo);
        record.inputs.assign(pattern->begin(), pattern->end());
    } else {
        env = load_environment(label, lo);
        record.inputs = {label};
    }
    record.layout = env.layout;
    record.source_width = env.width();
    record.source_height = env.height();

    const TexelStats stats = scan_texels(env);
    record.nonfinite_policy = o_.replace_nonfinite ? "zero" : "reject";
    record.nonfinite_count = stats.nonfinite;
    if (stats.nonfinite > 0) {
        if (!o_.replace_nonfinite)
            throw InputError(label + ": " + std::to_string(stats.nonfinite) + " NaN/Inf values (first at " +
                             stats.first_nonfinite + "); --replace-nonfinite sets them to 0");
        zero_nonfinite(env);
        l.warnings.push_back("warning: " + label + ": replaced " + std::to_string(stats.nonfinite) +
                             " NaN/Inf values by 0 (first at " + stats.first_nonfinite + ")");
    }
    record.negative_policy = o_.clamp_negative ? "clamp" : "keep";
    record.negative_count = stats.negative;
    record.negative_min = stats.min_value;
    if (stats.negative > 0) {
        if (o_.clamp_negative) clamp_negative(env);
        char min[32];
        std::snprintf(min, sizeof min, "%g", static_cast<double>(stats.min_value));
        l.warnings.push_back("warning: " + label + ": " + std::to_string(stats.negative) + " negative values (min " +
                             min + (o_.clamp_negative ? "), clamped to 0" : "), kept; --clamp-negative sets them to 0"));
    }
    l.load_ms = ms_since(t0);
    if (!cells_on_gpu || env.is_cube()) l.cells = build_analysis_cells(env, o_.irradiance == "exact", o_.threads);
    return l;
}

void App::open_gpu() {
    if (o_.device == "cpu" && !o_.compare) return;
    const GlBackend backend = o_.gl == "egl" ? GlBackend::Egl : o_.gl == "glfw" ? GlBackend::Glfw : GlBackend::Auto;
    try {
        GpuPath gpu;
        gpu.context = GlContext::create(backend, o_.verbose);
        gpu.projector = std::make_unique<GpuProjector>(*gpu.context);
        gpu.exact = std::make_unique<GpuExactIrradiance>(gpu.projector->programs());
        gpu.cells = std::make_unique<GpuIrradianceCells>(*gpu.projector);
        gpu.specular = std::make_unique<GpuSpecularPrefilter>(gpu.projector->programs());
        if (o_.verbose) {
            const GlContextInfo& info = gpu.context->info();
            print_line("OpenGL context: " + info.backend + ", renderer '" + info.renderer + "', version '" +
                       info.version + "'");
        }
        gpu_ = std::move(gpu);
    } catch (const GpuError& e) {
        if (o_.device == "gpu" || o_.compare) throw;
        if (!o_.quiet) print_line(std::string("notice: no usable OpenGL 4.3 context (") + e.what() + "); using the CPU path");
    }
}

// Compiles the programs the first input will most likely need while it is being decoded: its
// layout and encoding are guessed from its name (.hdr: RGBE lat-long; .exr: half lat-long;
// six faces or a forced cube layout: a cube), its size from its header. Best effort: a wrong guess only compiles one
// program more, and a failure here surfaces again, with its own message, where it matters.
void App::prepare_gpu(const Job& first) {
    if (!gpu_ || o_.device == "cpu") return;
    GpuProjector::InputShape shape;
    const bool faces = !o_.faces.empty() || expand_face_pattern(first.label).has_value();
    shape.cube = faces || (!o_.layout.empty() && o_.layout != "equirect");
    if (!shape.cube) {
        shape.encoding = ends_with_ci(first.label, ".hdr") ? TexelEncoding::Rgbe8 : TexelEncoding::Half;
        // A 2:1 header: the upload buffers can be made while the texels decode.
        if (const auto size = read_image_size(first.label); size && size->first == 2 * size->second)
            shape.texel_count = static_cast<std::size_t>(size->first) * static_cast<std::size_t>(size->second);
    }
    std::optional<bool> cube_map;
    for (const std::string& out : first.outputs)
        if (!ends_with_ci(out, ".json")) cube_map = o_.output_layout != "equirect";
    try {
        gpu_->projector->prepare(kProjectedOrder, shape, o_.irradiance == "exact" ? std::nullopt : cube_map, o_.order);
        if (o_.irradiance == "exact") gpu_->exact->prepare();
        else if (!shape.cube) gpu_->cells->prepare(!shape.encoding ? 0u : *shape.encoding == TexelEncoding::Rgbe8 ? 1u : 2u);
    } catch (const GpuError&) {
    }
}

// --device auto: any GPU failure falls back to the CPU path (the reference) with one notice, and
// the GPU is not tried again in this run. --device gpu and --compare: the failure is the error.
void App::fall_back_to_cpu(const Job& job, const GpuError& e) {
    if (o_.device != "auto" || o_.compare) throw e;
    if (!o_.quiet)
        print_line(std::string("notice: ") + (batch_ ? job.label + ": " : "") + "GPU path failed (" + e.what() +
                   "); using the CPU path");
    gpu_.reset();
}

void App::print_comparison(const ShComparison& cmp, const Projection& gpu, const Projection& cpu) {
    static const char* const channel = "RGB";
    progress_.clear();
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
Image App::render_map(const ShCoefficients& e, GpuProjector* gpu) const {
    if (o_.output_layout == "equirect")
        return gpu ? gpu->render_irradiance_equirect(e, 4 * o_.size, 2 * o_.size)
                   : render_irradiance_equirect(e, 4 * o_.size, 2 * o_.size);
    const CubeMap cube = gpu ? gpu->render_irradiance_cube(e, o_.size) : render_irradiance_cube(e, o_.size);
    return assemble_cube(cube, Layout::VStrip);
}


// The analysis cells of an input whose decode left them to the GPU: summed on the GPU from the
// texels the projection uploaded, else (a CPU bake, or a GPU failure: the fallback) on the CPU.
AnalysisCells App::analysis_cells(const Job& job, const Environment& env, bool& use_gpu, GpuProjector*& projector) {
    if (use_gpu) {
        try {
            const Clock::time_point t0 = Clock::now();
            if (std::optional<IrradianceCells> report = gpu_->cells->build(env, sh_error_cell_block(env))) {
                AnalysisCells cells;
                cells.report = std::move(*report);
                cells.report_exact = exact_irradiance_at(cells.report, cube_map_directions(kShErrorGridSize), o_.threads);
                cells.ms = ms_since(t0);
                return cells;
            }
        } catch (const GpuError& e) {
            fall_back_to_cpu(job, e);
            use_gpu = false;
            projector = nullptr;
        }
    }
    return build_analysis_cells(env, o_.irradiance == "exact", o_.threads);
}

// The stages of one input; returns its exit code or throws. Fills `rep` as it goes.
int App::bake(const Job& job, const std::function<Loaded()>& get_loaded, FileReport& rep) {
    // A bad golden fails before any work.
    std::optional<CoefficientsDocument> golden;
    if (!job.golden.empty()) {
        try {
            golden = read_coefficients_json(job.golden);
        } catch (const InputError& e) {
            throw InputError(std::string(e.what()) + " (--golden)");
        }
    }

    progress_.stage(job.index, job_count_, job.label, "load");
    Loaded loaded = get_loaded();
    rep.timings.load = loaded.load_ms;
    rep.files = loaded.record.inputs;
    rep.layout = layout_name(loaded.env.layout);
    rep.width = loaded.env.width();
    rep.height = loaded.env.height();
    rep.warnings = loaded.warnings;
    if (!o_.quiet)
        for (const std::string& w : loaded.warnings) print_line(w);
    Environment& env = loaded.env;
    BakeRecord& record = loaded.record;

    bool use_gpu = gpu_ && o_.device != "cpu";
    GpuProjector* projector = use_gpu ? gpu_->projector.get() : nullptr;
    const bool exact_map = o_.irradiance == "exact";
    Projection result;
    progress_.stage(job.index, job_count_, job.label, use_gpu ? "upload + project (gpu)" : "project (cpu)");
    if (use_gpu) {
        try {
            result = projector->project(env, kProjectedOrder);
            // Float sums overflow where double ones do not (texels near FLT_MAX): never write that.
            if (!is_finite(result))
                throw GpuError("the float sums overflowed (texel values too large for float); --device cpu "
                               "computes them in double");
            const GpuTimings& t = projector->last_timings();
            rep.timings.upload = t.upload_ms;
            rep.timings.project = t.project_ms;
            rep.timings.reduce = t.reduce_ms;
            record.computed_by = "gpu";
            record.renderer = gpu_->context->info().renderer;
            record.gl_version = gpu_->context->info().version;
            rep.renderer = record.renderer;
        } catch (const GpuError& e) {
            fall_back_to_cpu(job, e);
            use_gpu = false;
            projector = nullptr;
        }
    }
    rep.path = use_gpu ? "gpu" : "cpu";
    if (!use_gpu) {
        const Clock::time_point t0 = Clock::now();
        result = project_sh_cpu(env, kProjectedOrder, o_.threads);
        rep.timings.project = ms_since(t0);
        record.computed_by = "cpu";
    }
    const ShCoefficients irradiance5 = irradiance_from_radiance(result.radiance);
    result = truncate_order(result, o_.order);
    record.radiance = result.radiance;
    record.irradiance = irradiance_from_radiance(result.radiance);
    record.solid_angle_sum = result.solid_angle_sum;

    // The SH error report, the window and the exact map's cells.
    progress_.stage(job.index, job_count_, job.label, "sh error");
    const AnalysisCells cells = loaded.cells ? std::move(*loaded.cells) : analysis_cells(job, env, use_gpu, projector);
    const ShWindowKind window_kind = *parse_sh_window(o_.window);
    const IrradianceAnalysis analysis = analyse_irradiance(cells, irradiance5, o_.order, window_kind, o_.window_cutoff);
    rep.timings.sh_error = cells.ms;
    record.radiance = apply_sh_window(record.radiance, analysis.window.band_factors);
    record.irradiance = apply_sh_window(record.irradiance, analysis.window.band_factors);
    record.window = window_json(analysis.window);
    record.sh_error = to_json(analysis.sh_error);
    record.irradiance_map = exact_map ? nlohmann::json{{"method", "exact"},
                                                      {"cells", cells.exact->describe()},
                                                      {"cell_diameter", cells.exact->max_diameter}}
                                      : nlohmann::json{{"method", "sh"}};
    rep.window = record.window;
    rep.sh_error = record.sh_error;
    std::vector<std::string> warnings;
    if (window_kind == ShWindowKind::Auto && !analysis.window.nonnegative)
        warnings.push_back("no window makes the irradiance non-negative: the mean radiance is negative in some channel");
    else if (window_kind != ShWindowKind::None && !analysis.window.nonnegative)
        warnings.push_back("the irradiance stays negative in some directions with the " + o_.window +
                           " window; --window auto finds the mildest one that is not");
    if (const std::string line = sh_error_warning(analysis.sh_error, o_.order, o_.warn_error); !line.empty())
        warnings.push_back(line);
    for (const std::string& w : warnings) {
        rep.warnings.push_back("warning: " + job.label + ": " + w);
        if (!o_.quiet) print_line(rep.warnings.back());
    }

    // --compare's GPU exact map, written as the output's map (--compare runs on the GPU path only).
    std::optional<Image> compared_exact_map;
    double compared_exact_ms = 0;
    if (o_.compare) {
        progress_.stage(job.index, job_count_, job.label, "compare");
        const Projection gpu_result = use_gpu ? result : truncate_order(gpu_->projector->project(env, kProjectedOrder), o_.order);
        const Projection cpu_result = use_gpu ? truncate_order(project_sh_cpu(env, kProjectedOrder, o_.threads), o_.order) : result;
        const ShComparison cmp = compare_sh(gpu_result.radiance, cpu_result.radiance);
        print_comparison(cmp, gpu_result, cpu_result);
        const ShCoefficients e_cpu = irradiance_from_radiance(cpu_result.radiance);
        const ImageDifference map_diff = compare_images(
            render_map(irradiance_from_radiance(gpu_result.radiance), gpu_->projector.get()), render_map(e_cpu, nullptr));
        std::printf("irradiance map (%s, size %d): max abs diff %.4e, max |E| %.4e, relative %.4e\n",
                    o_.output_layout.c_str(), o_.size, map_diff.max_abs_diff, map_diff.max_abs_reference,
                    map_diff.max_abs_reference > 0 ? map_diff.max_abs_diff / map_diff.max_abs_reference : 0.0);
        std::fflush(stdout);
        // The exact map: the GPU's float sums against the double CPU path, relative to max |E|.
        double exact_rel = 0;
        if (exact_map) {
            ExactEvaluator on_gpu{gpu_->exact.get(), o_.threads}, on_cpu{nullptr, o_.threads};
            const bool equirect = o_.output_layout == "equirect";
            compared_exact_map = render_exact_map(*cells.exact, equirect, o_.size, on_gpu);
            compared_exact_ms = on_gpu.ms;
            const ImageDifference d =
                compare_images(*compared_exact_map, render_exact_map(*cells.exact, equirect, o_.size, on_cpu));
            exact_rel = d.max_abs_reference > 0 ? d.max_abs_diff / d.max_abs_reference : 0.0;
            std::printf("exact irradiance map (%s, size %d, %s): max abs diff %.4e, max |E| %.4e, relative %.4e\n",
                        o_.output_layout.c_str(), o_.size, cells.exact->describe().c_str(), d.max_abs_diff,
                        d.max_abs_reference, exact_rel);
            std::fflush(stdout);
        }
        // NaN must fail too, hence the negated comparisons.
        const bool passed = cmp.max_rel_diff <= o_.tolerance && exact_rel <= o_.tolerance;
        rep.compare = {{"passed", passed},
                       {"tolerance", o_.tolerance},
                       {"max_abs_diff", cmp.max_abs_diff},
                       {"max_rel_diff", cmp.max_rel_diff},
                       {"exact_map_rel_diff", exact_map ? nlohmann::json(exact_rel) : nlohmann::json(nullptr)}};
        if (!passed) {
            char line[200];
            if (!(cmp.max_rel_diff <= o_.tolerance))
                std::snprintf(line, sizeof line, "compare: max relative difference %.4e exceeds tolerance %.4e",
                              cmp.max_rel_diff, o_.tolerance);
            else
                std::snprintf(line, sizeof line,
                              "compare: exact irradiance map differs by %.4e of its max, beyond tolerance %.4e", exact_rel,
                              o_.tolerance);
            throw Mismatch{kExitCompareMismatch, (batch_ ? job.label + ": " : "") + line};
        }
    }

    // The irradiance map, once, for every EXR output.
    std::optional<Image> map;
    for (const std::string& out : job.outputs) {
        if (ends_with_ci(out, ".json") || map) continue;
        progress_.stage(job.index, job_count_, job.label, "irradiance");
        const Clock::time_point t0 = Clock::now();
        if (exact_map && compared_exact_map) {
            map = std::move(compared_exact_map);
            rep.timings.irradiance = compared_exact_ms;
            continue;
        }
        if (exact_map) {
            const bool equirect = o_.output_layout == "equirect";
            ExactEvaluator evaluator{use_gpu ? gpu_->exact.get() : nullptr, o_.threads};
            try {
                map = render_exact_map(*cells.exact, equirect, o_.size, evaluator);
            } catch (const GpuError& e) {
                fall_back_to_cpu(job, e);
                use_gpu = false;
                projector = nullptr;
                evaluator = ExactEvaluator{nullptr, o_.threads};
                map = render_exact_map(*cells.exact, equirect, o_.size, evaluator);
            }
            rep.timings.irradiance = evaluator.ms;
            continue;
        }
        try {
            map = render_map(record.irradiance, projector);
        } catch (const GpuError& e) {
            fall_back_to_cpu(job, e);
            use_gpu = false;
            projector = nullptr;
            map = render_map(record.irradiance, nullptr);
        }
        rep.timings.irradiance = use_gpu ? projector->last_timings().irradiance_ms : ms_since(t0);
    }

    // The specular chain (--specular), on the GPU unless the bake fell back to the CPU.
    std::optional<SpecularBake> specular;
    if (!job.specular.empty()) {
        progress_.stage(job.index, job_count_, job.label, "specular");
        SpecularSettings ss;
        ss.base_size = o_.specular_size;
        ss.samples = o_.specular_samples;
        try {
            specular = bake_specular(env, ss, use_gpu ? gpu_->specular.get() : nullptr, o_.threads);
        } catch (const GpuError& e) {
            fall_back_to_cpu(job, e);
            use_gpu = false;
            projector = nullptr;
            specular = bake_specular(env, ss, nullptr, o_.threads);
        }
        rep.timings.specular = specular->source_ms + specular->prefilter_ms;
        if (o_.compare) {
            compare_specular(*specular, kSpecularCompareTexels, o_.threads);
            for (const std::string& line : describe_specular_comparison(*specular)) std::printf("%s\n", line.c_str());
            std::fflush(stdout);
        }
    }

    progress_.stage(job.index, job_count_, job.label, "write");
    const Clock::time_point write_start = Clock::now();
    if (specular) {
        const std::vector<std::string> files = write_specular(job.specular, *specular);
        rep.outputs.insert(rep.outputs.end(), files.begin(), files.end());
        rep.specular = specular_json(*specular, files);
    }
    for (const std::string& out : job.outputs) {
        if (ends_with_ci(out, ".json"))
            write_coefficients_json(out, record);
        else
            write_exr(out, *map, o_.output_layout == "equirect" ? EnvmapHint::LatLong : EnvmapHint::Cube);
        rep.outputs.push_back(out);
    }
    if (!job.preview.empty()) {
        PreviewOptions po;
        po.panel_width = o_.preview_width;
        po.exposure = o_.preview_exposure;
        if (specular) po.specular = &specular->chain;
        const PreviewImage preview = make_preview(env, record.irradiance, po);
        write_preview_png(job.preview, preview);
        rep.outputs.push_back(job.preview);
        rep.preview = {{"file", job.preview}, {"exposure", preview.exposure}};
    }
    for (const auto& [language, file] : job.emits) {
        write_text_atomically(file, emit_shader_snippet(language, record.irradiance, job.label));
        rep.outputs.push_back(file);
        rep.emitted.push_back({{"language", language == ShaderLanguage::Glsl ? "glsl" : "hlsl"}, {"file", file}});
    }
    rep.timings.write = ms_since(write_start);

    if (golden) {
        const GoldenCheck check = check_golden(job.golden, *golden, record, golden_tol_);
        rep.golden = golden_to_json(check, golden_tol_);
        const std::vector<std::string> lines = describe_golden(check, golden_tol_);
        if (!check.passed() || !o_.quiet)
            for (const std::string& line : lines) print_out("golden: " + line);
        if (!check.window_difference.empty()) throw Mismatch{kExitGoldenMismatch, job.golden + ": " + check.window_difference};
        if (!check.passed()) {
            char line[200];
            std::snprintf(line, sizeof line, ": %s differs: %zu of %d coefficient values beyond tolerance, max rel diff %.4e",
                          job.label.c_str(), check.failures.size(), check.compared_values, check.max_rel_diff);
            throw Mismatch{kExitGoldenMismatch, job.golden + line};
        }
    }
    return kExitOk;
}

// Runs one input, turning every failure into an exit code and one error line.
void App::run_job(const Job& job, const std::function<Loaded()>& get_loaded, FileReport& rep) {
    const Clock::time_point t0 = Clock::now();
    rep.index = job.index;
    rep.input = job.label;
    rep.order = o_.order;
    rep.files = {job.label};
    const std::string prefix = job.label + ": ";  // every error line names the input
    auto fail = [&](int code, const std::string& line) {
        rep.exit_code = code;
        rep.error = line;
        print_line(line);
    };
    try {
        rep.exit_code = bake(job, get_loaded, rep);
    } catch (const Mismatch& mismatch) {
        fail(mismatch.code, mismatch.line);
    } catch (const InputError& e) {
        fail(kExitInput, e.what());
    } catch (const OutputError& e) {
        fail(kExitOutput, e.what());
    } catch (const GpuError& e) {
        fail(kExitGpuUnavailable, prefix + "GPU path failed: " + e.what());
    } catch (const std::bad_alloc&) {
        fail(kExitFailure, prefix + "out of memory");
    } catch (const std::exception& e) {
        fail(kExitFailure, prefix + "internal error: " + e.what());
    }
    rep.status = rep.exit_code == kExitOk ? "ok" : "failed";
    rep.timings.total = ms_since(t0);
    progress_.clear();
}

void App::print_summary(const FileReport& rep) {
    const std::string n = "[" + std::to_string(rep.index) + "/" + std::to_string(job_count_) + "] ";
    if (rep.status == "skipped") {
        print_out(n + "skipped " + rep.input + " (--fail-fast)");
        return;
    }
    if (rep.status == "failed") {
        print_out(n + "FAILED  " + rep.input + " (exit " + std::to_string(*rep.exit_code) + "): " + rep.error);
        return;
    }
    std::string outs;
    for (const std::string& out : rep.outputs) outs += " " + out;
    std::string line = n + "ok      " + rep.input + (outs.empty() ? "" : " ->" + outs) + " (" + rep.path + ", " +
                       fmt_ms(*rep.timings.total);
    if (!rep.golden.is_null()) line += ", golden pass";
    print_out(line + ")");
}

void print_timings(const FileReport& rep) {
    std::string line = "timings " + rep.input + ":";
    const std::pair<const char*, std::optional<double>> stages[] = {
        {"load", rep.timings.load},         {"upload", rep.timings.upload}, {"project", rep.timings.project},
        {"reduce", rep.timings.reduce},     {"sh error", rep.timings.sh_error}, {"irradiance", rep.timings.irradiance},
        {"specular", rep.timings.specular}, {"write", rep.timings.write},       {"total", rep.timings.total}};
    bool first = true;
    for (const auto& [name, value] : stages) {
        if (!value) continue;
        line += std::string(first ? " " : ", ") + name + " " + fmt_ms(*value);
        first = false;
    }
    if (rep.path == "gpu")
        line += " (upload, project, reduce, irradiance: GPU timers; sh error: the report's cells and exact values; specular: CPU stages + GPU timers)";
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

int App::run() {
    const Clock::time_point t0 = Clock::now();
    batch_ = o_.inputs.size() > 1 || !o_.out_dir.empty() || !o_.names.empty();
    golden_tol_.relative = o_.tolerance;
    golden_tol_.relative_in_force = o_.tolerance_given || !o_.abs_tolerance;
    golden_tol_.absolute_in_force = o_.abs_tolerance.has_value();
    golden_tol_.absolute = o_.abs_tolerance.value_or(0);

    const std::vector<Job> jobs = plan_jobs();  // usage errors surface before any work
    job_count_ = static_cast<int>(jobs.size());

    if (batch_ && !o_.out_dir.empty()) {
        std::error_code ec;
        fs::create_directories(o_.out_dir, ec);
        if (ec) throw OutputError(o_.out_dir + ": cannot create folder: " + ec.message());
    }
    // Every output's place is checked before any work, so that a run refused for one output
    // writes none of the others and costs nothing.
    for (const Job& job : jobs) {
        std::vector<std::string> written = job.outputs;
        if (!job.preview.empty()) written.push_back(job.preview);
        if (!job.specular.empty()) written.push_back(expand_level_placeholder(job.specular, 0));
        for (const auto& e : job.emits) written.push_back(e.second);
        if (!o_.report.empty()) written.push_back(o_.report);
        if (!o_.dfg.empty()) written.push_back(o_.dfg);
        for (const std::string& out : written) {
            std::error_code ec;
            const fs::path folder = fs::path(out).has_parent_path() ? fs::path(out).parent_path() : fs::path(".");
            if (!fs::exists(folder, ec)) throw OutputError(out + ": folder " + folder.string() + " does not exist");
            if (!fs::is_directory(folder, ec)) throw OutputError(out + ": " + folder.string() + " is not a folder");
            if (fs::is_directory(out, ec)) throw OutputError(out + ": is a folder");
            if (o_.no_clobber && fs::exists(out, ec)) throw OutputError(out + ": exists (--no-clobber)");
        }
    }

    // The DFG table depends on no input: written once, first.
    if (!o_.dfg.empty()) {
        const Image table = compute_dfg_table(o_.dfg_size, o_.threads);
        if (ends_with_ci(o_.dfg, ".png"))
            write_dfg_png16(o_.dfg, table);
        else
            write_exr(o_.dfg, table, EnvmapHint::None);
    }
    if (jobs.empty()) return kExitOk;

    // Progress on a terminal only, for batches and large inputs.
    bool large = batch_;
    if (!large) {
        std::error_code ec;
        std::uintmax_t bytes = 0;
        for (const std::string& f : o_.faces.empty() ? o_.inputs : o_.faces) {
            const std::uintmax_t s = fs::file_size(f, ec);
            if (!ec) bytes += s;
        }
        large = bytes >= kLargeInputBytes;
    }
    progress_ = Progress(large && !o_.quiet && ::isatty(STDERR_FILENO));

    RunReport report;
    report.version = BAKE_VERSION;
    report.settings = {{"order", o_.order},
                       {"device", o_.device},
                       {"output_layout", o_.output_layout},
                       {"size", o_.size},
                       {"tolerance", golden_tol_.relative_in_force || o_.compare ? nlohmann::json(o_.tolerance) : nlohmann::json(nullptr)},
                       {"abs_tolerance", o_.abs_tolerance ? nlohmann::json(*o_.abs_tolerance) : nlohmann::json(nullptr)},
                       {"jobs", o_.jobs},
                       {"fail_fast", o_.fail_fast}};
    report.files.resize(jobs.size());

    // Decoding: on the main thread when its turn comes (--jobs 0), or up to N inputs ahead on
    // worker threads (std::async) while the main thread bakes the current one. The first input
    // is always decoded on a worker while this thread makes the GL context and compiles the
    // programs: the two are independent, and each takes a good part of a small bake.
    std::vector<std::future<Loaded>> pending(jobs.size());
    // Whether an input's report cells are left to the GPU: decided when its decode is launched,
    // from whether a context is (or, for the first input, may be) there.
    auto cells_on_gpu = [&](bool gpu_there) { return gpu_there && o_.device != "cpu" && o_.irradiance != "exact"; };
    auto launch = [&](size_t i) {
        const bool on_gpu = cells_on_gpu(i == 0 || gpu_.has_value());
        if (!pending[i].valid())
            pending[i] = std::async(std::launch::async, [this, &jobs, i, on_gpu] { return load(jobs[i], on_gpu); });
    };
    auto launch_ahead = [&](size_t current) {
        if (o_.jobs <= 0) return;
        for (size_t i = current; i < jobs.size() && i <= current + static_cast<size_t>(o_.jobs); ++i) launch(i);
    };
    const bool gpu_wanted = o_.device != "cpu" || o_.compare;
    if (gpu_wanted && !jobs.empty()) launch(0);
    try {
        open_gpu();  // one context and one set of compiled shaders for every input
    } catch (const GpuError& e) {
        // The GPU was demanded and none works: no input can be baked. The report still says so,
        // for the CI job that reads it.
        if (!o_.report.empty()) {
            report.exit_code = kExitGpuUnavailable;
            report.total_ms = ms_since(t0);
            for (size_t i = 0; i < jobs.size(); ++i) {
                FileReport& rep = report.files[i];
                rep.index = jobs[i].index;
                rep.input = jobs[i].label;
                rep.files = {jobs[i].label};
                rep.order = o_.order;
                rep.status = "failed";
                rep.exit_code = kExitGpuUnavailable;
                rep.error = std::string("GPU path failed: ") + e.what();
            }
            try {
                write_run_report(o_.report, report);
            } catch (const OutputError& oe) {
                print_line(oe.what());
            }
        }
        throw;
    }
    if (!jobs.empty()) prepare_gpu(jobs[0]);
    if (gpu_) {
        report.gpu_backend = gpu_->context->info().backend;
        report.gpu_renderer = gpu_->context->info().renderer;
        report.gpu_version = gpu_->context->info().version;
    }

    int exit_code = kExitOk;
    std::string first_failure;
    bool stop = false;
    for (size_t i = 0; i < jobs.size(); ++i) {
        FileReport& rep = report.files[i];
        if (stop) {
            rep.index = jobs[i].index;
            rep.input = jobs[i].label;
            rep.order = o_.order;
            if (batch_ && !o_.quiet) print_summary(rep);
            continue;
        }
        launch_ahead(i);
        auto get_loaded = [&, i]() { return pending[i].valid() ? pending[i].get() : load(jobs[i], cells_on_gpu(gpu_.has_value())); };
        run_job(jobs[i], get_loaded, rep);
        launch_ahead(i + 1);  // (no-op when already running)
        if (o_.timings) {
            progress_.clear();
            print_timings(rep);
        }
        if (batch_ && !o_.quiet) print_summary(rep);
        if (rep.status == "failed" && exit_code == kExitOk) {
            exit_code = *rep.exit_code;
            first_failure = rep.input;
        }
        if (rep.status == "failed" && o_.fail_fast) stop = true;
    }
    // Decodes still running (after --fail-fast) are waited for by the futures' destructors.
    if (o_.verbose && gpu_) {
        const GpuProjector::ProgramStats ps = gpu_->projector->program_stats();
        print_line("GPU programs: " + std::to_string(ps.compiled) + " compiled, " + std::to_string(ps.cached) +
                   " loaded from the program cache (" + (ps.cache_folder.empty() ? "off" : ps.cache_folder) + ")");
    }

    report.exit_code = exit_code;
    report.total_ms = ms_since(t0);
    if (!o_.report.empty()) {
        try {
            write_run_report(o_.report, report);
        } catch (const OutputError& e) {
            print_line(e.what());
            if (exit_code == kExitOk) exit_code = kExitOutput;
        }
    }
    if (batch_ && !o_.quiet) {
        int ok = 0, failed = 0, skipped = 0;
        for (const FileReport& r : report.files) {
            ok += r.status == "ok";
            failed += r.status == "failed";
            skipped += r.status == "skipped";
        }
        char total[64];
        std::snprintf(total, sizeof total, "%.2f s", report.total_ms / 1000.0);
        print_out("total: " + std::to_string(jobs.size()) + " files, " + std::to_string(ok) + " ok, " +
                  std::to_string(failed) + " failed, " + std::to_string(skipped) + " skipped in " + total + "; exit " +
                  std::to_string(exit_code) + (first_failure.empty() ? "" : " (first failure: " + first_failure + ")"));
    }
    return exit_code;
}

}  // namespace

int run_bake_app(int argc, char** argv, bool exiting) {
    Options o;
    CLI::App app{"Bakes image-based lighting: projects an HDR environment map onto spherical harmonics "
                 "(order 3 or 5) on the GPU (OpenGL 4.3 compute) or CPU, and writes the irradiance map "
                 "and/or the coefficients.",
                 kTool};
    app.footer(kFooter);
    app.get_formatter()->column_width(34);
    app.set_version_flag("--version", std::string(kTool) + " " + BAKE_VERSION);
    app.add_option("input", o.inputs, "Environment map(s): .hdr or .exr (equirect 2:1, cross 4:3/3:4, strip 6:1/1:6, "
                                      "or a pattern with {face}); several make a batch");
    app.add_option("--faces", o.faces, "Six face files in the order +X -X +Y -Y +Z -Z")->expected(6);
    app.add_option("-o,--output", o.outputs, "Output file: .exr irradiance map or .json coefficients (repeatable; one input)");
    app.add_option("--out-dir", o.out_dir, "Batch: folder for the outputs named by --name (created if missing)");
    app.add_option("--name", o.names, "Batch: output name pattern, .exr or .json, with {stem}, {name}, {index} "
                                      "(repeatable; default '{stem}_irr.exr')")
        ->allow_extra_args(false);
    app.add_option("--order", o.order, "SH order: 3 (9 coefficients, bands l<=2) or 5 (25, l<=4)")
        ->check(CLI::IsMember({3, 5}))
        ->capture_default_str();
    app.add_option("--size", o.size, "Output face size N (equirect output is 4N x 2N)")
        ->check(CLI::Range(1, 8192))
        ->capture_default_str();
    app.add_option("--irradiance", o.irradiance, "Irradiance map: sh (from the coefficients) or exact (the source "
                                                 "convolved with the clamped cosine directly)")
        ->check(CLI::IsMember({"sh", "exact"}))
        ->capture_default_str();
    app.add_option("--window", o.window, "Deringing window on the SH bands: none, hann, lanczos, gauss, or auto (the "
                                         "mildest lanczos window that makes the irradiance non-negative)")
        ->check(CLI::IsMember({"none", "hann", "lanczos", "gauss", "auto"}))
        ->capture_default_str();
    app.add_option("--window-cutoff", o.window_cutoff, "Cutoff w of hann/lanczos/gauss (0: the window's default)")
        ->check(CLI::NonNegativeNumber & finite_number());
    app.add_option("--warn-error", o.warn_error, "Warn when the SH irradiance errs more than this on average "
                                                 "(relative, against the exact convolution)")
        ->check(CLI::NonNegativeNumber & finite_number())
        ->capture_default_str();
    app.add_option("--layout", o.layout, "Force the input layout instead of detecting it")
        ->check(CLI::IsMember({"equirect", "hcross", "vcross", "hstrip", "vstrip"}));
    app.add_option("--output-layout", o.output_layout, "Irradiance map layout")
        ->check(CLI::IsMember({"cube", "equirect"}))
        ->capture_default_str();
    app.add_option("--device", o.device, "auto: the GPU path if an OpenGL 4.3 context works; without one, or on any GPU "
                                      "failure, the CPU path with one notice line")
        ->check(CLI::IsMember({"auto", "gpu", "cpu"}))
        ->capture_default_str();
    app.add_option("--gl", o.gl, "OpenGL context: EGL (headless), GLFW (hidden window), or auto")
        ->check(CLI::IsMember({"auto", "egl", "glfw"}))
        ->capture_default_str();
    app.add_flag("--compare", o.compare, "Run GPU and CPU paths and report their differences");
    app.add_option("--tolerance", o.tolerance, "Largest relative difference --compare and --golden accept")
        ->check(CLI::PositiveNumber & finite_number())
        ->capture_default_str();
    app.add_option("--golden", o.golden, "Compare the coefficients with this JSON (written by this tool); exit 7 "
                                         "if they differ beyond tolerance");
    app.add_option("--abs-tolerance", o.abs_tolerance, "--golden: largest absolute difference accepted")
        ->check(CLI::NonNegativeNumber & finite_number());
    app.add_option("--report", o.report, "Write a JSON report of every input (docs/report.schema.json)");
    app.add_option("--preview", o.preview, "Write a PNG: input and irradiance side by side, lit spheres below");
    app.add_option("--preview-width", o.preview_width, "Preview panel width P (the PNG is 2P x P)")
        ->check(CLI::Range(16, 8192))
        ->capture_default_str();
    app.add_option("--preview-exposure", o.preview_exposure, "Preview exposure (0: automatic)")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--emit", o.emits, "Write a shader function evaluating the irradiance: LANG glsl or hlsl "
                                      "(repeatable)")
        ->type_name("LANG FILE")
        ->allow_extra_args(false);
    app.add_option("--specular", o.specular, "Write the GGX-prefiltered specular cube map with its mip chain: one "
                                             "mip-mapped EXR, or one EXR a level with {level} in the name")
        ->type_name("FILE.exr");
    app.add_option("--specular-size", o.specular_size, "Face size of the specular chain's level 0 (a power of two)")
        ->check(CLI::IsMember({1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}));
    app.add_option("--specular-samples", o.specular_samples, "GGX samples a texel of specular level 1 (x4 a level "
                                                             "after, at most 65536)")
        ->check(CLI::Range(1, 65536));
    app.add_option("--dfg", o.dfg, "Write the split-sum DFG table (.exr float, or .png 16-bit)")->type_name("FILE");
    app.add_option("--dfg-size", o.dfg_size, "DFG table size")->check(CLI::Range(1, 1024));
    app.add_option("--jobs", o.jobs, "Batch: decode up to N next inputs on worker threads during GPU work")
        ->check(CLI::Range(0, 64))
        ->capture_default_str();
    app.add_flag("--fail-fast", o.fail_fast, "Batch: stop at the first input that fails");
    app.add_flag("--timings", o.timings, "Print each input's stage times (load, upload, project, reduce, "
                                         "sh error, irradiance, specular, write)");
    app.add_flag("--no-clobber", o.no_clobber, "Refuse to overwrite an existing output (default: overwrite)");
    app.add_flag("--clamp-negative", o.clamp_negative, "Set negative texel values to 0 before projecting");
    app.add_flag("--replace-nonfinite", o.replace_nonfinite, "Set NaN/Inf texel values to 0 instead of failing");
    app.add_option("--max-pixels", o.max_pixels, "Refuse images with more pixels than this (checked from the header)")
        ->check(pixel_count())
        ->capture_default_str();
    app.add_option("--threads", o.threads, "CPU path threads (0: all cores)")->check(CLI::NonNegativeNumber);
    app.add_flag("-v,--verbose", o.verbose, "Print the OpenGL context and driver messages");
    app.add_flag("-q,--quiet", o.quiet, "Print only errors");

    try {
        app.parse(argc, argv);
        o.tolerance_given = app.count("--tolerance") > 0;
        const bool batch = o.inputs.size() > 1 || !o.out_dir.empty() || !o.names.empty();
        const bool dfg_alone = o.inputs.empty() && o.faces.empty() && !o.dfg.empty();
        if (o.inputs.empty() == o.faces.empty() && !dfg_alone)
            throw CLI::ValidationError("input", "give input files, or --faces with six files");
        if (batch && !o.faces.empty())
            throw CLI::ValidationError("--faces", "one environment; for several cubes use {face} patterns as inputs");
        const bool face_files = !o.faces.empty() || std::any_of(o.inputs.begin(), o.inputs.end(), [](const std::string& in) {
            return expand_face_pattern(in).has_value();
        });
        if (face_files && !o.layout.empty())
            throw CLI::ValidationError("--layout", "six face files are a cube already: --layout applies to single images");
        if (batch && !o.outputs.empty())
            throw CLI::ValidationError("--output", "-o names the output of one input; with several inputs use "
                                                   "--out-dir and --name patterns");
        if (o.outputs.empty() && o.names.empty() && o.out_dir.empty() && !o.compare && o.golden.empty() &&
            o.preview.empty() && o.emits.empty() && o.report.empty() && o.specular.empty() && o.dfg.empty())
            throw CLI::ValidationError("--output", "nothing to do: give -o out.exr and/or -o out.json");
        for (const std::string& out : batch ? o.names : o.outputs)
            if (!ends_with_ci(out, ".exr") && !ends_with_ci(out, ".json"))
                throw CLI::ValidationError(batch ? "--name" : "--output", "'" + out + "' must end in .exr or .json");
        for (const auto& [lang, file] : o.emits)
            if (!parse_shader_language(lang))
                throw CLI::ValidationError("--emit", "'" + lang + "' is not glsl or hlsl");
        if (app.count("--window-cutoff") && (o.window == "none" || o.window == "auto"))
            throw CLI::ValidationError("--window-cutoff", "applies to --window hann, lanczos or gauss");
        // Each exact texel sums every cell of the source (up to 131072): beyond 6 x 256^2 outputs
        // a bake would take minutes on the CPU path.
        const long long map_texels = o.output_layout == "equirect" ? 8LL * o.size * o.size : 6LL * o.size * o.size;
        if (o.irradiance == "exact" && map_texels > 6LL * 256 * 256)
            throw CLI::ValidationError("--size", "--irradiance exact makes maps of at most 6 x 256^2 texels "
                                                 "(--size 256 cube, 221 lat-long)");
        if (!o.specular.empty() && !ends_with_ci(o.specular, ".exr"))
            throw CLI::ValidationError("--specular", "'" + o.specular + "' must end in .exr");
        if (!o.dfg.empty() && !ends_with_ci(o.dfg, ".exr") && !ends_with_ci(o.dfg, ".png"))
            throw CLI::ValidationError("--dfg", "'" + o.dfg + "' must end in .exr or .png");
        if (!o.preview.empty() && !ends_with_ci(o.preview, ".png"))
            throw CLI::ValidationError("--preview", "'" + o.preview + "' must end in .png");
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << kTool << ": " << e.what() << " (see --help)\n";
        return kExitUsage;
    }

    try {
        auto bake_app = std::make_unique<App>(o);
        const int code = bake_app->run();
        if (exiting) (void)bake_app.release();  // its GL objects and context go with the process
        return code;
    } catch (const CLI::ValidationError& e) {
        std::cerr << kTool << ": " << e.what() << " (see --help)\n";
        return kExitUsage;
    } catch (const InputError& e) {
        std::cerr << kTool << ": " << e.what() << "\n";
        return kExitInput;
    } catch (const OutputError& e) {
        std::cerr << kTool << ": " << e.what() << "\n";
        return kExitOutput;
    } catch (const GpuError& e) {
        std::cerr << kTool << ": GPU path failed: " << e.what() << "\n";
        return kExitGpuUnavailable;
    } catch (const std::bad_alloc&) {
        std::cerr << kTool << ": out of memory\n";
        return kExitFailure;
    } catch (const std::exception& e) {
        std::cerr << kTool << ": internal error: " << e.what() << "\n";
        return kExitFailure;
    }
}

}  // namespace bake
