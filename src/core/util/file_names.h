#pragma once
// File names as the tool reads them: an output's type is its extension, in any letter case.
#include <cctype>
#include <string>

namespace bake {

// Whether `path` ends with `extension` (given in lower case, with its dot), ignoring case.
inline bool has_extension(const std::string& path, const std::string& extension) {
    if (path.size() < extension.size()) return false;
    const std::size_t start = path.size() - extension.size();
    for (std::size_t i = 0; i < extension.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(path[start + i])) != extension[i]) return false;
    return true;
}

}  // namespace bake
