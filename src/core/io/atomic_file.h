#pragma once
// Atomic outputs. One file: written to a temporary in the same folder, flushed, and renamed over
// its target. Several files of one input: an OutputSet, all or none. Every temporary is a
// pending file (pending_files.h) until renamed, so a run stopped by a signal leaves none behind.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace bake {

class PendingFile;

// Writes `path` by calling write(tmp_path) on a temporary name in the same folder, then renaming
// it over `path`; on any failure the temporary is removed and `path` is left untouched. Inside an
// OutputSet::Scope on this thread the temporary is left for the set's commit instead.
// Throws OutputError("<path>: <problem>").
void write_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write);

// Writes `text` to `path` through write_atomically. Throws OutputError("<path>: <problem>").
void write_text_atomically(const std::string& path, const std::string& text);
// The same for bytes (a KTX2 or DDS file made in memory).
void write_bytes_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes);

// The outputs of one input, all or none. While a Scope of the set lives on a thread, every
// write_atomically there writes and flushes its temporary and leaves it staged; commit() then
// renames them all over their targets. A Scope opened inside another set's Scope joins the outer
// set (whose commit then covers both; the inner commit has nothing to do). A failure while writing (the set is then destroyed
// uncommitted) or while renaming leaves every target as it was and no temporary:
// commit keeps each replaced target reachable under a hidden hard link until the whole set is in
// place, and on a failure at rename k puts targets 0..k-1 back (a signal's cleanup during a commit
// makes the remaining renames fail, so it rolls back too). Guaranteed within the process; a power cut during a commit can leave
// the set half renamed (each file whole, old or new) and a hidden "*.tmp-*.old" link beside it.
// Test hook: BAKE_TEST_FAULT=rename:K fails the K-th rename of a commit (from 1).
class OutputSet {
public:
    OutputSet();
    ~OutputSet();  // uncommitted: removes the staged temporaries
    OutputSet(const OutputSet&) = delete;
    OutputSet& operator=(const OutputSet&) = delete;

    class Scope {
    public:
        explicit Scope(OutputSet& set);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        OutputSet* previous_;
    };

    // Throws OutputError naming the file that could not be replaced; then nothing changed.
    void commit();
    std::vector<std::string> targets() const;  // staged, not yet committed
    std::vector<std::pair<std::string, std::string>> staged() const;  // (target, temporary), in order

private:
    friend void write_atomically(const std::string&, const std::function<void(const std::string&)>&);
    struct Staged;
    void stage(const std::string& target, const std::string& tmp, PendingFile pending);
    std::vector<Staged> staged_;
};

}  // namespace bake
