#pragma once
#include <functional>
#include <string>

namespace bake {

// Writes `path` by calling write(tmp_path) on a temporary name in the same folder, then renaming
// it over `path`; on any failure the temporary is removed and `path` is left untouched.
// Throws OutputError("<path>: <problem>").
void write_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write);

// Writes `text` to `path` through write_atomically. Throws OutputError("<path>: <problem>").
void write_text_atomically(const std::string& path, const std::string& text);

}  // namespace bake
