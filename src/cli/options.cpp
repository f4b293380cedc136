#include "options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <regex>

#include <nlohmann/json.hpp>

#include "environment_loader.h"
#include "errors.h"
#include "help_format.h"
#include "ibl_ktx2.h"
#include "ktx2_writer.h"
#include "option_rules.h"
#include "outputs.h"

#ifndef BAKE_VERSION
#define BAKE_VERSION "unknown"
#endif

namespace bake {

namespace {

constexpr const char* kTool = "bake-irradiance";

const char* kFooter = R"(Examples:
  bake-irradiance sky.exr -o irr.exr             irradiance cube map, 6 x 32x32
  bake-irradiance sky.hdr -o sky.json --order 5  25 SH coefficients as JSON
  bake-irradiance sky.exr -o irr.exr --specular spec.exr --dfg dfg.png
  bake-irradiance sky.hdr -o irr.ktx2 --specular spec.ktx2 --gltf sky.glb
  bake-irradiance cube_{face}.hdr -o irr.exr     {face}: px nx py ny pz nz
  bake-irradiance sky.exr --golden golden.json   CI: exit 7 if the result moved
  bake-irradiance maps/*.exr --out-dir out --name '{stem}.json' --report r.json
  bake-irradiance --merge-reports merged.json reports/*.json

An output's type follows its extension. All outputs of one input are written to temporary files
and renamed together: all new, or all as they were. Every file the run reads or writes is checked
before any work: one both read and written, or written twice, is a usage error; missing folders
are made (as mkdir -p); --no-clobber refuses to overwrite.

Batch: several inputs, or --out-dir/--name, bake each input in turn; --name patterns (default
'{stem}_irr.exr') name each input's outputs inside --out-dir with {stem} (the file name without
folder and extension), {name} (the file name) and {index} (its position from 1); -o, --golden,
--preview, --specular, --emit, --gltf and --sh-format paths take the same placeholders, and must
with several inputs. A failing input does not stop the others (unless --fail-fast); the exit
code is that of the first input that failed.

Options that would have no effect are usage errors (--tolerance without --compare or --golden,
--specular-size without --specular or --gltf, --size with no map written, ...).

Exit codes: 0 success, 1 internal error, 2 usage error, 3 input (or golden, or report to merge)
unreadable or invalid, 4 output could not be written, 5 GPU demanded (--device gpu, --compare)
but unavailable or failed, 6 --compare beyond tolerance, 7 --golden beyond tolerance, 128+n
stopped by signal n (130 SIGINT, 143 SIGTERM); no temporary file is left.
Conventions (SH basis, axes, layouts): CONVENTION.md in share/doc/bake-irradiance/ (docs/ of the
source), also stated inside every output file. Guides: docs/ of the source.)";


// Validators that say in words what is wanted (CLI11's ranges print DBL_MAX in 309 digits).
CLI::Validator whole_number(long long lo, long long hi) {
    const std::string want = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
    return CLI::Validator(
        [=](std::string& text) {
            errno = 0;
            char* end = nullptr;
            const long long v = std::strtoll(text.c_str(), &end, 10);
            const bool ok = !text.empty() && end && *end == '\0' && errno == 0 && v >= lo && v <= hi;
            return ok ? std::string() : "'" + text + "' is not " + want;
        },
        "");
}

CLI::Validator one_of(const std::vector<std::string>& words) {
    std::string list;
    for (const std::string& w : words) list += (list.empty() ? "" : ", ") + w;
    return CLI::Validator(
        [=](std::string& text) {
            return std::find(words.begin(), words.end(), text) != words.end() ? std::string()
                                                                               : "'" + text + "' is not one of " + list;
        },
        "");
}

// A finite number above `lo` (or at least `lo` when inclusive).
CLI::Validator finite_number(double lo, bool inclusive) {
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", lo);
    const std::string want = std::string("a finite number ") + (inclusive ? "of at least " : "above ") + bound;
    return CLI::Validator(
        [=](std::string& text) {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            const bool ok = !text.empty() && end && *end == '\0' && std::isfinite(v) && (inclusive ? v >= lo : v > lo);
            return ok ? std::string() : "'" + text + "' is not " + want;
        },
        "");
}

// A whole number of at most 19 digits: plain digits, no sign, exponent or overflow (which CLI11 would
// otherwise saturate to "no limit").
CLI::Validator pixel_count() {
    return CLI::Validator(
        [](std::string& text) {
            const bool digits = !text.empty() && text.size() <= 19 &&
                                text.find_first_not_of("0123456789") == std::string::npos;
            if (!digits || std::stoull(text) == 0)
                return "'" + text + "' is not a whole number from 1 to 9999999999999999999";
            return std::string();
        },
        "");
}

std::vector<std::string> power_of_two_words(int most) {
    std::vector<std::string> out;
    for (int v = 1; v <= most; v *= 2) out.push_back(std::to_string(v));
    return out;
}

void add_options(CLI::App& app, Options& o, std::string& jobs) {
    app.footer(kFooter);
    app.formatter(std::make_shared<WrappedHelp>(help_width()));
    app.get_formatter()->column_width(30);
    std::string formats;  // "exr (irradiance map ...), .json (...)", from the registry
    for (const OutputFormat& f : output_formats()) formats += std::string(formats.empty() ? "" : "; ") + f.extension + ": " + f.what;
    app.set_version_flag("--version", std::string(kTool) + " " + BAKE_VERSION);
    app.add_option("input", o.inputs, "Environment map(s): .hdr or .exr (equirect 2:1, cross 4:3/3:4, strip 6:1/1:6, "
                                      "or a pattern with {face}); several make a batch");
    app.add_option("--faces", o.faces, "Six face files (.hdr or .exr) in the order +X -X +Y -Y +Z -Z")
        ->expected(6)
        ->type_name("FILE");
    app.add_option("-o,--output", o.outputs, "Output file, by its extension (" + formats + "); repeatable; one input")
        ->type_name("FILE");
    app.add_option("--out-dir", o.out_dir, "Batch: folder for the outputs named by --name (created if missing)")
        ->type_name("DIR");
    app.add_option("--name", o.names, "Batch: output name pattern with {stem}, {name}, {index}, of any -o type "
                                      "(repeatable; default '{stem}_irr.exr')")
        ->type_name("PATTERN")
        ->allow_extra_args(false);
    app.add_option("--order", o.order, "SH order: 3 (9 coefficients, bands l<=2) or 5 (25, l<=4)")
        ->check(one_of({"3", "5"}))
        ->capture_default_str();
    app.add_option("--size", o.size, "Output face size N (equirect output is 4N x 2N)")
        ->check(whole_number(1, 8192))
        ->capture_default_str();
    app.add_option("--irradiance", o.irradiance, "Irradiance map: sh (from the coefficients) or exact (the source "
                                                 "convolved with the clamped cosine directly)")
        ->check(one_of({"sh", "exact"}))
        ->capture_default_str();
    app.add_option("--window", o.window, "Deringing window on the SH bands: none, hann, lanczos, gauss, or auto (the "
                                         "mildest lanczos window that makes the irradiance non-negative)")
        ->check(one_of({"none", "hann", "lanczos", "gauss", "auto"}))
        ->capture_default_str();
    app.add_option("--window-cutoff", o.window_cutoff, "Cutoff w of hann/lanczos/gauss (0: the window's default)")
        ->check(finite_number(0, true));
    app.add_option("--warn-error", o.warn_error, "Warn when the SH irradiance errs more than this on average "
                                                 "(relative, against the exact convolution), or is negative below "
                                                 "-this times its mean somewhere (ringing)")
        ->check(finite_number(0, true))
        ->capture_default_str();
    app.add_option("--layout", o.layout, "Force the input layout instead of detecting it")
        ->check(one_of({"equirect", "hcross", "vcross", "hstrip", "vstrip"}));
    app.add_option("--output-layout", o.output_layout, "Irradiance map layout")
        ->check(one_of({"cube", "equirect"}))
        ->capture_default_str();
    app.add_option("--device", o.device, "auto: the faster path: the CPU for SH bakes (no OpenGL context) unless a "
                                         "batch's inputs hold 2^27 texels or more (about 16 maps of 4096x2048) and a GPU "
                                         "device exists, the GPU for those, --specular and --irradiance exact unless it "
                                         "is a software rasterizer; any GPU failure falls back to the CPU with one "
                                         "notice line")
        ->check(one_of({"auto", "gpu", "cpu"}))
        ->capture_default_str();
    app.add_option("--gl", o.gl, "OpenGL context: EGL (headless), GLFW (hidden window), or auto")
        ->check(one_of({"auto", "egl", "glfw"}))
        ->capture_default_str();
    app.add_flag("--compare", o.compare, "Run GPU and CPU paths and report their differences");
    app.add_option("--tolerance", o.tolerance, "Largest relative difference --compare and --golden accept")
        ->check(finite_number(0, false))
        ->capture_default_str();
    app.add_option("--golden", o.golden, "Compare the coefficients with this .json (written by this tool); exit 7 "
                                         "if they differ beyond tolerance")
        ->type_name("FILE");
    app.add_option("--abs-tolerance", o.abs_tolerance, "--golden: largest absolute difference accepted")
        ->check(finite_number(0, true));
    app.add_option("--report", o.report, "Write a .json report of the run and every input (docs/report.schema.json)")
        ->type_name("FILE");
    app.add_option("--preview", o.preview, "Write a .png: input and irradiance side by side, lit spheres below")
        ->type_name("FILE");
    app.add_option("--preview-width", o.preview_width, "Preview panel width P (the PNG is 2P x P)")
        ->check(whole_number(16, 8192))
        ->capture_default_str();
    app.add_option("--preview-exposure", o.preview_exposure, "Preview exposure (0: automatic)")
        ->check(finite_number(0, true))
        ->capture_default_str();
    app.add_option("--emit", o.emits, "Write a shader function evaluating the irradiance: LANG glsl (.glsl, "
                                      ".frag, ...) or hlsl (.hlsl, .hlsli, .fx) (repeatable)")
        ->type_name("LANG FILE")
        ->allow_extra_args(false);
    app.add_option("--specular", o.specular, "Write the GGX-prefiltered specular cube map with its mip chain: one "
                                             "mip-mapped .exr, one .exr a level with {level} in the name, a .ktx2 or a "
                                             ".dds")
        ->type_name("FILE");
    app.add_option("--specular-size", o.specular_size, "Face size of the specular chain's level 0 (a power of two)")
        ->check(one_of(power_of_two_words(1024)))
        ->capture_default_str();
    app.add_option("--specular-samples", o.specular_samples, "GGX samples a texel of specular level 1 (x4 a level "
                                                             "after, at most 65536)")
        ->check(whole_number(1, 65536))
        ->capture_default_str();
    app.add_option("--dfg", o.dfg, "Write the split-sum DFG table: .exr (float), .png (16-bit), .ktx2 or .dds")
        ->type_name("FILE");
    app.add_option("--dfg-size", o.dfg_size, "Size of the DFG table and the sheen LUT")
        ->check(whole_number(1, 1024))
        ->capture_default_str();
    app.add_option("--sheen", o.sheen, "Write the environment prefiltered with the Charlie (sheen) lobe of "
                                       "KHR_materials_sheen, as --specular's chain: .exr, .ktx2 or .dds (docs/lobes.md)")
        ->type_name("FILE");
    app.add_option("--sheen-lut", o.sheen_lut, "Write the sheen LUT (directional albedo of the Charlie BRDF over N.V and "
                                               "roughness, as the glTF sample viewer's): .exr, .png (16-bit) or .ktx2")
        ->type_name("FILE");
    app.add_option("--specular-levels", o.specular_levels, "The chains' level count, from --specular-size down (level i "
                                                           "of roughness i/(N-1)); default: down to 1x1")
        ->check(whole_number(1, 11));
    app.add_option("--specular-min-size", o.specular_min_size, "The chains' smallest face (a power of two): the last "
                                                               "level, roughness 1, has this size")
        ->check(one_of(power_of_two_words(1024)));
    app.add_option("--rotate", o.rotate, "Turn the environment about +Y by DEG degrees before anything (positive: +X "
                                         "toward -Z); exact for lat-long maps by whole texel columns")
        ->type_name("DEG")
        ->check(finite_number(-1e6, true));
    app.add_option("--gltf", o.gltf, "Write a glTF (.gltf or .glb) with an EXT_lights_image_based light: the SH "
                                     "irradiance and a GGX chain from --specular-size down to 16x16 as RGBD PNGs")
        ->type_name("FILE");
    app.add_option("--sh-format", o.sh_formats, "Write the order-3 coefficients as an engine takes them: ENGINE "
                                                "threejs (LightProbe .json), filament (cmgen's sh.txt, pre-scaled: "
                                                ".txt), filament-irradiance (.txt), unity (SphericalHarmonicsL2 .json), "
                                                "babylon (SphericalPolynomial .json) (repeatable)")
        ->type_name("ENGINE FILE")
        ->allow_extra_args(false);
    app.add_flag("--extract-sun", o.extract_sun, "Take the dominant sun out of the map and bake everything from the rest; "
                                                 "the sun is stated as a light (direction, illuminance, angular radius) "
                                                 "in the JSON, the report and --gltf (docs/sun.md)");
    app.add_option("--sun-format", o.sun_formats, "With --extract-sun: write the sun as an engine's light, ENGINE threejs "
                                                  "(DirectionalLight .json), filament (LightManager SUN .json), bevy "
                                                  "(DirectionalLight .json); null when no sun was found (repeatable)")
        ->type_name("ENGINE FILE")
        ->allow_extra_args(false);
    app.add_option("--texture-format", o.texture_format, "Texel format of the .ktx2 and .dds outputs: rgba16f, "
                                                         "rgba32f (the only one that keeps a sun), b10g11r11, "
                                                         "e5b9g9r9, bc6h (BC6H_UF16, 1 byte a texel; the DFG table "
                                                         "is then written rgba16f)")
        ->check(one_of({"rgba16f", "rgba32f", "b10g11r11", "e5b9g9r9", "bc6h"}))
        ->capture_default_str();
    app.add_option("--ktx-format", o.ktx_format, "The same as --texture-format (its former name)")
        ->check(one_of({"rgba16f", "rgba32f", "b10g11r11", "e5b9g9r9", "bc6h"}));
    app.add_option("--bc6h-quality", o.bc6h_quality, "BC6H encoding: default (on the GPU where the chain is made), "
                                                     "or thorough (every mode and partition, on the CPU: the "
                                                     "quality reference, ~20x slower)")
        ->check(one_of({"default", "thorough"}))
        ->capture_default_str();
    app.add_option("--ktx-convention", o.ktx_convention, "Whose lookup .ktx2 cube maps are laid out for: gl (the "
                                                         "GL/Vulkan sampler in this tool's right-handed world; "
                                                         "irradiance E) or bevy (EnvironmentMapLight: mirrored in z "
                                                         "for its vec3(N.xy, -N.z) lookup, irradiance E/pi)")
        ->check(one_of({"gl", "bevy"}))
        ->capture_default_str();
    app.add_option("--ktx-zstd", o.ktx_zstd, "Zstandard supercompression level of .ktx2 outputs (0: none)")
        ->check(whole_number(0, 22))
        ->capture_default_str();
    app.add_option("--jobs", jobs, "Batch: decode up to N next inputs on worker threads while one bakes (auto: 2 on "
                                   "the GPU path or with 8+ CPU threads, else 0)")
        ->check(one_of({"auto"}) | whole_number(0, 64))
        ->type_name("N|auto")
        ->capture_default_str();
    app.add_flag("--fail-fast", o.fail_fast, "Batch: stop at the first input that fails");
    app.add_flag("--timings", o.timings, "Print each input's stage times (load, upload, project, reduce, "
                                         "sh error, irradiance, specular, write)");
    app.add_option("--progress", o.progress, "A progress line with percent and time left on stderr: auto (on a "
                                             "terminal, for stages over a second), always (also to a log: a line "
                                             "a second at most), never")
        ->check(one_of({"auto", "always", "never"}))
        ->capture_default_str();
    app.add_option("--shard", o.shard, "Bake only shard K of N (0-based) of the inputs, by a stable hash of their paths: "
                                       "the tasks of a job array run one command; auto: Slurm's SLURM_ARRAY_TASK_ID "
                                       "of an evenly stepped --array (0-15, 0-30:2; not a list), or "
                                       "JOB_COMPLETION_INDEX and BAKE_SHARD_COUNT")
        ->type_name("K/N|auto");
    app.add_option("--merge-reports", o.merge_reports, "Join the reports (given as inputs) of a sharded batch's tasks "
                                                       "into this .json: every input once, or exit 3 naming what is "
                                                       "missing")
        ->type_name("FILE");
    app.add_option("--depfile", o.depfile, "Write a Make/Ninja depfile (.d or .dep): each input's outputs depend on "
                                           "every file read for it")
        ->type_name("FILE");
    app.add_flag("--skip-unchanged", o.skip_unchanged, "Skip an input whose outputs were baked from the same input "
                                                       "bytes, options and tool version (a manifest beside them says)");
    app.add_flag("--no-clobber", o.no_clobber, "Refuse to overwrite an existing output (default: overwrite)");
    app.add_flag("--clamp-negative", o.clamp_negative, "Set negative texel values to 0 before projecting");
    app.add_flag("--replace-nonfinite", o.replace_nonfinite, "Set NaN/Inf texel values to 0 instead of failing");
    app.add_option("--max-pixels", o.max_pixels, "Refuse images with more pixels than this (checked from the header)")
        ->check(pixel_count())
        ->capture_default_str();
    app.add_option("--threads", o.threads, "CPU threads (0: all cores)")->check(whole_number(0, 4096))->capture_default_str();
    app.add_flag("-v,--verbose", o.verbose, "Print the OpenGL context and driver messages");
    app.add_flag("-q,--quiet", o.quiet, "Print only errors");
}

// The error line (without the tool's name) in CLI11's wording, made to say what to do: "--dfg: At Most 1 required but received 2".
std::string usage_line(const CLI::ParseError& e) {
    std::string what = e.what();
    static const std::regex at_most("^(\\S+): At Most 1 required but received ([0-9]+)$");
    std::smatch m;
    if (std::regex_match(what, m, at_most)) what = m[1].str() + ": given " + m[2].str() + " times; it takes one value";
    return one_line(what) + " (see --help)";
}

}  // namespace

ParsedCommandLine parse_command_line(int argc, char** argv) {
    ParsedCommandLine parsed;
    Options& o = parsed.options;
    CLI::App app{"Bakes image-based lighting: projects an HDR environment map onto spherical harmonics "
                 "(order 3 or 5) on the GPU (OpenGL 4.3 compute) or CPU, and writes the irradiance map "
                 "and/or the coefficients.",
                 kTool};
    std::string jobs = "auto";
    add_options(app, o, jobs);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        parsed.exit_code = app.exit(e);
        return parsed;
    } catch (const CLI::CallForAllHelp& e) {
        parsed.exit_code = app.exit(e);
        return parsed;
    } catch (const CLI::CallForVersion& e) {
        parsed.exit_code = app.exit(e);
        return parsed;
    } catch (const CLI::ParseError& e) {
        std::cerr << kTool << ": " << usage_line(e) << "\n";
        parsed.exit_code = kExitUsage;
        return parsed;
    }
    o.tolerance_given = app.count("--tolerance") > 0;
    o.jobs = jobs == "auto" ? -1 : std::stoi(jobs);
    try {
        if (!o.merge_reports.empty()) {
            check_merge_mode(app, o);
            return parsed;
        }
        if (!o.ktx_format.empty()) {  // the older name of --texture-format
            if (app.count("--texture-format") && o.texture_format != o.ktx_format)
                throw CLI::ValidationError("--ktx-format", "is --texture-format's former name: give one of them");
            o.texture_format = o.ktx_format;
        }
        check_inputs_and_outputs(o);
        check_output_names(o);
        check_option_effects(app, o, parsed.warnings);
    } catch (const CLI::ParseError& e) {
        parsed.usage_error = usage_line(e);
        parsed.exit_code = kExitUsage;
    }
    return parsed;
}

namespace {

// The options that shape an input's outputs (--skip-unchanged's manifests: a change of any of them
// bakes again; the output names are in the manifest themselves).
nlohmann::json output_options(const Options& o) {
    nlohmann::json emits = nlohmann::json::array();
    for (const auto& [lang, file] : o.emits) emits.push_back(lang);
    nlohmann::json sh_formats = nlohmann::json::array();
    for (const auto& [engine, file] : o.sh_formats) sh_formats.push_back(engine);
    nlohmann::json sun_formats = nlohmann::json::array();
    for (const auto& [engine, file] : o.sun_formats) sun_formats.push_back(engine);
    nlohmann::json options = {{"order", o.order},
            {"size", o.size},
            {"irradiance", o.irradiance},
            {"window", o.window},
            {"window_cutoff", o.window_cutoff},
            {"layout", o.layout},
            {"output_layout", o.output_layout},
            {"device", o.device},
            {"clamp_negative", o.clamp_negative},
            {"replace_nonfinite", o.replace_nonfinite},
            {"specular_size", o.specular_size},
            {"specular_samples", o.specular_samples},
            {"preview_width", o.preview_width},
            {"preview_exposure", o.preview_exposure},
            {"emit", emits},
            {"sh_format", sh_formats},
            {"ktx_format", o.texture_format},
            {"ktx_zstd", o.ktx_zstd},
            {"ktx_convention", o.ktx_convention}};
    // Options added since the first manifests: stated only when used, so that a manifest written
    // before them still matches a run without them.
    if (o.extract_sun) options["extract_sun"] = true;
    if (!o.sheen.empty()) options["sheen"] = true;
    if (o.rotate != 0) options["rotate"] = o.rotate;
    if (o.specular_levels) options["specular_levels"] = o.specular_levels;
    if (o.specular_min_size) options["specular_min_size"] = o.specular_min_size;
    if (!sun_formats.empty()) options["sun_format"] = sun_formats;
    if (o.bc6h_quality != "default") options["bc6h_quality"] = o.bc6h_quality;
    return options;
}

}  // namespace

nlohmann::json command_json(const Options& o) {
    nlohmann::json names = nlohmann::json::array();
    for (const auto& [lang, file] : o.emits) names.push_back({{"--emit", file}});
    for (const auto& [engine, file] : o.sh_formats) names.push_back({{"--sh-format", file}});
    for (const auto& [engine, file] : o.sun_formats) names.push_back({{"--sun-format", file}});
    return {{"options", output_options(o)},
            {"outputs", o.outputs},
            {"out_dir", o.out_dir},
            {"names", o.names},
            {"golden", o.golden},
            {"preview", o.preview},
            {"specular", o.specular},
            {"gltf", o.gltf},
            {"dfg", o.dfg},
            {"sheen", o.sheen},
            {"sheen_lut", o.sheen_lut},
            {"files_of", names},
            {"skip_unchanged", o.skip_unchanged},
            {"fail_fast", o.fail_fast}};
}

BakeSettings bake_settings(const Options& o) {
    BakeSettings s;
    if (!o.layout.empty()) s.load.layout = parse_layout(o.layout);
    s.load.max_pixels = o.max_pixels;
    s.clamp_negative = o.clamp_negative;
    s.replace_nonfinite = o.replace_nonfinite;
    s.order = o.order;
    s.map = MapShape{o.output_layout == "equirect", o.size};
    s.exact_map = o.irradiance == "exact";
    s.window = *parse_sh_window(o.window);
    s.window_cutoff = o.window_cutoff;
    s.warn_error = o.warn_error;
    s.compare = o.compare;
    s.tolerance = o.tolerance;
    s.golden.relative = o.tolerance;
    s.golden.relative_in_force = o.tolerance_given || !o.abs_tolerance;
    s.golden.absolute_in_force = o.abs_tolerance.has_value();
    s.golden.absolute = o.abs_tolerance.value_or(0);
    s.specular.base_size = o.specular_size;
    s.specular.samples = o.specular_samples;
    if (o.specular_levels) s.specular.set_levels(o.specular_levels);  // (checked against the size by the rules)
    if (o.specular_min_size) s.specular.set_min_size(o.specular_min_size);
    s.sheen = s.specular;
    s.sheen.lobe = SpecularLobe::Charlie;
    s.rotate_degrees = o.rotate;
    parse_texture_format(o.texture_format, &s.ktx.format);
    s.ktx.bc6h_quality = o.bc6h_quality == "thorough" ? Bc6hQuality::Thorough : Bc6hQuality::Default;
    s.ktx.zstd_level = o.ktx_zstd;
    parse_ktx_cube_convention(o.ktx_convention, &s.ktx_convention);
    s.ktx.threads = o.threads;
    s.preview_width = o.preview_width;
    s.preview_exposure = o.preview_exposure;
    s.threads = o.threads;
    s.extract_sun = o.extract_sun;
    s.generator = std::string(kTool) + " " + BAKE_VERSION;
    if (o.skip_unchanged) s.fingerprint = output_options(o).dump();
    return s;
}

}  // namespace bake
