#include "output_names.h"

#include <stdexcept>

namespace bake {

namespace {

std::string file_name(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string input_stem(const std::string& input) {
    std::string name = file_name(input);
    const size_t face = name.find("{face}");
    if (face != std::string::npos) {
        size_t start = face;
        while (start > 0 && (name[start - 1] == '_' || name[start - 1] == '-' || name[start - 1] == '.')) --start;
        name.erase(start, face + 6 - start);
    }
    const size_t dot = name.find_last_of('.');
    if (dot != std::string::npos && dot > 0) name.erase(dot);
    return name.empty() ? "input" : name;
}

std::string expand_output_pattern(const std::string& pattern, const std::string& input, int index, bool keep_level) {
    std::string out;
    for (size_t i = 0; i < pattern.size();) {
        if (pattern[i] != '{') {
            out += pattern[i++];
            continue;
        }
        const size_t close = pattern.find('}', i);
        if (close == std::string::npos) throw std::invalid_argument("'" + pattern + "': unmatched '{'");
        const std::string key = pattern.substr(i + 1, close - i - 1);
        if (key == "stem") out += input_stem(input);
        else if (key == "name") out += file_name(input);
        else if (key == "index") out += std::to_string(index);
        else if (key == "level" && keep_level) out += "{level}";
        else if (keep_level)
            throw std::invalid_argument("'" + pattern + "': unknown placeholder {" + key + "} (use {stem}, {name}, {index} or {level})");
        else throw std::invalid_argument("'" + pattern + "': unknown placeholder {" + key + "} (use {stem}, {name} or {index})");
        i = close + 1;
    }
    return out;
}

bool has_output_placeholder(const std::string& pattern) {
    return pattern.find("{stem}") != std::string::npos || pattern.find("{name}") != std::string::npos ||
           pattern.find("{index}") != std::string::npos;
}

}  // namespace bake
