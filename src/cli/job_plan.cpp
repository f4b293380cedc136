#include "job_plan.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <stdexcept>

#include "environment_loader.h"
#include "errors.h"
#include "ggx.h"
#include "outputs.h"
#include "output_names.h"
#include "specular_io.h"

namespace bake {

namespace fs = std::filesystem;

std::vector<BakeJob> plan_jobs(const Options& o) {
    std::vector<std::string> inputs = o.inputs;
    if (!o.faces.empty()) inputs = {o.faces[0]};
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
    const bool batch = o.batch();
    std::vector<BakeJob> jobs;
    for (size_t i = 0; i < inputs.size(); ++i) {
        BakeJob job;
        job.index = static_cast<int>(i) + 1;
        job.label = inputs[i];
        job.faces = o.faces;
        if (batch) {
            // --out-dir alone writes the default name; neither: only --golden/--preview/--emit/--report.
            std::vector<std::string> names = o.names;
            if (names.empty() && !o.out_dir.empty()) names = {"{stem}_irr.exr"};
            for (const std::string& n : names) {
                const std::string name = expand(n, job.label, job.index, "--name");
                job.outputs.push_back(o.out_dir.empty() ? name : (fs::path(o.out_dir) / name).string());
            }
            job.named = true;
        } else {
            for (const std::string& out : o.outputs) job.outputs.push_back(expand(out, job.label, job.index, "--output"));
        }
        if (!o.golden.empty()) job.golden = expand(o.golden, job.label, job.index, "--golden");
        if (!o.preview.empty()) job.preview = expand(o.preview, job.label, job.index, "--preview");
        if (!o.specular.empty()) job.specular = expand(o.specular, job.label, job.index, "--specular", true);
        if (!o.sheen.empty()) job.sheen = expand(o.sheen, job.label, job.index, "--sheen", true);
        for (const auto& [lang, file] : o.emits)
            job.emits.emplace_back(*parse_shader_language(lang), expand(file, job.label, job.index, "--emit"));
        if (!o.gltf.empty()) job.gltf = expand(o.gltf, job.label, job.index, "--gltf");
        for (const auto& [engine, file] : o.sh_formats)
            job.sh_formats.emplace_back(engine, expand(file, job.label, job.index, "--sh-format"));
        for (const auto& [engine, file] : o.sun_formats)
            job.sun_formats.emplace_back(engine, expand(file, job.label, job.index, "--sun-format"));
        jobs.push_back(job);
    }
    return jobs;
}

FileGuard run_files(const Options& o, const std::vector<BakeJob>& jobs, const BakeSettings& settings,
                    const std::vector<bool>& bakes) {
    FileGuard guard;
    // Reads first, so that a message names the output that would overwrite an input.
    std::vector<std::vector<JobFile>> files;
    for (const BakeJob& job : jobs) files.push_back(job_files(job, settings));
    for (const auto& list : files)
        for (const JobFile& f : list)
            if (f.role == JobFile::Read) guard.read(f.path, f.option);
    for (std::size_t i = 0; i < jobs.size(); ++i)
        for (const JobFile& f : files[i]) {
            if (f.role == JobFile::Write) guard.write(f.path, f.option, jobs[i].label, bakes[i]);
            if (f.role == JobFile::Manifest) guard.state(f.path, f.option, jobs[i].label);
        }
    if (!o.dfg.empty()) guard.write(o.dfg, "--dfg");
    if (!o.sheen_lut.empty()) guard.write(o.sheen_lut, "--sheen-lut");
    if (!o.depfile.empty()) guard.write(o.depfile, "--depfile");
    if (!o.report.empty()) guard.write(o.report, "--report");
    return guard;
}

}  // namespace bake
