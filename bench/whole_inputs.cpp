// Inputs of the whole-process section: read back the header of a generated file to know it is the
// one asked for, and generate it with make-sample-sky otherwise.
#include "whole_inputs.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace bench {
namespace {

namespace fs = std::filesystem;

struct Header {
    int width = 0, height = 0;
    bool half_dwab = false;
};

// Width and height from the file's own header (Radiance resolution line, EXR dataWindow), and
// whether an EXR is half DWAB: enough to know a generated input is the one asked for.
Header read_header(const std::string& path) {
    Header h;
    std::ifstream f(path, std::ios::binary);
    std::vector<char> buf(65536);
    f.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const size_t n = static_cast<size_t>(f.gcount());
    if (n >= 4 && static_cast<unsigned char>(buf[0]) == 0x76 && buf[1] == 0x2f && buf[2] == 0x31 && buf[3] == 0x01) {
        size_t p = 8;
        auto cstr = [&](std::string* s) {
            s->clear();
            while (p < n && buf[p]) s->push_back(buf[p++]);
            return p++ < n;
        };
        auto i32 = [&](size_t at) {
            int32_t v = 0;
            if (at + 4 <= n) std::memcpy(&v, &buf[at], 4);
            return v;
        };
        bool dwab = false, all_half = true;
        std::string name, type;
        while (cstr(&name) && !name.empty() && cstr(&type) && p + 4 <= n) {
            const size_t size = static_cast<size_t>(i32(p)), v = p + 4;
            if (name == "dataWindow" && size == 16) {
                h.width = i32(v + 8) - i32(v) + 1;
                h.height = i32(v + 12) - i32(v + 4) + 1;
            } else if (name == "compression" && size == 1 && v < n) {
                dwab = buf[v] == 9;  // DWAB_COMPRESSION
            } else if (name == "channels") {
                for (size_t q = v; q < v + size && q < n && buf[q];) {
                    while (q < n && buf[q]) ++q;
                    all_half = all_half && i32(q + 1) == 1;  // HALF
                    q += 1 + 16;
                }
            }
            p = v + size;
        }
        h.half_dwab = dwab && all_half;
        return h;
    }
    // Radiance: header lines, a blank line, then "-Y H +X W".
    std::istringstream in(std::string(buf.data(), n));
    std::string line;
    bool blank = false;
    while (std::getline(in, line)) {
        if (blank) {
            std::sscanf(line.c_str(), "-Y %d +X %d", &h.height, &h.width);
            break;
        }
        blank = line.empty();
    }
    return h;
}

bool input_ok(const Input& in) {
    if (!fs::exists(in.path)) return false;
    const Header h = read_header(in.path);
    return h.width == in.width && h.height == in.width / 2 && h.half_dwab == in.exr;
}

// Generated once into DIR (through a temporary name, so a file there is always complete).
}  // namespace

// Generated once into DIR (through a temporary name, so a file there is always complete).
void ensure_input(Input& in, const std::string& sky_tool, bool sky_ok, Runner& run) {
    // The header cannot tell variant or grain: the file name carries them.
    in.present = input_ok(in);
    if (in.present || !sky_ok) return;
    const fs::path final_path(in.path);
    const std::string tmp = (final_path.parent_path() / ("partial-" + final_path.filename().string())).string();
    std::vector<std::string> argv{sky_tool, tmp, "--width", std::to_string(in.width)};
    if (in.exr) argv.insert(argv.end(), {"--half", "--compression", "dwab"});
    if (in.variant > 0) argv.insert(argv.end(), {"--variant", std::to_string(in.variant)});
    if (in.grain > 0) argv.insert(argv.end(), {"--grain", fmt("%g", in.grain)});
    const std::string out = run.logs + "/make-sample-sky.out", err = run.logs + "/make-sample-sky.err";
    const RunResult r = run_process(argv, run.work, out, err);
    std::error_code ec;
    if (r.exit_code == 0) fs::rename(tmp, in.path, ec);
    in.present = r.exit_code == 0 && !ec && input_ok(in);
    say(in.present ? fmt("  generated %s (%s) in %.2f s\n", in.path.c_str(), in.label.c_str(), r.seconds)
                   : fmt("  could not generate %s (exit %d): %s\n", in.path.c_str(), r.exit_code,
                         first_line(err).c_str()));
}

}  // namespace bench
