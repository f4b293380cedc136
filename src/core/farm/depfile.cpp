#include "depfile.h"

#include <stdexcept>

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

}  // namespace bake
