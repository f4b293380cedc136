#include "job_plan.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "environment_loader.h"
#include "errors.h"
#include "ggx.h"
#include "output_names.h"
#include "specular_io.h"

namespace bake {

namespace fs = std::filesystem;

std::string path_key(const std::string& path) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec).lexically_normal();
    const fs::path canonical = fs::weakly_canonical(absolute, ec);
    return (ec ? absolute : canonical).string();
}

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
            const std::string dir = o.out_dir.empty() ? "" : o.out_dir;
            for (const std::string& n : names) {
                const std::string name = expand(n, job.label, job.index, "--name");
                job.outputs.push_back(dir.empty() ? name : (fs::path(dir) / name).string());
            }
        } else {
            for (const std::string& out : o.outputs) job.outputs.push_back(expand(out, job.label, job.index, "--output"));
        }
        if (!o.golden.empty()) job.golden = expand(o.golden, job.label, job.index, "--golden");
        if (!o.preview.empty()) job.preview = expand(o.preview, job.label, job.index, "--preview");
        if (!o.specular.empty()) job.specular = expand(o.specular, job.label, job.index, "--specular", true);
        for (const auto& [lang, file] : o.emits)
            job.emits.emplace_back(*parse_shader_language(lang), expand(file, job.label, job.index, "--emit"));
        if (!o.gltf.empty()) job.gltf = expand(o.gltf, job.label, job.index, "--gltf");
        for (const auto& [engine, file] : o.sh_formats)
            job.sh_formats.emplace_back(engine, expand(file, job.label, job.index, "--sh-format"));
        jobs.push_back(job);
    }
    // Every file the run reads (inputs, their faces, goldens) and writes, compared by what they
    // resolve to (links, "./", ".."): an output written twice loses a result, and an output
    // that is also read would feed a later input (or the next run's golden check) our own output.
    const auto key = path_key;
    std::map<std::string, std::string> read;  // key -> as given
    auto add_read = [&](const std::string& path) { read.emplace(key(path), path); };
    for (const std::string& f : o.faces) add_read(f);
    for (const std::string& in : o.inputs) {
        if (const auto faces = expand_face_pattern(in)) {
            for (const std::string& f : *faces) add_read(f);
        } else {
            add_read(in);
        }
    }
    for (const BakeJob& job : jobs)
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
    for (const BakeJob& job : jobs) {
        for (const std::string& w : job.outputs) add_written(w, job.label, "output");
        if (!job.preview.empty()) add_written(job.preview, job.label, "--preview");
        if (!job.specular.empty()) {
            const int levels = specular_level_count(o.specular_size);
            for (int level = 0; level < (has_level_placeholder(job.specular) ? levels : 1); ++level)
                add_written(expand_level_placeholder(job.specular, level), job.label, "--specular");
        }
        for (const auto& e : job.emits) add_written(e.second, job.label, "--emit");
        if (!job.gltf.empty()) add_written(job.gltf, job.label, "--gltf");
        for (const auto& e : job.sh_formats) add_written(e.second, job.label, "--sh-format");
    }
    if (!o.report.empty()) add_written(o.report, "--report", "--report");
    if (!o.dfg.empty()) add_written(o.dfg, "--dfg", "--dfg");
    return jobs;
}

void prepare_output_folders(const Options& o, const std::vector<BakeJob>& jobs) {
    std::vector<std::string> written;
    for (const BakeJob& job : jobs) {
        written.insert(written.end(), job.outputs.begin(), job.outputs.end());
        if (!job.preview.empty()) written.push_back(job.preview);
        if (!job.specular.empty()) {
            const int levels = has_level_placeholder(job.specular) ? specular_level_count(o.specular_size) : 1;
            for (int level = 0; level < levels; ++level) written.push_back(expand_level_placeholder(job.specular, level));
        }
        for (const auto& e : job.emits) written.push_back(e.second);
        if (!job.gltf.empty()) written.push_back(job.gltf);
        for (const auto& e : job.sh_formats) written.push_back(e.second);
    }
    if (!o.report.empty()) written.push_back(o.report);
    if (!o.dfg.empty()) written.push_back(o.dfg);
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
    if (o.batch() && !o.out_dir.empty()) check_folder(o.out_dir, o.out_dir);
    for (const std::string& out : written) {
        std::error_code ec;
        if (fs::is_directory(out, ec)) throw OutputError(out + ": is a folder");
        if (o.no_clobber && fs::exists(out, ec)) throw OutputError(out + ": exists (--no-clobber)");
        check_folder(fs::path(out).has_parent_path() ? fs::path(out).parent_path() : fs::path("."), out);
    }
    for (const fs::path& folder : to_make) {
        std::error_code ec;
        fs::create_directories(folder, ec);
        if (ec) throw OutputError(folder.string() + ": cannot create folder: " + ec.message());
    }
}

}  // namespace bake
