#include "depfile.h"

#include <stdexcept>

#include "atomic_file.h"
#include "errors.h"

namespace bake {

std::string depfile_escape(const std::string& name) {
    std::string out;
    std::size_t backslashes = 0;  // run of backslashes just written
    for (char c : name) {
        if (c == '\n' || c == '\r') throw std::invalid_argument("'" + name + "' holds a line break: no depfile can name it");
        if (c == ' ' || c == '#') {
            out.append(backslashes, '\\');  // a backslash before an escaped character is doubled
            out += '\\';
        }
        if (c == '$') out += '$';
        out += c;
        backslashes = c == '\\' ? backslashes + 1 : 0;
    }
    return out;
}

std::string depfile_text(const std::vector<DepfileRule>& rules) {
    std::string text;
    for (const DepfileRule& r : rules) {
        if (r.targets.empty()) continue;
        for (std::size_t i = 0; i < r.targets.size(); ++i) text += (i ? " " : "") + depfile_escape(r.targets[i]);
        text += ":";
        for (const std::string& p : r.prerequisites) text += " " + depfile_escape(p);
        text += "\n";
    }
    return text;
}

void write_depfile(const std::string& path, const RunReport& report) {
    std::vector<DepfileRule> rules;
    for (const FileReport& f : report.files) {
        if (f.outputs.empty()) continue;
        DepfileRule rule{f.outputs, f.files};
        if (!f.golden.is_null()) rule.prerequisites.push_back(f.golden.value("file", std::string()));
        rules.push_back(std::move(rule));
    }
    std::string text;
    try {
        text = depfile_text(rules);
    } catch (const std::invalid_argument& e) {
        throw OutputError(path + ": " + e.what());
    }
    write_text_atomically(path, text);
}

}  // namespace bake
