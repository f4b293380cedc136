#include "specular_stage.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "backend.h"
#include "ggx.h"
#include "parallel.h"
#include "specular_io.h"
#include "stage_progress.h"
#include "stopwatch.h"

namespace bake {

namespace {

nlohmann::json differences_json(const std::vector<SpecularLevelDifference>& diffs) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : diffs)
        out.push_back({{"level", d.level}, {"roughness", d.roughness}, {"max_rel_to_max", d.max_rel_to_max},
                       {"mean_rel", d.mean_rel}});
    return out;
}

}  // namespace

SpecularBake bake_specular(const Environment& env, SpecularSettings settings, Backend& backend, int threads,
                           const SpecularInput* source, const BrightSplit* split, bool cpu_copy, Bc6hBlocks bc6h) {
    SpecularBake out;
    if (settings.source_size <= 0) settings.source_size = default_specular_source_size(env, settings.base_size);
    out.settings = settings;
    // Progress: the source, then every level after the first (each costs about the same).
    stage_progress::begin(settings.levels() * kSpecularProgressUnits);
    const Stopwatch source_watch;
    const bool readable = source && (!source->mips.empty() || (source->resident_on == backend.name() && !cpu_copy));
    const bool reuse = readable && source->size == settings.source_size;
    out.input = reuse ? *source : backend.prepare_specular(env, settings, threads, split, cpu_copy);
    const SpecularInput& input = out.input;
    stage_progress::advance(kSpecularProgressUnits);
    out.bright_texels = static_cast<int>(input.bright.size());
    out.source_ms = source_watch.ms();
    out.chain = backend.prefilter_specular(out.input, settings, out.prefilter_ms, bc6h.wanted ? &out.bc6h : nullptr,
                                           bc6h.mirror_z);
    out.computed_by = backend.name();
    return out;
}

void compare_specular(SpecularBake& bake, int texels_per_level, int threads) {
    if (bake.input.mips.empty()) throw std::logic_error("compare_specular: the source is not in memory (bake_specular's cpu_copy)");
    const int levels = static_cast<int>(bake.chain.size());
    bake.reference.clear();
    for (int level = 0; level < levels; ++level) {
        const CubeMap& m = bake.chain[level];
        const int n = m.size, total = 6 * n * n, count = std::min(total, texels_per_level);
        const double roughness = specular_level_roughness(level, levels);
        const SpecularLobe lobe = bake.settings.lobe;
        // GGX's level 0 reference is the source's area average over each texel (roughness 0);
        // Charlie's is the reference's horizon mean.
        const bool area_average = level == 0 && lobe == SpecularLobe::Ggx;
        const CubeMap zero = area_average ? specular_level_zero(bake.input.mips, n) : CubeMap();
        std::vector<float> ours(3 * static_cast<std::size_t>(count)), ref(ours.size());
        parallel_for(count, resolve_threads(threads, count), [&](int k) {
            const long long t = static_cast<long long>(k) * total / count;  // an even spread
            const int face = static_cast<int>(t / (n * n)), row = static_cast<int>(t / n % n), col = static_cast<int>(t % n);
            double v[3];
            if (area_average) {
                for (int c = 0; c < 3; ++c) v[c] = zero.faces[face].at(row, col)[c];
            } else {
                prefilter_specular_at(bake.input.mips[0], cube_texel_direction(face, row, col, n), roughness, v, lobe);
            }
            for (int c = 0; c < 3; ++c) {
                ours[3 * k + c] = m.faces[face].at(row, col)[c];
                ref[3 * k + c] = static_cast<float>(v[c]);
            }
        });
        SpecularLevelDifference d = compare_specular_values(ours, ref);
        d.level = level;
        d.roughness = roughness;
        bake.reference.push_back(d);
    }
    if (bake.computed_by == "gpu")
        bake.estimator = compare_specular_chains(bake.chain, prefilter_specular_sampled(bake.input, bake.settings, threads));
}

std::vector<std::string> describe_specular_comparison(const SpecularBake& bake) {
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < bake.reference.size(); ++i) {
        const SpecularLevelDifference& r = bake.reference[i];
        char line[256];
        int n = std::snprintf(line, sizeof line, "specular level %d (roughness %.3f): against the brute force max %.4e of max, mean %.4e",
                              r.level, r.roughness, r.max_rel_to_max, r.mean_rel);
        if (i < bake.estimator.size() && n > 0 && n < static_cast<int>(sizeof line))
            std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), "; GPU against the CPU estimator max %.4e, mean %.4e",
                          bake.estimator[i].max_rel_to_max, bake.estimator[i].mean_rel);
        lines.push_back(line);
    }
    return lines;
}

std::vector<std::string> write_specular(const std::string& path, const SpecularBake& bake) {
    SpecularChainInfo info;
    for (std::size_t i = 0; i < bake.chain.size(); ++i)
        info.roughness.push_back(specular_level_roughness(static_cast<int>(i), static_cast<int>(bake.chain.size())));
    info.convention = bake.settings.lobe == SpecularLobe::Charlie ? kSheenConvention : kSpecularConvention;
    if (has_level_placeholder(path)) return write_specular_level_files(path, bake.chain, info);
    write_specular_exr(path, bake.chain, info);
    return {path};
}

nlohmann::json specular_json(const SpecularBake& bake, const std::vector<std::string>& files) {
    const int levels = static_cast<int>(bake.chain.size());
    nlohmann::json roughness = nlohmann::json::array();
    for (int i = 0; i < levels; ++i) roughness.push_back(specular_level_roughness(i, levels));
    nlohmann::json compare = nullptr;
    if (!bake.reference.empty())
        compare = {{"reference", differences_json(bake.reference)},
                   {"estimator", bake.estimator.empty() ? nlohmann::json(nullptr) : differences_json(bake.estimator)}};
    return {{"files", files},
            {"base_size", bake.settings.base_size},
            {"levels", levels},
            {"roughness", roughness},
            {"alpha", "roughness^2"},
            {"convention", bake.settings.lobe == SpecularLobe::Charlie ? kSheenConvention : kSpecularConvention},
            {"source_size", bake.settings.source_size},
            {"samples", bake.settings.samples},
            {"lod_bias", bake.settings.lod_bias},
            {"bright_texels", bake.bright_texels},
            {"computed_by", bake.computed_by},
            {"ms", {{"source", bake.source_ms}, {"prefilter", bake.prefilter_ms}}},
            {"compare", compare}};
}

}  // namespace bake
