#include "program_cache.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "atomic_file.h"
#include "errors.h"
#include "file_guard.h"

namespace bake {

namespace {

// Entry layout: magic, GLenum binary format, key length, key, binary (to the end of the file).
constexpr char kMagic[8] = {'B', 'A', 'K', 'E', 'P', 'R', 'G', '1'};
constexpr std::size_t kMaxEntryBytes = std::size_t{64} << 20;  // a program binary is far smaller

std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string default_folder() {
    if (const char* v = std::getenv("BAKE_PROGRAM_CACHE")) {
        const std::string s = v;
        return s == "off" ? std::string() : s;
    }
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') return std::string(x) + "/bake-irradiance";
    if (const char* home = std::getenv("HOME"); home && *home == '/') return std::string(home) + "/.cache/bake-irradiance";
    return {};
}

bool make_folders(const std::string& path) {
    for (std::size_t at = 1; at <= path.size(); ++at) {
        if (at < path.size() && path[at] != '/') continue;
        const std::string prefix = path.substr(0, at);
        if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void clear_gl_errors() {
    for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
    }
}

}  // namespace

ProgramCache::ProgramCache(std::string driver_id) : driver_id_(std::move(driver_id)), folder_(default_folder()) {
    GLint formats = 0;
    glGetIntegerv(GL_NUM_PROGRAM_BINARY_FORMATS, &formats);
    clear_gl_errors();
    if (formats <= 0) folder_.clear();  // the driver keeps no binaries
}

std::string ProgramCache::entry_path(const std::string& key) const {
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.bin", static_cast<unsigned long long>(fnv1a(key)));
    return folder_ + "/" + name;
}

GLuint ProgramCache::load(const std::string& source) {
    if (!enabled()) return 0;
    const std::string key = driver_id_ + "\n" + source;
    std::ifstream in(entry_path(key), std::ios::binary);
    if (!in) return 0;
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t header = sizeof kMagic + 4 + 8;
    if (bytes.size() < header || bytes.size() > kMaxEntryBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        return 0;
    std::uint32_t format = 0;
    std::uint64_t key_length = 0;
    std::memcpy(&format, bytes.data() + sizeof kMagic, 4);
    std::memcpy(&key_length, bytes.data() + sizeof kMagic + 4, 8);
    if (key_length != key.size() || bytes.size() - header <= key_length ||
        std::memcmp(bytes.data() + header, key.data(), key.size()) != 0)
        return 0;  // another program's entry (a hash collision) or a damaged one
    const char* binary = bytes.data() + header + key_length;
    const auto binary_length = static_cast<GLsizei>(bytes.size() - header - key_length);
    clear_gl_errors();
    const GLuint program = glCreateProgram();
    glProgramBinary(program, static_cast<GLenum>(format), binary, binary_length);
    GLint ok = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok || glGetError() != GL_NO_ERROR) {
        glDeleteProgram(program);
        clear_gl_errors();
        return 0;
    }
    ++loaded_;
    return program;
}

void ProgramCache::store(GLuint program, const std::string& source) {
    if (!enabled()) return;
    GLint length = 0;
    glGetProgramiv(program, GL_PROGRAM_BINARY_LENGTH, &length);
    if (length <= 0 || static_cast<std::size_t>(length) > kMaxEntryBytes) {
        clear_gl_errors();
        return;
    }
    std::vector<char> binary(static_cast<std::size_t>(length));
    GLenum format = 0;
    GLsizei got = 0;
    glGetProgramBinary(program, length, &got, &format, binary.data());
    if (glGetError() != GL_NO_ERROR || got <= 0) {
        clear_gl_errors();
        return;
    }
    if (!folder_made_ && !make_folders(folder_)) return;
    if (!folder_made_) allow_writes_under(folder_);  // the cache's own files, never a user's (file_guard.h)
    folder_made_ = true;
    const std::string key = driver_id_ + "\n" + source;
    const std::uint32_t format32 = format;
    const std::uint64_t key_length = key.size();
    try {
        write_atomically(entry_path(key), [&](const std::string& tmp) {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            out.write(kMagic, sizeof kMagic);
            out.write(reinterpret_cast<const char*>(&format32), 4);
            out.write(reinterpret_cast<const char*>(&key_length), 8);
            out.write(key.data(), static_cast<std::streamsize>(key.size()));
            out.write(binary.data(), got);
            out.close();
            if (!out) throw OutputError(tmp + ": write error");
        });
        ++stored_;
    } catch (const std::exception&) {
        // A read-only or full cache folder costs a compile next time, nothing more.
    }
}

}  // namespace bake
