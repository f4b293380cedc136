#include "file_guard.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "errors.h"

namespace bake {

namespace fs = std::filesystem;

std::string path_key(const std::string& path) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec).lexically_normal();
    const fs::path canonical = fs::weakly_canonical(absolute, ec);
    return (ec ? absolute : canonical).string();
}

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// "--depfile" or "--name for 'maps/sky.hdr'": who uses a file, for the messages.
std::string who(const FileGuard::Use& u) { return u.owner.empty() ? u.option : u.option + " of " + quoted(u.owner); }

// The folder a file is written in ("." for a bare name).
fs::path folder_of(const std::string& path) {
    const fs::path p(path);
    return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

// Whether a file can be made in `folder` (which exists): made and removed at once. Permission
// bits say nothing to root, and sysfs, read-only mounts and quotas refuse root too; trying is the
// one answer that holds everywhere.
int probe_folder(const fs::path& folder) {
    static int counter = 0;
    const std::string probe =
        (folder / (".bake-probe-" + std::to_string(::getpid()) + "-" + std::to_string(counter++))).string();
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return errno;
    ::close(fd);
    ::unlink(probe.c_str());
    return 0;
}

struct Seal {
    std::mutex mutex;
    bool sealed = false;
    std::set<std::string> keys;
    std::vector<std::string> folders;  // allow_writes_under's, as keys ending in '/'
};
Seal& seal_state() {
    static Seal s;
    return s;
}

}  // namespace

void FileGuard::read(const std::string& path, const std::string& option) {
    uses_.push_back({path, path_key(path), option, "", Use::Read, false});
}

void FileGuard::write(const std::string& path, const std::string& option, const std::string& owner, bool now) {
    uses_.push_back({path, path_key(path), option, owner, Use::Write, now});
}

void FileGuard::state(const std::string& path, const std::string& option, const std::string& owner) {
    uses_.push_back({path, path_key(path), option, owner, Use::State, false});
}

void FileGuard::check(bool no_clobber) const {
    // Overlaps, in declaration order: the first use of a file is the one the message names.
    std::map<std::string, const Use*> first;
    for (const Use& u : uses_) {
        const auto [it, fresh] = first.emplace(u.key, &u);
        if (fresh) continue;
        const Use& e = *it->second;
        if (e.kind == Use::Read && u.kind == Use::Read) continue;  // an input given twice is read twice
        // The message names the option that would do the damage: the writer, not what it hits.
        std::string problem;
        const Use* culprit = &u;
        if (e.kind == Use::Read || u.kind == Use::Read) {
            const Use& reader = e.kind == Use::Read ? e : u;
            culprit = e.kind == Use::Read ? &u : &e;
            problem = " is also read by this run (" + reader.option + " " + quoted(reader.path) + "): it would be overwritten";
        } else if (e.kind == Use::State && u.kind == Use::State) {
            problem = " is the --skip-unchanged manifest of " + quoted(e.owner) + " and of " + quoted(u.owner);
        } else if (e.kind == Use::State || u.kind == Use::State) {
            const Use& manifest = e.kind == Use::State ? e : u;
            culprit = e.kind == Use::State ? &u : &e;
            problem = " is the --skip-unchanged manifest of " + quoted(manifest.owner) + ": it would be overwritten";
        } else {
            problem = " would be written twice (by " + who(e) + " and " + who(u) + ")";
        }
        throw UsageError(culprit->option + ": " + quoted(culprit->path) + problem);
    }
    // Folders, and what is there already, for the files written now.
    std::map<std::string, int> probed;  // folder -> errno of the probe (0: a file can be made)
    for (const Use& u : uses_) {
        if (u.kind != Use::Write || !u.now) continue;
        std::error_code ec;
        if (fs::is_directory(u.path, ec)) throw OutputError(u.path + ": is a folder");
        if (no_clobber && fs::exists(u.path, ec)) throw OutputError(u.path + ": exists (--no-clobber)");
        // The nearest part of the folder that exists must be a folder a file can be made in (the
        // rest is made by make_folders, in it).
        fs::path existing = folder_of(u.path);
        while (!existing.empty() && !fs::exists(existing, ec)) existing = existing.parent_path();
        if (existing.empty()) existing = ".";
        if (!fs::is_directory(existing, ec)) throw OutputError(u.path + ": " + existing.string() + " is not a folder");
        const auto [it, fresh] = probed.emplace(existing.string(), 0);
        if (fresh) it->second = probe_folder(existing);
        if (it->second != 0)
            throw OutputError(u.path + ": cannot create a file in folder " + quoted(existing.string()) + ": " +
                              std::strerror(it->second));
    }
}

void FileGuard::make_folders() const {
    for (const Use& u : uses_) {
        if (u.kind != Use::Write || !u.now) continue;
        const fs::path folder = folder_of(u.path);
        std::error_code ec;
        if (fs::is_directory(folder, ec)) continue;
        fs::create_directories(folder, ec);
        if (ec) throw OutputError(folder.string() + ": cannot create folder: " + ec.message());
    }
}

void FileGuard::seal() const {
    Seal& s = seal_state();
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.sealed = true;
    s.keys.clear();
    for (const Use& u : uses_)
        if (u.kind != Use::Read) s.keys.insert(u.key);
}

bool FileGuard::may_write(const std::string& path, bool no_clobber) const {
    const std::string key = path_key(path);
    int uses = 0;
    for (const Use& u : uses_) uses += u.key == key;
    if (uses > 1) return false;
    std::error_code ec;
    if (fs::is_directory(path, ec) || (no_clobber && fs::exists(path, ec))) return false;
    return true;
}

bool write_declared(const std::string& path) {
    Seal& s = seal_state();
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.sealed) return true;
    const std::string key = path_key(path);
    if (s.keys.count(key)) return true;
    for (const std::string& folder : s.folders)
        if (key.compare(0, folder.size(), folder) == 0) return true;
    return false;
}

void allow_writes_under(const std::string& folder) {
    Seal& s = seal_state();
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.folders.push_back(path_key(folder) + "/");
}

void reset_seal() {
    Seal& s = seal_state();
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.sealed = false;
    s.keys.clear();
    s.folders.clear();
}

}  // namespace bake
