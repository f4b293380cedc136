#include "outputs.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <thread>

#include "atomic_file.h"
#include "file_guard.h"
#include "dfg.h"
#include "dfg_files.h"
#include "sheen_lut.h"
#include "sheen_lut_files.h"
#include "engine_sh.h"
#include "gltf_ibl.h"
#include "ibl_dds.h"
#include "ibl_ktx2.h"
#include "bake_manifest.h"
#include "environment_loader.h"
#include "file_names.h"
#include "ggx.h"
#include "specular_io.h"
#include "image_io.h"
#include "preview_image.h"
#include "shader_snippet.h"
#include "stop_request.h"
#include "sun_lights.h"

namespace bake {

namespace {

DdsWriteOptions dds_options(const KtxWriteOptions& ktx) { return {ktx.format, ktx.bc6h_quality, ktx.threads}; }

// Issue 18 #16: the map did not say what it holds. Its header does now, as string attributes.
ExrAttributes irradiance_map_attributes(const BakeProducts& p) {
    const nlohmann::json convention = convention_json();
    const BakeRecord& r = p.record;
    std::string sources;
    for (const std::string& f : r.inputs) sources += (sources.empty() ? "" : ", ") + f;
    const std::string window = r.window.is_object() ? r.window.value("kind", "none") : "none";
    const std::string method =
        p.settings.exact_map ? "the exact convolution of the source (" + r.irradiance_map.value("cells", std::string()) + ")"
                             : "SH of order " + std::to_string(r.irradiance.order) + ", window " + window;
    return {
        {"bakeQuantity", "irradiance E(n): the source convolved with the clamped cosine max(0, n.l), not divided by "
                         "pi (a white Lambertian surface shows E/pi); radiance units times sr"},
        {"bakeMethod", method},
        {"bakeSource", sources},
        {"bakeLayout", p.settings.map.equirect ? "lat-long: " + convention["equirect"].get<std::string>()
                                               : "cube as a vertical strip, faces top to bottom: " +
                                                     convention["cube_faces"].get<std::string>()},
        {"bakeConvention", "docs/CONVENTION.md of bake-irradiance: " + convention["axes"].get<std::string>()},
        {"bakeGenerator", p.settings.generator},
    };
}

void write_irradiance_exr(const std::string& path, const BakeProducts& p) {
    write_exr(path, *p.map, p.settings.map.equirect ? EnvmapHint::LatLong : EnvmapHint::Cube, irradiance_map_attributes(p));
}

void write_coefficients(const std::string& path, const BakeProducts& p) { write_coefficients_json(path, p.record); }

// The map as a KTX2 texture: a cube (faceCount 6, faces +X -X +Y -Y +Z -Z) or a 2D lat-long.
void write_irradiance_ktx2(const std::string& path, const BakeProducts& p) {
    if (p.settings.map.equirect) write_irradiance_equirect_ktx2(path, *p.map, p.settings.ktx);
    else write_irradiance_cube_ktx2(path, extract_cube(*p.map, Layout::VStrip), p.settings.ktx, p.settings.ktx_convention);
}

// The same as DDS (DX10 header; a cube flagged TEXTURECUBE).
void write_irradiance_dds(const std::string& path, const BakeProducts& p) {
    const DdsWriteOptions dds = dds_options(p.settings.ktx);
    if (p.settings.map.equirect) write_irradiance_equirect_dds(path, *p.map, dds);
    else write_irradiance_cube_dds(path, extract_cube(*p.map, Layout::VStrip), dds, p.settings.ktx_convention);
}

void filament_prescaled(const std::string& path, const ShCoefficients& radiance) {
    write_filament_sh(path, radiance, FilamentSh::PreScaled);
}
void filament_irradiance(const std::string& path, const ShCoefficients& radiance) {
    write_filament_sh(path, radiance, FilamentSh::Irradiance);
}

}  // namespace

const std::vector<OutputFormat>& output_formats() {
    static const std::vector<OutputFormat> formats = {
        {".exr", "irradiance map (float RGB OpenEXR)", true, write_irradiance_exr},
        {".json", "SH coefficients and their convention", false, write_coefficients},
        {".ktx2", "irradiance map (KTX2: a cube of 6 faces, or 2D lat-long; --texture-format, --ktx-convention)", true,
         write_irradiance_ktx2},
        {".dds", "irradiance map (DDS: a cube of 6 faces, or 2D lat-long; --texture-format, --ktx-convention)", true,
         write_irradiance_dds},
    };
    return formats;
}

const OutputFormat* output_format_for(const std::string& path) {
    for (const OutputFormat& f : output_formats())
        if (has_extension(path, f.extension)) return &f;
    return nullptr;
}

namespace {
nlohmann::json threejs_sun(const Sun& sun) { return threejs_sun_json(sun); }
// Filament evaluates our SH and cube at the world direction as they are (--sh-format filament is
// not mirrored): its sun is not either.
nlohmann::json filament_sun(const Sun& sun) { return filament_sun_json(sun, 1.0, false); }
nlohmann::json bevy_sun(const Sun& sun) { return bevy_sun_json(sun); }
}  // namespace

SunWriter parse_sun_engine(const std::string& name) {
    if (name == "threejs") return threejs_sun;
    if (name == "filament") return filament_sun;
    if (name == "bevy") return bevy_sun;
    return nullptr;
}

ShWriter parse_sh_engine(const std::string& name) {
    if (name == "threejs") return write_threejs_light_probe;
    if (name == "filament") return filament_prescaled;
    if (name == "filament-irradiance") return filament_irradiance;
    if (name == "unity") return write_unity_sh;
    if (name == "babylon") return write_babylon_sh;
    return nullptr;
}

std::vector<JobFile> job_files(const BakeJob& job, const BakeSettings& settings) {
    std::vector<JobFile> files;
    if (!job.faces.empty()) {
        for (const std::string& f : job.faces) files.push_back({f, "--faces", JobFile::Read});
    } else if (const auto faces = expand_face_pattern(job.label)) {
        for (const std::string& f : *faces) files.push_back({f, "input", JobFile::Read});
    } else {
        files.push_back({job.label, "input", JobFile::Read});
    }
    if (!job.golden.empty()) files.push_back({job.golden, "--golden", JobFile::Read});
    const std::size_t first_output = files.size();
    auto written = [&](const std::string& path, const char* option) { files.push_back({path, option, JobFile::Write}); };
    // In write_outputs' order.
    if (!job.specular.empty()) {
        const int levels = has_level_placeholder(job.specular) ? settings.specular.levels() : 1;
        for (int level = 0; level < levels; ++level)
            written(levels > 1 ? expand_level_placeholder(job.specular, level) : job.specular, "--specular");
    }
    if (!job.sheen.empty()) {
        const int levels = has_level_placeholder(job.sheen) ? settings.sheen.levels() : 1;
        for (int level = 0; level < levels; ++level)
            written(levels > 1 ? expand_level_placeholder(job.sheen, level) : job.sheen, "--sheen");
    }
    for (const std::string& out : job.outputs) written(out, job.named ? "--name" : "--output");
    if (!job.preview.empty()) written(job.preview, "--preview");
    for (const auto& e : job.emits) written(e.second, "--emit");
    for (const auto& e : job.sh_formats) written(e.second, "--sh-format");
    for (const auto& e : job.sun_formats) written(e.second, "--sun-format");
    if (!job.gltf.empty()) {
        SpecularSettings chain = settings.specular;
        chain.last_size = std::min(settings.gltf_last_size, chain.base_size);
        for (const std::string& f : gltf_output_files(job.gltf, chain.levels())) written(f, "--gltf");
    }
    // --skip-unchanged: the manifest beside the first output; one beside any other output is an
    // older bake's of this input with other outputs (removed when this one is written).
    if (!settings.fingerprint.empty() && files.size() > first_output) {
        const std::size_t last = files.size();
        for (std::size_t i = first_output; i < last; ++i)
            files.push_back({manifest_path(files[i].path), "--skip-unchanged", JobFile::Manifest});
    }
    return files;
}

std::vector<std::string> planned_outputs(const BakeJob& job, const BakeSettings& settings) {
    std::vector<std::string> out;
    for (const JobFile& f : job_files(job, settings))
        if (f.role == JobFile::Write) out.push_back(f.path);
    return out;
}

std::vector<std::string> input_files(const BakeJob& job) {
    std::vector<std::string> in;
    for (const JobFile& f : job_files(job, BakeSettings{}))
        if (f.role == JobFile::Read) in.push_back(f.path);
    return in;
}

bool outputs_need_map(const BakeJob& job) {
    return std::any_of(job.outputs.begin(), job.outputs.end(), [](const std::string& out) {
        const OutputFormat* f = output_format_for(out);
        return f && f->needs_map;
    });
}

std::vector<std::string> clipping_warnings(const BakeJob& job, const BakeSettings& settings, const Image* map,
                                           const SpecularBake* specular, const SpecularBake* sheen,
                                           const SpecularBake* gltf_chain) {
    std::vector<std::string> lines;
    char share[32];
    const TextureFormat format = settings.ktx.format;
    auto texture_file = [](const std::string& f) { return has_extension(f, ".ktx2") || has_extension(f, ".dds"); };
    auto say = [&](const std::string& file, const ClipReport& c) {
        if (c.clipped == 0) return;
        char line[160];
        std::snprintf(line, sizeof line, " holds values up to %g: %zu texels clipped, level %d loses %.3g%% of its energy",
                      texture_format_max(format), c.clipped, c.worst_level, 100 * c.energy_lost);
        lines.push_back("warning: " + file + ": " + texture_format_name(format) + line +
                        "; --texture-format rgba32f keeps a sun, --extract-sun takes it out");
    };
    if (specular && texture_file(job.specular))
        say(job.specular, measure_clipping(format, cube_chain_images(specular->chain), TextureDomain::Cube));
    if (sheen && texture_file(job.sheen))
        say(job.sheen, measure_clipping(format, cube_chain_images(sheen->chain), TextureDomain::Cube));
    if (map)
        for (const std::string& out : job.outputs) {
            if (!texture_file(out)) continue;
            if (settings.map.equirect) {
                say(out, measure_clipping(format, image_2d_images(*map), TextureDomain::Equirect));
            } else {
                const std::vector<CubeMap> cube = {irradiance_cube_for(extract_cube(*map, Layout::VStrip), settings.ktx_convention)};
                say(out, measure_clipping(format, cube_chain_images(cube), TextureDomain::Cube));
            }
        }
    if (gltf_chain) {
        const RgbdClipping c = rgbd_clipping(gltf_chain->chain);
        if (c.texels > 0) {
            std::snprintf(share, sizeof share, "%.3g%%", 100 * c.energy_share);
            lines.push_back("warning: " + job.gltf + ": RGBD PNGs hold values up to 255: " + std::to_string(c.texels) +
                            " texels clipped, level " + std::to_string(c.worst_level) + " loses " + share +
                            " of its energy; --specular as .exr, or .ktx2 with --ktx-format rgba32f, keeps a sun");
        }
    }
    return lines;
}

void write_sheen_lut_table(const std::string& path, int size, int threads, const KtxWriteOptions& ktx) {
    const Image table = compute_sheen_lut(size, threads);
    KtxWriteOptions options = ktx;  // as the DFG table: no HDR colour for BC6H
    if (options.format == TextureFormat::Bc6hUFloat) options.format = TextureFormat::Rgba16Float;
    if (has_extension(path, ".png")) write_sheen_lut_png16(path, table);
    else if (has_extension(path, ".ktx2")) write_sheen_lut_ktx2(path, table, options);
    else write_sheen_lut_exr(path, table);
}

void write_dfg_table(const std::string& path, int size, int threads, const KtxWriteOptions& ktx) {
    const Image table = compute_dfg_table(size, threads);
    // Two terms in [0, 1] and their sum are no HDR colour for BC6H (its shared endpoints would tie
    // the terms of a block together): under bc6h the table is written rgba16f.
    KtxWriteOptions options = ktx;
    if (options.format == TextureFormat::Bc6hUFloat) options.format = TextureFormat::Rgba16Float;
    if (has_extension(path, ".png")) write_dfg_png16(path, table);
    else if (has_extension(path, ".ktx2")) write_dfg_ktx2(path, table, options);
    else if (has_extension(path, ".dds")) write_dfg_dds(path, table, dds_options(options));
    else write_dfg_exr(path, table);
}

namespace {

// BAKE_TEST_FAULT=slow-commit:NAME (a test hook): the input whose label ends with NAME waits 2 s
// with its files staged before it commits (tests/test_cli_write_overlap.cpp: commits in order).
void injected_commit_delay(const std::string& label) {
    const char* fault = std::getenv("BAKE_TEST_FAULT");
    if (!fault || std::strncmp(fault, "slow-commit:", 12) != 0) return;
    const std::string name = fault + 12;
    if (!name.empty() && label.size() >= name.size() && label.compare(label.size() - name.size(), name.size(), name) == 0)
        std::this_thread::sleep_for(std::chrono::seconds(2));
}

}  // namespace

namespace {

// A chain's file (--specular, --sheen): EXR (one mip-mapped file, or one a level), KTX2 or DDS, from
// its BC6H blocks when they were made where it was. Returns the files written.
std::vector<std::string> write_chain(const std::string& path, const SpecularBake& bake, const BakeSettings& s) {
    const bool blocks = !bake.bc6h.levels.empty();
    if (has_extension(path, ".ktx2")) {
        if (blocks) write_specular_ktx2(path, bake.bc6h, s.ktx, s.ktx_convention, {}, bake.settings.lobe);
        else write_specular_ktx2(path, bake.chain, s.ktx, s.ktx_convention, {}, bake.settings.lobe);
        return {path};
    }
    if (has_extension(path, ".dds")) {
        if (blocks) write_specular_dds(path, bake.bc6h);
        else write_specular_dds(path, bake.chain, dds_options(s.ktx), s.ktx_convention);
        return {path};
    }
    return write_specular(path, bake);
}

}  // namespace

void write_outputs(const BakeProducts& p, FileReport& rep, const std::function<void()>& before_commit) {
    const BakeJob& job = p.job;
    FileReport written;  // what goes into rep once the whole set is in place
    OutputSet set;
    {
        const OutputSet::Scope every_write_joins_the_set(set);
        if (p.specular) {
            const std::vector<std::string> files = write_chain(job.specular, *p.specular, p.settings);
            written.outputs.insert(written.outputs.end(), files.begin(), files.end());
            written.specular = specular_json(*p.specular, files);
        }
        if (p.sheen) {
            const std::vector<std::string> files = write_chain(job.sheen, *p.sheen, p.settings);
            written.outputs.insert(written.outputs.end(), files.begin(), files.end());
            written.sheen = specular_json(*p.sheen, files);
        }
        for (const std::string& out : job.outputs) {
            output_format_for(out)->write(out, p);
            written.outputs.push_back(out);
        }
        if (!job.preview.empty()) {
            PreviewOptions po;
            po.panel_width = p.settings.preview_width;
            po.exposure = p.settings.preview_exposure;
            if (p.specular) po.specular = &p.specular->chain;
            const PreviewImage preview = make_preview(*p.env, p.record.irradiance, po);
            write_preview_png(job.preview, preview);
            written.outputs.push_back(job.preview);
            written.preview = {{"file", job.preview}, {"exposure", preview.exposure}};
        }
        for (const auto& [language, file] : job.emits) {
            write_text_atomically(file, emit_shader_snippet(language, p.record.irradiance, job.label));
            written.outputs.push_back(file);
            written.emitted.push_back({{"language", language == ShaderLanguage::Glsl ? "glsl" : "hlsl"}, {"file", file}});
        }
        for (const auto& [engine, file] : job.sh_formats) {
            parse_sh_engine(engine)(file, p.record.radiance);
            written.outputs.push_back(file);
        }
        for (const auto& [engine, file] : job.sun_formats) {
            const nlohmann::json light = p.sun ? parse_sun_engine(engine)(*p.sun) : nlohmann::json();
            write_text_atomically(file, light.dump(1) + "\n");
            written.outputs.push_back(file);
        }
        if (p.gltf_chain) {
            write_gltf_ibl(job.gltf, p.gltf_chain->chain, p.record.radiance, p.sun);
            for (const std::string& f : gltf_output_files(job.gltf, static_cast<int>(p.gltf_chain->chain.size())))
                written.outputs.push_back(f);
        }
    }
    // --skip-unchanged: the manifest of this bake, in the same set (bake_manifest.h).
    if (!p.settings.fingerprint.empty() && !written.outputs.empty()) {
        std::vector<FileDigest> inputs, outputs;
        for (const std::string& f : input_files(job)) inputs.push_back(digest_file(f));
        for (const auto& [target, tmp] : set.staged()) {
            FileDigest d = digest_file(tmp);
            d.file = path_key(target);
            outputs.push_back(d);
        }
        const OutputSet::Scope joins(set);
        write_text_atomically(manifest_path(written.outputs.front()), manifest_text(p.settings.generator, p.settings.fingerprint, inputs, outputs));
    }
    injected_commit_delay(job.label);
    if (before_commit) before_commit();
    // A stop asked for while writing: the set is dropped (a temporary the signal's cleanup removed
    // may have been made again by its writer), never committed.
    throw_if_stop_requested();
    set.commit();
    if (!p.settings.fingerprint.empty())
        for (std::size_t i = 1; i < written.outputs.size(); ++i) remove_manifest(manifest_path(written.outputs[i]));
    rep.outputs.insert(rep.outputs.end(), written.outputs.begin(), written.outputs.end());
    rep.specular = written.specular;
    rep.sheen = written.sheen;
    rep.preview = written.preview;
    rep.emitted = written.emitted;
}

}  // namespace bake
