#include "option_rules.h"

#include <algorithm>

#include "environment_loader.h"
#include "file_names.h"
#include "ggx.h"
#include "outputs.h"
#include "shader_snippet.h"

namespace bake {

namespace {

// A GPU texture container: KTX2 or DDS (--texture-format's files).
bool is_texture_file(const std::string& path) { return has_extension(path, ".ktx2") || has_extension(path, ".dds"); }

// The last path component has a name before its extension ("out/.exr" would be a hidden file).
void check_file_name(const std::string& path, const char* option) {
    const std::size_t slash = path.find_last_of('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::size_t dot = name.find_last_of('.');
    if (name.empty() || dot == 0)
        throw CLI::ValidationError(option, "'" + path + "' has no file name before its extension");
}

// Run-level files (--report, --dfg) are one file a run: a placeholder in them is a mistake.
void check_no_placeholder(const std::string& path, const char* option) {
    if (path.find('{') != std::string::npos)
        throw CLI::ValidationError(option, "'" + path + "' holds a placeholder, but " + option +
                                               " names one file for the whole run");
}

}  // namespace

// What each output is, and the file names' rules.
void check_output_names(const Options& o) {
    for (const std::string& out : o.batch() ? o.names : o.outputs) {
        const char* option = o.batch() ? "--name" : "--output";
        if (!output_format_for(out)) {
            std::string extensions;
            for (const OutputFormat& f : output_formats()) extensions += std::string(extensions.empty() ? "" : " or ") + f.extension;
            throw CLI::ValidationError(option, "'" + out + "' must end in " + extensions);
        }
        check_file_name(out, option);
    }
    for (const auto& [lang, file] : o.emits) {
        const std::optional<ShaderLanguage> language = parse_shader_language(lang);
        if (!language) throw CLI::ValidationError("--emit", "'" + lang + "' is not glsl or hlsl");
        check_file_name(file, "--emit");
        // A GLSL function in a .hlsl file (or the reverse) would be included by the wrong compiler.
        const bool glsl_name = has_extension(file, ".hlsl") || has_extension(file, ".hlsli") || has_extension(file, ".fx");
        const bool hlsl_name = has_extension(file, ".glsl") || has_extension(file, ".vert") || has_extension(file, ".frag") ||
                               has_extension(file, ".comp");
        if ((*language == ShaderLanguage::Glsl && glsl_name) || (*language == ShaderLanguage::Hlsl && hlsl_name))
            throw CLI::ValidationError("--emit", "'" + file + "' is named as the other language's file; --emit " + lang +
                                                     " writes " + lang + " source");
    }
    if (!o.specular.empty()) {
        if (!has_extension(o.specular, ".exr") && !is_texture_file(o.specular))
            throw CLI::ValidationError("--specular", "'" + o.specular + "' must end in .exr, .ktx2 or .dds");
        if (is_texture_file(o.specular) && o.specular.find("{level}") != std::string::npos)
            throw CLI::ValidationError("--specular", "'" + o.specular + "': a KTX2 file holds every level; {level} is for .exr");
        check_file_name(o.specular, "--specular");
    }
    if (!o.gltf.empty()) {
        if (!has_extension(o.gltf, ".gltf") && !has_extension(o.gltf, ".glb"))
            throw CLI::ValidationError("--gltf", "'" + o.gltf + "' must end in .gltf or .glb");
        check_file_name(o.gltf, "--gltf");
    }
    for (const auto& [engine, file] : o.sh_formats) {
        if (!parse_sh_engine(engine))
            throw CLI::ValidationError("--sh-format", "'" + engine + "' is not one of threejs, filament, filament-irradiance, unity, babylon");
        // Filament's sh.txt is text as cmgen writes it; the others are JSON.
        const char* extension = engine.rfind("filament", 0) == 0 ? ".txt" : ".json";
        if (!has_extension(file, extension))
            throw CLI::ValidationError("--sh-format", "'" + file + "' must end in " + extension + " (--sh-format " + engine +
                                                          " writes " + (extension[1] == 't' ? "text" : "JSON") + ")");
        check_file_name(file, "--sh-format");
    }
    for (const auto& [engine, file] : o.sun_formats) {
        if (!parse_sun_engine(engine))
            throw CLI::ValidationError("--sun-format", "'" + engine + "' is not one of threejs, filament, bevy");
        if (!has_extension(file, ".json"))
            throw CLI::ValidationError("--sun-format", "'" + file + "' must end in .json (--sun-format writes JSON)");
        check_file_name(file, "--sun-format");
    }
    if (!o.sheen.empty()) {
        if (!has_extension(o.sheen, ".exr") && !is_texture_file(o.sheen))
            throw CLI::ValidationError("--sheen", "'" + o.sheen + "' must end in .exr, .ktx2 or .dds");
        if (is_texture_file(o.sheen) && o.sheen.find("{level}") != std::string::npos)
            throw CLI::ValidationError("--sheen", "'" + o.sheen + "': a " + (has_extension(o.sheen, ".dds") ? "DDS" : "KTX2") +
                                                      " file holds every level; {level} is for .exr");
        check_file_name(o.sheen, "--sheen");
    }
    if (!o.sheen_lut.empty()) {
        if (!has_extension(o.sheen_lut, ".exr") && !has_extension(o.sheen_lut, ".png") && !has_extension(o.sheen_lut, ".ktx2"))
            throw CLI::ValidationError("--sheen-lut", "'" + o.sheen_lut + "' must end in .exr, .png or .ktx2");
        check_file_name(o.sheen_lut, "--sheen-lut");
        check_no_placeholder(o.sheen_lut, "--sheen-lut");
    }
    if (!o.dfg.empty()) {
        if (!has_extension(o.dfg, ".exr") && !has_extension(o.dfg, ".png") && !is_texture_file(o.dfg))
            throw CLI::ValidationError("--dfg", "'" + o.dfg + "' must end in .exr, .png, .ktx2 or .dds");
        check_file_name(o.dfg, "--dfg");
        check_no_placeholder(o.dfg, "--dfg");
    }
    if (!o.preview.empty()) {
        if (!has_extension(o.preview, ".png"))
            throw CLI::ValidationError("--preview", "'" + o.preview + "' must end in .png");
        check_file_name(o.preview, "--preview");
    }
    if (!o.report.empty()) {
        if (!has_extension(o.report, ".json"))
            throw CLI::ValidationError("--report", "'" + o.report + "' must end in .json (the report is JSON)");
        check_file_name(o.report, "--report");
        check_no_placeholder(o.report, "--report");
    }
    if (!o.depfile.empty()) {
        if (!has_extension(o.depfile, ".d") && !has_extension(o.depfile, ".dep"))
            throw CLI::ValidationError("--depfile", "'" + o.depfile + "' must end in .d or .dep (a Make/Ninja depfile)");
        check_file_name(o.depfile, "--depfile");
        check_no_placeholder(o.depfile, "--depfile");
    }
}

// One rule for every option: one that would change nothing in this run is a usage error naming
// it, because whoever wrote it believes it does something. --jobs and --fail-fast with a single
// input are only warned about: how many inputs there are comes from a shell glob, not the user.
void check_option_effects(const CLI::App& app, const Options& o, std::vector<std::string>& warnings) {
    auto given = [&](const char* option) { return app.count(option) > 0; };
    auto refuse = [](const char* option, const std::string& why) { throw CLI::ValidationError(option, "has no effect " + why); };
    if (o.quiet && o.verbose) throw CLI::ValidationError("--quiet", "contradicts --verbose: give one of them");
    if (o.compare && o.device == "cpu")
        throw CLI::ValidationError("--compare", "checks the GPU path against the CPU path: it cannot run with --device cpu");

    if (!o.has_input()) {
        for (const char* option : {"--order", "--size", "--irradiance", "--window", "--window-cutoff", "--warn-error",
                                   "--layout", "--output-layout", "--device", "--gl", "--compare", "--tolerance",
                                   "--golden", "--abs-tolerance", "--preview", "--preview-width", "--preview-exposure",
                                   "--emit", "--specular", "--specular-size", "--specular-samples", "--jobs",
                                   "--fail-fast", "--timings", "--clamp-negative", "--replace-nonfinite",
                                   "--max-pixels", "--output", "--out-dir", "--name", "--shard", "--depfile",
                                   "--skip-unchanged", "--gltf", "--sh-format", "--ktx-convention", "--extract-sun",
                                   "--sun-format", "--sheen", "--rotate", "--specular-levels", "--specular-min-size"})
            if (given(option)) refuse(option, "without an input (--dfg and --sheen-lut alone bake no environment)");
        return;
    }
    auto needs_map = [](const std::string& n) {
        const OutputFormat* f = output_format_for(n);
        return f && f->needs_map;
    };
    const bool map_written = o.batch() ? (o.names.empty() || std::any_of(o.names.begin(), o.names.end(), needs_map))
                                       : std::any_of(o.outputs.begin(), o.outputs.end(), needs_map);
    const bool map_made = map_written || o.compare;  // --compare compares the maps too
    if (!map_made) {
        std::vector<std::string> extensions;  // from the registry
        for (const OutputFormat& f : output_formats())
            if (f.needs_map) extensions.push_back(f.extension);
        std::string map_formats;  // ".exr, .ktx2 or .dds"
        for (std::size_t i = 0; i < extensions.size(); ++i)
            map_formats += (i == 0 ? "" : i + 1 == extensions.size() ? " or " : ", ") + extensions[i];
        const std::string why = "without an irradiance map (an " + map_formats + " output, or --compare)";
        for (const char* option : {"--size", "--output-layout"})
            if (given(option)) refuse(option, why);
        if (o.irradiance == "exact") refuse("--irradiance", "(exact) " + why);
    }
    if (given("--tolerance") && !o.compare && o.golden.empty()) refuse("--tolerance", "without --compare or --golden");
    if (given("--abs-tolerance") && o.golden.empty()) refuse("--abs-tolerance", "without --golden");
    if (o.specular.empty() && o.gltf.empty() && o.sheen.empty())
        for (const char* option : {"--specular-size", "--specular-samples"})
            if (given(option)) refuse(option, "without --specular, --sheen or --gltf");
    if (given("--dfg-size") && o.dfg.empty() && o.sheen_lut.empty()) refuse("--dfg-size", "without --dfg or --sheen-lut");
    if (given("--specular-levels") && given("--specular-min-size"))
        throw CLI::ValidationError("--specular-levels", "and --specular-min-size both set the chain's length: give one");
    if (o.specular.empty() && o.sheen.empty())
        for (const char* option : {"--specular-levels", "--specular-min-size"})
            if (given(option)) refuse(option, "without --specular or --sheen (--gltf's chain stops at 16x16)");
    if (given("--specular-levels") && o.specular_levels > specular_level_count(o.specular_size))
        throw CLI::ValidationError("--specular-levels", std::to_string(o.specular_levels) + " levels from --specular-size " +
                                                            std::to_string(o.specular_size) + ": at most " +
                                                            std::to_string(specular_level_count(o.specular_size)));
    if (given("--specular-min-size") && o.specular_min_size > o.specular_size)
        throw CLI::ValidationError("--specular-min-size", std::to_string(o.specular_min_size) + " is larger than --specular-size " +
                                                              std::to_string(o.specular_size));
    if (given("--sun-format") && !o.extract_sun) refuse("--sun-format", "without --extract-sun");
    // --gltf's chain runs from --specular-size down to 16x16 (roughness 1 there): below 32 it would
    // be one level, a mirror, with no rough reflections at all.
    if (!o.gltf.empty() && o.specular_size < 2 * kGltfLastSize)
        throw CLI::ValidationError("--specular-size", std::to_string(o.specular_size) + " leaves --gltf one level (its chain runs "
                                                      "down to 16x16, roughness 1 there): give 32 or more");
    // Every engine layout of --sh-format is order 3: an order-5 bake writes its first 9 there.
    if (o.order == 5)
        for (const auto& [engine, file] : o.sh_formats)
            warnings.push_back("warning: --sh-format " + engine + " takes order 3: " + file +
                               " holds the first 9 of the 25 coefficients of --order 5");
    auto is_ktx2 = [](const std::string& n) { return has_extension(n, ".ktx2"); };
    const bool texture_map_written = std::any_of(o.outputs.begin(), o.outputs.end(), is_texture_file) ||
                                     std::any_of(o.names.begin(), o.names.end(), is_texture_file);
    const bool texture_written = is_texture_file(o.specular) || is_texture_file(o.dfg) || texture_map_written;
    if (!texture_written)
        for (const char* option : {"--texture-format", "--ktx-format", "--bc6h-quality"})
            if (given(option)) refuse(option, "without a .ktx2 or .dds output");
    const bool ktx_written = is_ktx2(o.specular) || is_ktx2(o.dfg) || std::any_of(o.outputs.begin(), o.outputs.end(), is_ktx2) ||
                             std::any_of(o.names.begin(), o.names.end(), is_ktx2);
    if (given("--ktx-zstd") && !ktx_written) refuse("--ktx-zstd", "without a .ktx2 output (DDS has no supercompression)");
    if (given("--bc6h-quality") && o.texture_format != "bc6h") refuse("--bc6h-quality", "without --texture-format bc6h");
    const bool texture_cube_written = is_texture_file(o.specular) || (texture_map_written && o.output_layout == "cube");
    if (given("--ktx-convention") && !texture_cube_written)
        refuse("--ktx-convention", "without a .ktx2 or .dds cube map (--specular NAME.ktx2, or -o NAME.ktx2 with "
                                   "--output-layout cube)");
    // Bevy's EnvironmentMapLight takes cubes only: a lat-long .ktx2 beside a Bevy cube would be taken for one.
    if (o.ktx_convention == "bevy" && texture_map_written && o.output_layout == "equirect")
        throw CLI::ValidationError("--ktx-convention", "bevy lays out cube maps for Bevy's EnvironmentMapLight, which "
                                                       "takes no lat-long map: drop --output-layout equirect for the .ktx2 "
                                                       "irradiance map");
    if (o.preview.empty())
        for (const char* option : {"--preview-width", "--preview-exposure"})
            if (given(option)) refuse(option, "without --preview");
    if (given("--gl") && o.device == "cpu") refuse("--gl", "with --device cpu (no OpenGL context is made)");
    if (given("--window-cutoff") && (o.window == "none" || o.window == "auto"))
        refuse("--window-cutoff", "without --window hann, lanczos or gauss");
    if (given("--layout") && (!o.faces.empty() || std::any_of(o.inputs.begin(), o.inputs.end(), [](const std::string& in) {
                                  return expand_face_pattern(in).has_value();
                              })))
        refuse("--layout", "on six face files: they are a cube already (--layout applies to single images)");
    const std::size_t inputs = o.faces.empty() ? o.inputs.size() : 1;
    if (inputs <= 1)
        for (const char* option : {"--jobs", "--fail-fast"})
            if (given(option)) warnings.push_back(std::string("warning: ") + option + " has no effect with a single input");
}

// --merge-reports: its inputs are reports; nothing else applies.
void check_merge_mode(const CLI::App& app, const Options& o) {
    if (o.inputs.empty()) throw CLI::ValidationError("--merge-reports", "give the shards' reports to join as inputs");
    for (const CLI::Option* opt : app.get_options()) {
        if (opt->count() == 0 || opt->get_lnames().empty()) continue;  // the inputs have no long name
        const std::string name = opt->get_lnames().front();
        if (name != "merge-reports" && name != "quiet")
            throw CLI::ValidationError("--merge-reports", "joins reports: --" + name + " has no effect with it");
    }
    check_file_name(o.merge_reports, "--merge-reports");
    if (!has_extension(o.merge_reports, ".json"))
        throw CLI::ValidationError("--merge-reports", "'" + o.merge_reports + "' must end in .json (the merged report is JSON)");
}

void check_inputs_and_outputs(const Options& o) {
    if (!o.inputs.empty() && !o.faces.empty())
        throw CLI::ValidationError("--faces", "give either input files or --faces with six files, not both");
    if (!o.has_input() && o.dfg.empty() && o.sheen_lut.empty())
        throw CLI::ValidationError("input", "give an input file (or --faces with six files), or --dfg or --sheen-lut alone");
    if (o.batch() && !o.faces.empty())
        throw CLI::ValidationError("--faces", "one environment; for several cubes use {face} patterns as inputs");
    if (!o.outputs.empty() && (!o.out_dir.empty() || !o.names.empty()))
        throw CLI::ValidationError("--output", o.inputs.size() > 1
                                                   ? "-o names the output of one input; with several inputs use "
                                                     "--out-dir and --name patterns"
                                                   : "give -o for the outputs of one input, or --out-dir with --name "
                                                     "patterns, not both");
    if (o.batch() && !o.outputs.empty())
        throw CLI::ValidationError("--output", "-o names the output of one input; with several inputs use --out-dir "
                                               "and --name patterns");
    if (o.has_input() && o.outputs.empty() && o.names.empty() && o.out_dir.empty() && !o.compare && o.golden.empty() &&
        o.preview.empty() && o.emits.empty() && o.report.empty() && o.specular.empty() && o.sheen.empty() && o.dfg.empty() && o.sheen_lut.empty() && o.depfile.empty() &&
        o.gltf.empty() && o.sh_formats.empty() && o.sun_formats.empty())
        throw CLI::ValidationError("--output", "nothing to do: give -o out.exr and/or -o out.json");
    // Each exact texel sums every cell of the source (up to 131072): beyond 6 x 256^2 outputs
    // a bake would take minutes on the CPU path.
    const long long map_texels = o.output_layout == "equirect" ? 8LL * o.size * o.size : 6LL * o.size * o.size;
    if (o.irradiance == "exact" && map_texels > 6LL * 256 * 256)
        throw CLI::ValidationError("--size", "--irradiance exact makes maps of at most 6 x 256^2 texels "
                                             "(--size 256 cube, 221 lat-long)");
}

}  // namespace bake
