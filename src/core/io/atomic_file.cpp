#include "atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "errors.h"
#include "file_guard.h"
#include "pending_files.h"

namespace bake {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
    throw OutputError(path + ": " + one_line(problem));
}

std::string errno_text(int err) { return std::strerror(err); }

// Splits "dir/name.ext" into ("dir", "name.ext"); a bare name lives in ".".
void split_path(const std::string& path, std::string& dir, std::string& name) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) {
        dir = ".";
        name = path;
    } else {
        dir = slash == 0 ? "/" : path.substr(0, slash);
        name = path.substr(slash + 1);
    }
}

// Creates a fresh, empty temporary file next to the target and returns its name. O_EXCL makes the
// name ours alone; creating with 0666 lets the umask decide the final permissions, as for any
// ordinary new file (mkstemp's 0600 would survive the rename).
std::string create_temp(const std::string& path, const std::string& dir, const std::string& name) {
    const auto dot = name.find_last_of('.');
    const std::string ext = (dot == std::string::npos || dot == 0) ? "" : name.substr(dot);
    std::random_device rd;
    std::mt19937_64 rng((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
    int last_errno = 0;
    for (int attempt = 0; attempt < 100; ++attempt) {
        char tag[32];
        std::snprintf(tag, sizeof tag, "%08llx",
                      static_cast<unsigned long long>(rng() & 0xffffffffull));
        const std::string tmp = (dir == "/" ? "/" : dir + "/") + "." + name + ".tmp-" +
                                std::to_string(::getpid()) + "-" + tag + ext;
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            ::close(fd);
            return tmp;
        }
        last_errno = errno;
        if (last_errno != EEXIST) break;
    }
    fail(path, "cannot create a file in folder '" + dir + "': " + errno_text(last_errno));
}

// Flushes the temporary to disk before the rename makes it visible. A failing fsync (EIO,
// ENOSPC, EDQUOT on network or quota'd file systems) means the data may not be there: an error.
// File systems that cannot fsync at all (EINVAL, EROFS-like pseudo files) are not errors.
void sync_file(const std::string& path, const std::string& tmp) {
    const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0 && err != EINVAL && err != ENOTSUP) fail(path, "cannot flush the file to disk: " + errno_text(err));
}

}  // namespace

namespace {

// The output set a write_atomically on this thread stages into (OutputSet::Scope), if any.
thread_local OutputSet* t_output_set = nullptr;

// BAKE_TEST_FAULT=rename:K (a test hook): the K-th rename of a commit (from 1) fails.
int injected_rename_fault() {
    const char* fault = std::getenv("BAKE_TEST_FAULT");
    if (!fault || std::strncmp(fault, "rename:", 7) != 0) return 0;
    return std::atoi(fault + 7);
}

}  // namespace

struct OutputSet::Staged {
    std::string target, tmp;
    PendingFile pending;
};

OutputSet::OutputSet() = default;

OutputSet::~OutputSet() {
    for (const Staged& s : staged_) std::remove(s.tmp.c_str());
}

// A scope inside another set's scope joins that set: the outer set is the one committed.
OutputSet::Scope::Scope(OutputSet& set) : previous_(t_output_set) {
    if (!t_output_set) t_output_set = &set;
}
OutputSet::Scope::~Scope() { t_output_set = previous_; }

void OutputSet::stage(const std::string& target, const std::string& tmp, PendingFile pending) {
    staged_.push_back(Staged{target, tmp, std::move(pending)});
}

