#include "cli_report.h"

#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

#include "environment_loader.h"
#include "errors.h"

#ifndef BAKE_VERSION
#define BAKE_VERSION "unknown"
#endif

namespace bake {


std::string format_ms(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f ms", ms);
    return buf;
}

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
    report.command = command_json(o);
    return report;
}

namespace {

// The inputs as the report lists them: the command line's, or the first face file.
std::vector<std::string> input_labels(const Options& o) {
    return o.faces.empty() ? o.inputs : std::vector<std::string>{o.faces[0]};
}

}  // namespace

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

void write_report_of_refusal(const std::string& path, const Options& o, const RunReport& report, const FileGuard* guard) {
    // A usage error about the report's own name: writing it is the mistake.
    if (path.empty() || report.error.rfind("--report:", 0) == 0) return;
    FileGuard inputs;
    if (!guard) {  // refused before the run's files were known: the inputs and goldens are
        for (const std::string& f : o.faces) inputs.read(f, "--faces");
        for (const std::string& in : o.inputs) {
            if (const auto faces = expand_face_pattern(in))
                for (const std::string& f : *faces) inputs.read(f, "input");
            else
                inputs.read(in, "input");
        }
        if (!o.golden.empty()) inputs.read(o.golden, "--golden");  // (a pattern's expansions are no report's name)
        inputs.write(path, "--report");
        guard = &inputs;
    }
    if (!guard->may_write(path, o.no_clobber)) return;
    try {
        write_run_report(path, report);
    } catch (const OutputError&) {
    }
}

std::string summary_line(const FileReport& rep, int count) {
    const std::string n = "[" + std::to_string(rep.index) + "/" + std::to_string(count) + "] ";
    if (rep.status == "skipped") {
        return n + "skipped " + rep.input + " (" + (rep.skip_reason.empty() ? "--fail-fast" : rep.skip_reason) + ")";
    }
    if (rep.status == "failed") {
        return n + "FAILED  " + rep.input + " (exit " + std::to_string(*rep.exit_code) + "): " + rep.error;
    }
    std::string outs;
    for (const std::string& out : rep.outputs) outs += " " + out;
    std::string line = n + "ok      " + rep.input + (outs.empty() ? "" : " ->" + outs) + " (" + rep.path + ", " +
                       format_ms(*rep.timings.total);
    if (!rep.golden.is_null()) line += ", golden pass";
    return line + ")";
}

std::string timings_line(const FileReport& rep) {
    std::string line = "timings " + rep.input + ":";
    const std::pair<const char*, std::optional<double>> stages[] = {
        {"load", rep.timings.load},         {"upload", rep.timings.upload}, {"project", rep.timings.project},
        {"reduce", rep.timings.reduce},     {"sh error", rep.timings.sh_error}, {"irradiance", rep.timings.irradiance},
        {"specular", rep.timings.specular}, {"write", rep.timings.write},       {"total", rep.timings.total}};
    bool first = true;
    for (const auto& [name, value] : stages) {
        if (!value) continue;
        line += std::string(first ? " " : ", ") + name + " " + format_ms(*value);
        if (std::string(name) == "specular" && !rep.timings.specular_parts.empty())
            line += " (" + rep.timings.specular_parts + ")";
        first = false;
    }
    if (rep.path == "gpu")
        line += " (upload, project, reduce, irradiance: GPU timers; sh error: the report's cells and exact values; specular: CPU stages + GPU timers)";
    return line;
}

}  // namespace bake
