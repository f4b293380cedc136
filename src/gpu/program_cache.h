#pragma once
#include <cstddef>
#include <string>

#include <glad/gl.h>

namespace bake {

// Linked compute programs kept on disk as the driver's own binaries (glGetProgramBinary, core
// since GL 4.1), so that a repeat run skips compiling. An entry is keyed by the driver (vendor,
// renderer, version) and the program's full source text, which the entry stores and a load
// compares: a changed shader or driver never loads a stale binary. The driver may still refuse
// a binary (after an update that kept the version string): the entry is then ignored and
// replaced. The folder is safe to delete at any time; entries are written to a temporary file
// and renamed, so concurrent runs never see half an entry. Every failure of the cache is
// silent: it only ever costs a compile.
//
// Folder: $BAKE_PROGRAM_CACHE if set (empty or "off" turns the cache off), else
// $XDG_CACHE_HOME/bake-irradiance, else $HOME/.cache/bake-irradiance.
class ProgramCache {
public:
    explicit ProgramCache(std::string driver_id);

    bool enabled() const { return !folder_.empty(); }
    const std::string& folder() const { return folder_; }

    // A linked program from the entry for `source`, or 0 when there is none that the driver takes.
    GLuint load(const std::string& source);
    // Saves a linked program's binary as the entry for `source`.
    void store(GLuint program, const std::string& source);

    // What this run did: programs loaded from the cache, and entries written.
    std::size_t loaded() const { return loaded_; }
    std::size_t stored() const { return stored_; }

private:
    std::string entry_path(const std::string& key) const;
    std::string driver_id_;
    std::string folder_;
    bool folder_made_ = false;
    std::size_t loaded_ = 0, stored_ = 0;
};

}  // namespace bake