// A signal during a commit removes the temporaries not yet renamed (pending_files.h): their
// renames then fail and the commit rolls back, so the set stays all or nothing. Backups are not
// pending files: a handler must never remove the only copy of an old output.
void OutputSet::commit() {
    const int fault = injected_rename_fault();
    struct Replaced {
        std::string target, backup;  // backup empty: there was no file before
    };
    std::vector<Replaced> done;
    // Puts every replaced target back as it was, removes what is left: the set is all or nothing.
    auto roll_back = [&](std::size_t from) {
        for (auto it = done.rbegin(); it != done.rend(); ++it) {
            if (it->backup.empty()) ::unlink(it->target.c_str());
            else std::rename(it->backup.c_str(), it->target.c_str());
        }
        for (std::size_t k = from; k < staged_.size(); ++k) std::remove(staged_[k].tmp.c_str());
        staged_.clear();
    };
    for (std::size_t k = 0; k < staged_.size(); ++k) {
        const Staged& s = staged_[k];
        const std::string target = s.target;  // roll_back() clears staged_
        Replaced r;
        r.target = s.target;
        struct stat st {};
        if (::lstat(s.target.c_str(), &st) == 0) {
            // The old file stays reachable under a hidden name until the whole set is in place.
            r.backup = s.tmp + ".old";
            if (::link(s.target.c_str(), r.backup.c_str()) != 0) {
                const int err = errno;
                roll_back(k);
                fail(target, "cannot keep the old file while replacing it: " + errno_text(err));
            }
        }
        const bool injected = fault > 0 && static_cast<std::size_t>(fault) == k + 1;
        if (injected || std::rename(s.tmp.c_str(), s.target.c_str()) != 0) {
            const int err = injected ? EIO : errno;
            if (!r.backup.empty()) ::unlink(r.backup.c_str());
            roll_back(k);
            fail(target, std::string("cannot replace the file: ") + errno_text(err) +
                               (injected ? " (BAKE_TEST_FAULT)" : "") + "; none of this input's outputs was changed");
        }
        done.push_back(std::move(r));
    }
    for (const Replaced& r : done)
        if (!r.backup.empty()) ::unlink(r.backup.c_str());
    staged_.clear();
}

std::vector<std::pair<std::string, std::string>> OutputSet::staged() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const Staged& s : staged_) out.emplace_back(s.target, s.tmp);
    return out;
}

std::vector<std::string> OutputSet::targets() const {
    std::vector<std::string> out;
    for (const Staged& s : staged_) out.push_back(s.target);
    return out;
}

void write_atomically(const std::string& path,
                      const std::function<void(const std::string& tmp_path)>& write) {
    if (path.empty()) fail(path, "empty output path");
    std::string dir, name;
    split_path(path, dir, name);
    if (name.empty() || name == "." || name == "..") fail(path, "not a file name");
    // Every output goes through the guard (file_guard.h): a file nobody declared is a bug.
    if (!write_declared(path))
        throw std::logic_error(path + ": written without being declared to the file guard (file_guard.h)");

    // Check the destination before doing any work, to give the clearest message.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(path, "is a directory");
    if (::stat(dir.c_str(), &st) != 0) {
        const int err = errno;
        if (err == ENOENT) fail(path, "folder '" + dir + "' does not exist");
        if (err == ENOTDIR) fail(path, "'" + dir + "' is not a folder");
        fail(path, "cannot access folder '" + dir + "': " + errno_text(err));
    }
    if (!S_ISDIR(st.st_mode)) fail(path, "'" + dir + "' is not a folder");

    const std::string tmp = create_temp(path, dir, name);
    PendingFile pending(tmp);  // removed by a signal handler until renamed
    try {
        write(tmp);
        struct stat tst {};
        if (::stat(tmp.c_str(), &tst) != 0 || !S_ISREG(tst.st_mode))
            fail(path, "the temporary file vanished while being written");
        sync_file(path, tmp);
        if (t_output_set) {
            t_output_set->stage(path, tmp, std::move(pending));
            return;
        }
        if (std::rename(tmp.c_str(), path.c_str()) != 0) {
            const int err = errno;
            fail(path, "cannot replace the file: " + errno_text(err));
        }
    } catch (const OutputError&) {
        std::remove(tmp.c_str());
        throw;
    } catch (const std::exception& e) {
        std::remove(tmp.c_str());
        fail(path, e.what());
    } catch (...) {
        std::remove(tmp.c_str());
        fail(path, "unknown error while writing");
    }
}

namespace {

void write_data_atomically(const std::string& path, const char* data, std::size_t size) {
    write_atomically(path, [&](const std::string& tmp) {
        std::ofstream out(tmp, std::ios::binary);
        out.write(data, static_cast<std::streamsize>(size));
        out.close();  // errors can surface only when the file is closed
        if (out.fail()) {
            const int err = errno;  // ENOSPC, EDQUOT, EFBIG: the reason is what the user needs
            throw OutputError(path + ": cannot write" + (err ? std::string(": ") + errno_text(err) : std::string()));
        }
    });
}

}  // namespace

void write_text_atomically(const std::string& path, const std::string& text) { write_data_atomically(path, text.data(), text.size()); }

void write_bytes_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    write_data_atomically(path, reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace bake
