#include "report_merge.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "errors.h"

namespace bake {

namespace {

using nlohmann::json;

// Where a parse stopped, in the file's own terms: "truncated after line 18" when the text ended
// early, else "not JSON at line 3, column 7".
std::string parse_failure(const std::string& text, std::size_t byte) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < std::min(byte, text.size()); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    if (byte >= text.size()) return text.empty() ? "empty" : "truncated after line " + std::to_string(line);
    return "not JSON at line " + std::to_string(line) + ", column " + std::to_string(column);
}

json read_report(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": is a folder, not a report");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        // e.byte counts from 1, at the character that broke the parse.
        throw InputError(path + ": " + parse_failure(text, e.byte > 0 ? e.byte - 1 : 0));
    } catch (const json::exception&) {
        throw InputError(path + ": not a report (unreadable JSON)");
    }
    if (!j.is_object() || j.value("generator", "") != "bake-irradiance" || !j.contains("files") || !j["files"].is_array())
        throw InputError(path + ": not a bake-irradiance report");
    const json& shard = j.value("shard", json());
    if (!shard.is_object() || !shard.value("index", json()).is_number_integer() || !shard.value("count", json()).is_number_integer() ||
        !shard.value("inputs", json()).is_number_integer())
        throw InputError(path + ": not the report of a shard (--shard K/N)");
    return j;
}

// The first key in which two reports' commands differ, for the message.
std::string command_difference(const json& a, const json& b) {
    if (!a.is_object() || !b.is_object()) return "one states no command: written by an older version";
    for (const auto& [key, value] : a.items()) {
        if (!b.contains(key)) return "its " + key + " is missing";
        if (value.is_object() && b[key].is_object()) {
            for (const auto& [k, v] : value.items())
                if (!b[key].contains(k) || b[key][k] != v) return k + " differs";
        } else if (b[key] != value) {
            return key + " differs";
        }
    }
    return "its command has other keys";
}

}  // namespace

json merge_reports(const std::vector<std::string>& paths) {
    if (paths.empty()) throw std::runtime_error("no report to merge");
    std::vector<json> reports;
    for (const std::string& p : paths) reports.push_back(read_report(p));
    const json& first = reports.front();
    const int count = first["shard"]["count"], inputs = first["shard"]["inputs"];
    std::map<int, std::string> shard_file;     // shard index -> report
    std::map<int, std::pair<json, std::string>> by_position;  // input position -> entry, report
    double total_ms = 0;
    std::string interrupted;
    for (std::size_t r = 0; r < reports.size(); ++r) {
        const json& rep = reports[r];
        const std::string& path = paths[r];
        if (rep["shard"]["count"] != count || rep["shard"]["inputs"] != inputs)
            throw std::runtime_error(path + " is the report of another command than " + paths.front() +
                                     " (its shard count or input count differs)");
        // The options and output names: a report of the same inputs baked otherwise is no shard of
        // this command (a task's resolved --jobs may differ by node: not compared).
        if (!rep.contains("command") || !first.contains("command") || rep["command"] != first["command"])
            throw std::runtime_error(path + " is the report of another command than " + paths.front() +
                                     " (" + command_difference(first.value("command", json()), rep.value("command", json())) +
                                     ")");
        const int index = rep["shard"]["index"];
        if (const auto [it, fresh] = shard_file.emplace(index, path); !fresh)
            throw std::runtime_error("shard " + std::to_string(index) + " of " + std::to_string(count) + " twice: " +
                                     it->second + " and " + path);
        for (const json& f : rep["files"]) {
            const int position = f.value("index", 0);
            if (const auto [it, fresh] = by_position.emplace(position, std::make_pair(f, path)); !fresh)
                throw std::runtime_error("input " + f.value("input", std::string("?")) + " is in " + it->second.second +
                                         " and in " + path + ": baked twice");
        }
        total_ms = std::max(total_ms, rep.value("total_ms", 0.0));
        if (rep.value("interrupted", json()).is_string() && interrupted.empty()) interrupted = rep["interrupted"];
    }
    for (int k = 0; k < count; ++k)
        if (!shard_file.count(k))
            throw std::runtime_error("shard " + std::to_string(k) + " of " + std::to_string(count) + " has no report");
    std::string missing;
    for (int position = 1; position <= inputs; ++position)
        if (!by_position.count(position)) missing += (missing.empty() ? "" : ", ") + std::to_string(position);
    if (!missing.empty() || static_cast<int>(by_position.size()) != inputs)
        throw std::runtime_error("inputs at positions " + missing + " of " + std::to_string(inputs) + " are in no report");

    json merged = first;
    merged["files"] = json::array();
    int ok = 0, failed = 0, skipped = 0, exit_code = 0;
    for (const auto& [position, entry] : by_position) {
        const json& f = entry.first;
        merged["files"].push_back(f);
        const std::string status = f.value("status", "");
        ok += status == "ok";
        failed += status == "failed";
        skipped += status == "skipped";
        if (status == "failed" && exit_code == 0) exit_code = f.value("exit_code", 1);
    }
    merged["summary"] = {{"files", inputs}, {"ok", ok}, {"failed", failed}, {"skipped", skipped}};
    merged["exit_code"] = exit_code;
    merged["total_ms"] = total_ms;
    merged["interrupted"] = interrupted.empty() ? json(nullptr) : json(interrupted);
    merged["shard"] = {{"index", nullptr}, {"count", count}, {"inputs", inputs}};
    merged["merged_from"] = paths;
    return merged;
}

}  // namespace bake
