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
#include "options.h"
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

// Ringing: where the unwindowed SH irradiance is negative (beyond rounding), the channel where it
// is worst as "negative in some directions (min -0.16 in B, 4.2% of its mean)"; "" where it is not.
// `ratio` gets min / mean of that channel.
std::string negative_irradiance_clause(const ShWindowChoice& window, const ShCoefficients& irradiance, double& ratio) {
    constexpr double kY00 = 0.282094791773878;
    ratio = 0;
    if (window.kind != ShWindowKind::None || window.nonnegative) return "";
    int worst = -1;
    for (int ch = 0; ch < 3; ++ch) {
        const double mean = irradiance.rgb[0][ch] * kY00;
        const double r = mean > 0 ? window.min_irradiance_after[ch] / mean : 0;
        if (r < ratio) {
            worst = ch;
            ratio = r;
        }
    }
    if (worst < 0) return "";
    char text[160];
    std::snprintf(text, sizeof text, "negative in some directions (min %.3g in %s, %.1f%% of its mean: ringing)",
                  window.min_irradiance_after[worst], channel_name(worst), -100 * ratio);
    return text;
}

// The SH quality warning of one input, or "": its mean error beyond --warn-error X (sh_error.h),
// and negative irradiance, which a shader shows as black or a colour shift: named in the same
// line when the error is reported, alone when it is deeper than X times the mean.
std::string sh_quality_warning(const IrradianceAnalysis& analysis, const ShCoefficients& irradiance, int order, double limit) {
    double ratio = 0;
    const std::string negative = negative_irradiance_clause(analysis.window, irradiance, ratio);
    const std::string error = sh_error_warning(analysis.sh_error, order, limit);
    const std::string fix = "; --window auto makes it non-negative";
    if (!error.empty()) return negative.empty() ? error : error + "; it is " + negative + fix;
    if (!negative.empty() && ratio < -limit)
        return "the order-" + std::to_string(order) + " SH irradiance is " + negative + fix;
    return "";
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

// The exit code and error line of an exception that ends a run (or an input).
std::pair<int, std::string> refusal(const std::exception& e) {
    if (dynamic_cast<const CLI::ValidationError*>(&e)) return {kExitUsage, one_line(e.what()) + " (see --help)"};
    if (dynamic_cast<const InputError*>(&e)) return {kExitInput, one_line(e.what())};
    if (dynamic_cast<const OutputError*>(&e)) return {kExitOutput, one_line(e.what())};
    if (dynamic_cast<const GpuError*>(&e)) return {kExitGpuUnavailable, "GPU path failed: " + one_line(e.what())};
    if (dynamic_cast<const std::bad_alloc*>(&e)) return {kExitFailure, "out of memory"};
    return {kExitFailure, "internal error: " + one_line(e.what())};
}

// What a path resolves to (links, "./", ".."), to tell when two spellings name one file.
std::string path_key(const std::string& path) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec).lexically_normal();
    const fs::path canonical = fs::weakly_canonical(absolute, ec);
    return (ec ? absolute : canonical).string();
}

class App {
public:
    App(const Options& o, std::vector<std::string> warnings)
        : o_(o), progress_(progress_mode(o)), run_warnings_(std::move(warnings)) {}
    int run();

private:
    // Progress lines: asked for, or on a terminal (auto); never with --quiet.
    static Progress::Mode progress_mode(const Options& o) {
        if (o.quiet || o.progress == "never") return Progress::Mode::Off;
        if (::isatty(STDERR_FILENO)) return Progress::Mode::Terminal;
        return o.progress == "always" ? Progress::Mode::Log : Progress::Mode::Off;
    }
    void print_line(const std::string& line) { progress_.print(stderr, std::string(kTool) + ": " + one_line(line)); }
    void print_out(const std::string& line) { progress_.print(stdout, line); }

