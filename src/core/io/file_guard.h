#pragma once
// The one guard over the files a run touches. Whatever names a file (an input, a face, a golden,
// every output option, the report, the depfile, a manifest, --merge-reports' OUT) declares it
// here before any work; check() applies one set of rules to all of them at once, make_folders()
// makes what is missing, and seal() makes the declarations binding: from then on write_atomically
// (atomic_file.h), the one place every output is written through, refuses a path that was not
// declared. An output added later that forgets to declare itself fails its first test (an
// internal error, exit 1) instead of silently overwriting a user's file.
//
// The rules, over every path however it is spelled (links, "./", ".."):
//   a file both read and written, or written twice                        UsageError  (exit 2)
//   a written path that is a folder, under a file where a folder should
//   be, or in a folder no file can be made in                              OutputError (exit 4)
//   --no-clobber and a file to be written exists                           OutputError (exit 4)
// Folder and clobber rules apply to the files written by this run (`now`); the overlap rules to
// every declared file, also the outputs of an input skipped as unchanged (overwriting them would
// make the skip a lie).
#include <string>
#include <vector>

namespace bake {

// What a path resolves to (links, "./", ".."), so that two spellings of one file compare equal.
std::string path_key(const std::string& path);

class FileGuard {
public:
    // A file the run reads and never writes (inputs, faces, goldens, reports to merge).
    void read(const std::string& path, const std::string& option);
    // A file the run writes: `option` names what writes it ("--depfile", "-o"); `owner` the input
    // it belongs to ("" for the run's own files). now = false: kept as it is this time (an
    // unchanged input's output), still not to be touched by anything else.
    void write(const std::string& path, const std::string& option, const std::string& owner = {}, bool now = true);
    // A file the run reads and may rewrite or remove as its own bookkeeping (a --skip-unchanged
    // manifest): nothing else may read or write it.
    void state(const std::string& path, const std::string& option, const std::string& owner = {});

    // The rules above. Throws UsageError or OutputError naming the file and the option.
    void check(bool no_clobber) const;
    // Makes the missing folders of the files written now, as mkdir -p would. Throws OutputError.
    void make_folders() const;
    // Binds write_atomically to the files declared for writing (process-wide, until reset_seal).
    void seal() const;

    // Whether writing `path` now breaks no rule of check() (the report of a refused run is
    // written only then).
    bool may_write(const std::string& path, bool no_clobber) const;

    struct Use {
        std::string path, key, option, owner;
        enum Kind { Read, Write, State } kind;
        bool now;
    };
    const std::vector<Use>& uses() const { return uses_; }

private:
    std::vector<Use> uses_;
};

// Whether write_atomically may write `path`: yes when no guard is sealed (the library used
// without the tool: tests, the benchmark), else only a declared one.
bool write_declared(const std::string& path);
// A folder of the tool's own (the GPU program cache: no file a user named) that sealed writes may
// go into.
void allow_writes_under(const std::string& folder);
// Lifts the seal (tests of the guard itself).
void reset_seal();

}  // namespace bake
