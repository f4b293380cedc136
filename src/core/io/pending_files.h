#pragma once
// Files this process has made and not yet finished with (temporaries of atomic writes, backups of
// an output set's commit), so that a signal handler can remove them: a run interrupted by
// SIGINT, SIGTERM or SIGHUP leaves nothing behind. Adding and removing entries is thread-safe;
// remove_all_pending_files() is async-signal-safe (no allocation, no lock: unlink(2) over fixed
// slots that are published with atomics).
#include <string>

namespace bake {

// A pending file's slot; `release` forgets it (the file was renamed or deleted). Paths longer than
// the slots hold (4095 bytes), or beyond the 256 slots, are still written, only not cleaned up by
// a signal.
class PendingFile {
public:
    PendingFile() = default;
    explicit PendingFile(const std::string& path);
    ~PendingFile() { release(); }
    PendingFile(PendingFile&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
    PendingFile& operator=(PendingFile&& other) noexcept;
    PendingFile(const PendingFile&) = delete;
    PendingFile& operator=(const PendingFile&) = delete;
    void release();

private:
    int slot_ = -1;
};

// unlink(2)s every pending file. For signal handlers: async-signal-safe.
void remove_all_pending_files() noexcept;

}  // namespace bake