    std::vector<Job> plan_jobs() const;
    void prepare_output_folders(const std::vector<Job>& jobs) const;
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
    int jobs_ahead_ = 0;  // inputs decoded ahead (--jobs, auto resolved)
    std::vector<std::string> run_warnings_;
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
            for (const std::string& out : o_.outputs) job.outputs.push_back(expand(out, job.label, job.index, "--output"));
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
    const auto key = path_key;
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

// Every output's folder, before any work: a file where a folder should be, or a folder where the
// file should be, refuses the run having written nothing (and --no-clobber an existing output);
// missing folders are then made, as mkdir -p would (for -o as for --out-dir).
void App::prepare_output_folders(const std::vector<Job>& jobs) const {
    std::vector<std::string> written;
    for (const Job& job : jobs) {
        written.insert(written.end(), job.outputs.begin(), job.outputs.end());
        if (!job.preview.empty()) written.push_back(job.preview);
        if (!job.specular.empty()) {
            const int levels = has_level_placeholder(job.specular) ? specular_level_count(o_.specular_size) : 1;
            for (int level = 0; level < levels; ++level) written.push_back(expand_level_placeholder(job.specular, level));
        }
        for (const auto& e : job.emits) written.push_back(e.second);
    }
    if (!o_.report.empty()) written.push_back(o_.report);
    if (!o_.dfg.empty()) written.push_back(o_.dfg);
    std::vector<fs::path> to_make;
    // The nearest part of a folder that exists must be a folder; the rest is made.
    auto check_folder = [&](const fs::path& folder, const std::string& out) {
        std::error_code ec;
        fs::path existing = folder;
        while (!existing.empty() && !fs::exists(existing, ec)) existing = existing.parent_path();
        if (!existing.empty() && !fs::is_directory(existing, ec))
            throw OutputError(out + ": " + existing.string() + " is not a folder");
        if (existing != folder) to_make.push_back(folder);
    };
    if (batch_ && !o_.out_dir.empty()) check_folder(o_.out_dir, o_.out_dir);
    for (const std::string& out : written) {
        std::error_code ec;
        if (fs::is_directory(out, ec)) throw OutputError(out + ": is a folder");
        if (o_.no_clobber && fs::exists(out, ec)) throw OutputError(out + ": exists (--no-clobber)");
        check_folder(fs::path(out).has_parent_path() ? fs::path(out).parent_path() : fs::path("."), out);
    }
    for (const fs::path& folder : to_make) {
        std::error_code ec;
        fs::create_directories(folder, ec);
        if (ec) throw OutputError(folder.string() + ": cannot create folder: " + ec.message());
    }
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
        print_line(std::string("notice: ") + job.label + ": GPU path failed (" + e.what() + "); using the CPU path");
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
    if (const std::string line = sh_quality_warning(analysis, record.irradiance, o_.order, o_.warn_error); !line.empty())
        warnings.push_back(line);
    for (const std::string& w : warnings) {
        rep.warnings.push_back("warning: " + job.label + ": " + w);
        if (!o_.quiet) print_line(rep.warnings.back());
    }

    // --compare's GPU exact map, written as the output's map (--compare runs on the GPU path only).
    std::optional<Image> compared_exact_map;
    double compared_exact_ms = 0;
    std::optional<Mismatch> failed_compare;
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
            // Like a golden failure, the outputs are still written: the exit code says the check failed.
            failed_compare = Mismatch{kExitCompareMismatch, job.label + ": " + line};
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

    std::optional<Mismatch> failed_golden;
    if (golden) {
        const GoldenCheck check = check_golden(job.golden, *golden, record, golden_tol_);
        rep.golden = golden_to_json(check, golden_tol_);
        const std::vector<std::string> lines = describe_golden(check, golden_tol_);
        if (!check.passed() || !o_.quiet)
            for (const std::string& line : lines) print_out("golden: " + line);
        if (!check.passed())
            failed_golden = Mismatch{kExitGoldenMismatch, job.golden + ": " + job.label + " fails: " + check.failure_reason()};
    }
    // Both checks ran and every output is written; the first failure is the input's.
    if (failed_compare) throw *failed_compare;
    if (failed_golden) throw *failed_golden;
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

// The DFG table depends on no input: written once, before the inputs.
void write_dfg(const std::string& path, int size, int threads) {
    const Image table = compute_dfg_table(size, threads);
    if (ends_with_ci(path, ".png"))
        write_dfg_png16(path, table);
    else
        write_exr(path, table, EnvmapHint::None);
}

// The report's frame: version and settings, before any input is baked.
RunReport new_report(const Options& o, int jobs_ahead) {
    RunReport report;
    report.version = BAKE_VERSION;
    const bool relative_in_force = o.tolerance_given || !o.abs_tolerance;
    report.settings = {{"order", o.order},
                       {"device", o.device},
                       {"output_layout", o.output_layout},
                       {"size", o.size},
                       {"tolerance", (relative_in_force && !o.golden.empty()) || o.compare ? nlohmann::json(o.tolerance)
                                                                                           : nlohmann::json(nullptr)},
                       {"abs_tolerance", o.abs_tolerance ? nlohmann::json(*o.abs_tolerance) : nlohmann::json(nullptr)},
                       {"jobs", jobs_ahead},
                       {"fail_fast", o.fail_fast}};
    return report;
}

// The inputs as the report lists them: the command line's, or the first face file.
std::vector<std::string> input_labels(const Options& o) {
    return o.faces.empty() ? o.inputs : std::vector<std::string>{o.faces[0]};
}

// A run refused before baking: every input failed with the run's error, which the report states too.
void fail_every_input(RunReport& report, const Options& o, int code, const std::string& line) {
    report.exit_code = code;
    report.error = line;
    report.files.clear();
    const std::vector<std::string> labels = input_labels(o);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        FileReport rep;
        rep.index = static_cast<int>(i) + 1;
        rep.input = labels[i];
        rep.files = {labels[i]};
        rep.order = o.order;
        rep.status = "failed";
        rep.exit_code = code;
        rep.error = line;
        report.files.push_back(std::move(rep));
    }
}

// Writes the report of a run that stopped early, unless the report itself is the problem (the
// error names --report: it would overwrite a file the run reads or writes), it would overwrite a
// file the run reads, or one --no-clobber keeps. Best effort: the error line is out already.
void write_report_of_refusal(const std::string& path, const Options& o, const RunReport& report) {
    if (path.empty() || report.error.rfind("--report:", 0) == 0) return;
    std::error_code ec;
    if (o.no_clobber && fs::exists(path, ec)) return;
    std::vector<std::string> read = o.faces;
    for (const std::string& in : o.inputs) {
        if (const auto faces = expand_face_pattern(in)) read.insert(read.end(), faces->begin(), faces->end());
        else read.push_back(in);
    }
    if (!o.golden.empty()) read.push_back(o.golden);  // (a pattern's expansions are goldens of no report name)
    for (const std::string& r : read)
        if (path_key(r) == path_key(path)) return;
    try {
        write_run_report(path, report);
    } catch (const OutputError&) {
    }
}

int App::run() {
    const Clock::time_point t0 = Clock::now();
    batch_ = o_.batch();
    golden_tol_.relative = o_.tolerance;
    golden_tol_.relative_in_force = o_.tolerance_given || !o_.abs_tolerance;
    golden_tol_.absolute_in_force = o_.abs_tolerance.has_value();
    golden_tol_.absolute = o_.abs_tolerance.value_or(0);
    const bool gpu_wanted = o_.device != "cpu" || o_.compare;
    jobs_ahead_ = o_.jobs >= 0 ? o_.jobs : o_.device == "cpu" ? 0 : 2;

    RunReport report = new_report(o_, jobs_ahead_);
    report.warnings = run_warnings_;
    std::vector<Job> jobs;
    std::vector<std::future<Loaded>> pending;
    // Whether an input's report cells are left to the GPU: decided when its decode is launched,
    // from whether a context is (or, for the first input, may be) there.
    auto cells_on_gpu = [&](bool gpu_there) { return gpu_there && o_.device != "cpu" && o_.irradiance != "exact"; };
    auto launch = [&](size_t i) {
        const bool on_gpu = cells_on_gpu(i == 0 || gpu_.has_value());
        if (!pending[i].valid())
            pending[i] = std::async(std::launch::async, [this, &jobs, i, on_gpu] { return load(jobs[i], on_gpu); });
    };
    // Everything that can refuse the whole run, before any input is baked: usage errors found
    // in the names, output folders, the DFG table, the GPU when demanded. The report says why.
    try {
        jobs = plan_jobs();
        job_count_ = static_cast<int>(jobs.size());
        prepare_output_folders(jobs);
        if (!o_.dfg.empty()) {
            write_dfg(o_.dfg, o_.dfg_size, o_.threads);
            report.outputs.push_back(o_.dfg);
        }
        pending.resize(jobs.size());
        // The first input decodes on a worker while this thread makes the GL context and compiles
        // the programs: the two are independent, and each takes a good part of a small bake.
        if (gpu_wanted && !jobs.empty()) launch(0);
        if (!jobs.empty()) open_gpu();  // one context and one set of compiled shaders for every input
    } catch (const std::exception& e) {
        const auto [code, line] = refusal(e);
        print_line(line);
        fail_every_input(report, o_, code, line);
        report.total_ms = ms_since(t0);
        write_report_of_refusal(o_.report, o_, report);
        return code;
    }
    if (!jobs.empty()) prepare_gpu(jobs[0]);
    if (gpu_) {
        report.gpu_backend = gpu_->context->info().backend;
        report.gpu_renderer = gpu_->context->info().renderer;
        report.gpu_version = gpu_->context->info().version;
    }

    auto launch_ahead = [&](size_t current) {
        for (size_t i = current; i < jobs.size() && i <= current + static_cast<size_t>(jobs_ahead_); ++i)
            if (jobs_ahead_ > 0) launch(i);
    };
    report.files.resize(jobs.size());
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
    ParsedCommandLine parsed = parse_command_line(argc, argv);
    const Options& o = parsed.options;
    if (!parsed.usage_error.empty()) {
        std::cerr << kTool << ": " << parsed.usage_error << "\n";
        RunReport report = new_report(o, o.jobs);
        report.warnings = parsed.warnings;
        fail_every_input(report, o, kExitUsage, parsed.usage_error);
        write_report_of_refusal(o.report, o, report);
        return kExitUsage;
    }
    if (parsed.exit_code) return *parsed.exit_code;  // help, version, or a parse error (printed)
    if (!o.quiet)
        for (const std::string& w : parsed.warnings) std::cerr << kTool << ": " << w << "\n";
    try {
        auto bake_app = std::make_unique<App>(o, parsed.warnings);
        const int code = bake_app->run();
        if (exiting) (void)bake_app.release();  // its GL objects and context go with the process
        return code;
    } catch (const std::exception& e) {
        const auto [code, line] = refusal(e);
        std::cerr << kTool << ": " << line << "\n";
        return code;
    }
}

}  // namespace bake
