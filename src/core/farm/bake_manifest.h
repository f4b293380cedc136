#pragma once
// Incremental bakes (--skip-unchanged): beside an input's outputs, a manifest records what they
// were baked from (every input file's size and xxHash-64, the options that shape the outputs, the
// tool's version) and what they are (each output's size and hash). An input is skipped when its
// manifest matches all of it; any change (an input's bytes, an option, the version, an output
// missing, damaged or edited) bakes it again, and says why. xxHash-64 (libxxhash): ~10 GB/s a
// core, against ~1 GB/s for decoding an .hdr; an accidental match has odds 2^-64 per file.
#include <cstdint>
#include <string>
#include <vector>

namespace bake {

struct FileDigest {
    std::string file;  // absolute (file_guard.h's path_key): the same file from any working folder
    std::uint64_t size = 0;
    std::string xxh64;  // 16 hex digits
};

// The file's size and hash. Throws std::runtime_error (one line) when it cannot be read.
FileDigest digest_file(const std::string& path);

// Where an input's manifest lives: beside its first output, "<first output>.bake.json".
std::string manifest_path(const std::string& first_output);

// The manifest's text (JSON).
std::string manifest_text(const std::string& generator, const std::string& fingerprint,
                          const std::vector<FileDigest>& inputs, const std::vector<FileDigest>& outputs);

// Removes the file at `path` if it is a manifest (an older bake's, beside an output that is no
// longer the first); anything else there is left alone.
void remove_manifest(const std::string& path);

// Whether the outputs listed in the manifest at `path` are what baking `inputs` with
// `fingerprint` by `generator` would write now. `reason`: why not (or "unchanged").
bool outputs_unchanged(const std::string& path, const std::string& generator, const std::string& fingerprint,
                       const std::vector<std::string>& inputs, const std::vector<std::string>& outputs, std::string* reason);

}  // namespace bake
