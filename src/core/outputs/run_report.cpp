#include "run_report.h"

#include <fstream>

#include "atomic_file.h"
#include "errors.h"

namespace bake {

namespace {

using nlohmann::json;

template <typename T>
json or_null(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

json string_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

}  // namespace

json timings_to_json(const StageTimings& t) {
    return {{"load", or_null(t.load)},       {"upload", or_null(t.upload)},
            {"project", or_null(t.project)}, {"reduce", or_null(t.reduce)},
            {"sh_error", or_null(t.sh_error)}, {"irradiance", or_null(t.irradiance)},
            {"specular", or_null(t.specular)},       {"write", or_null(t.write)},
            {"total", or_null(t.total)}};
}

json to_json(const FileReport& f) {
    return {
        {"index", f.index},
        {"input", f.input},
        {"files", f.files},
        {"outputs", f.outputs},
        {"status", f.status},
        {"exit_code", or_null(f.exit_code)},
        {"error", string_or_null(f.error)},
        {"skip_reason", string_or_null(f.skip_reason)},
        {"warnings", f.warnings},
        {"order", f.order},
        {"path", string_or_null(f.path)},
        {"renderer", string_or_null(f.renderer)},
        {"layout", string_or_null(f.layout)},
        {"width", or_null(f.width)},
        {"height", or_null(f.height)},
        {"timings_ms", timings_to_json(f.timings)},
        {"compare", f.compare},
        {"golden", f.golden},
        {"preview", f.preview},
        {"emitted", f.emitted},
        {"window", f.window},
        {"sh_error", f.sh_error},
        {"specular", f.specular},
        {"sun", f.sun},
        {"sheen", f.sheen},
    };
}

json to_json(const RunReport& r) {
    int ok = 0, failed = 0, skipped = 0;
    json files = json::array();
    for (const FileReport& f : r.files) {
        ok += f.status == "ok";
        failed += f.status == "failed";
        skipped += f.status == "skipped";
        files.push_back(to_json(f));
    }
    return {
        {"generator", "bake-irradiance"},
        {"version", r.version},
        {"report_version", 1},
        {"exit_code", r.exit_code},
        {"summary", {{"files", static_cast<int>(r.files.size())}, {"ok", ok}, {"failed", failed}, {"skipped", skipped}}},
        {"settings", r.settings},
        {"command", r.command},
        {"gpu",
         {{"backend", string_or_null(r.gpu_backend)},
          {"renderer", string_or_null(r.gpu_renderer)},
          {"gl_version", string_or_null(r.gpu_version)}}},
        {"total_ms", r.total_ms},
        {"error", string_or_null(r.error)},
        {"interrupted", string_or_null(r.interrupted)},
        {"warnings", r.warnings},
        {"outputs", r.outputs},
        {"shard", r.shard},
        {"merged_from", nullptr},
        {"files", files},
    };
}

void write_run_report(const std::string& path, const RunReport& report) {
    // File names need not be UTF-8: invalid bytes become U+FFFD instead of an exception.
    const std::string text = to_json(report).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    write_text_atomically(path, text);
}

}  // namespace bake
