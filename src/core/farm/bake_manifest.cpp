#include "bake_manifest.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "file_guard.h"

namespace bake {

namespace {

struct XxhState {
    XXH64_state_t* s = XXH64_createState();
    ~XxhState() { XXH64_freeState(s); }
};

nlohmann::json digest_json(const FileDigest& d) { return {{"file", d.file}, {"size", d.size}, {"xxh64", d.xxh64}}; }

}  // namespace

FileDigest digest_file(const std::string& path) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!f) throw std::runtime_error(path + ": cannot be read");
    XxhState state;
    XXH64_reset(state.s, 0);
    std::vector<char> buffer(std::size_t{1} << 20);
    FileDigest d;
    d.file = path_key(path);
    for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), f.get())) > 0;) {
        XXH64_update(state.s, buffer.data(), n);
        d.size += n;
    }
    if (std::ferror(f.get())) throw std::runtime_error(path + ": read error");
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH64_digest(state.s)));
    d.xxh64 = hex;
    return d;
}

std::string manifest_path(const std::string& first_output) { return first_output + ".bake.json"; }

void remove_manifest(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return;
    std::stringstream ss;
    ss << in.rdbuf();
    const nlohmann::json m = nlohmann::json::parse(ss.str(), nullptr, false);
    if (m.is_object() && m.contains("manifest_version") && m.contains("outputs")) std::remove(path.c_str());
}

std::string manifest_text(const std::string& generator, const std::string& fingerprint,
                          const std::vector<FileDigest>& inputs, const std::vector<FileDigest>& outputs) {
    nlohmann::json j = {{"manifest_version", 1}, {"generator", generator}, {"options", fingerprint},
                        {"inputs", nlohmann::json::array()}, {"outputs", nlohmann::json::array()}};
    for (const FileDigest& d : inputs) j["inputs"].push_back(digest_json(d));
    for (const FileDigest& d : outputs) j["outputs"].push_back(digest_json(d));
    return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

bool outputs_unchanged(const std::string& path, const std::string& generator, const std::string& fingerprint,
                       const std::vector<std::string>& inputs, const std::vector<std::string>& outputs, std::string* reason) {
    auto no = [&](const std::string& why) {
        *reason = why;
        return false;
    };
    std::ifstream in(path, std::ios::binary);
    if (!in) return no("no manifest of an earlier bake");
    nlohmann::json m;
    try {
        std::stringstream ss;
        ss << in.rdbuf();
        m = nlohmann::json::parse(ss.str());
    } catch (const std::exception&) {
        return no("the manifest is damaged");
    }
    if (!m.is_object() || m.value("manifest_version", 0) != 1) return no("the manifest is damaged");
    if (m.value("generator", "") != generator) return no("baked by " + m.value("generator", std::string("?")) + ", now " + generator);
    if (m.value("options", "") != fingerprint) return no("the options changed");
    // Same files, in the same order, with the same bytes: sizes first (cheap), then hashes.
    auto same = [&](const char* key, const std::vector<std::string>& files, const char* what) {
        const nlohmann::json& listed = m.value(key, nlohmann::json::array());
        if (!listed.is_array() || listed.size() != files.size()) return no(std::string("the ") + what + " changed");
        for (std::size_t i = 0; i < files.size(); ++i) {
            const nlohmann::json& e = listed[i];
            if (!e.is_object() || e.value("file", "") != path_key(files[i])) return no(std::string("the ") + what + " changed");
            FileDigest now;
            try {
                now = digest_file(files[i]);
            } catch (const std::exception&) {
                return no(files[i] + " is missing");
            }
            if (now.size != e.value("size", std::uint64_t{0}) || now.xxh64 != e.value("xxh64", ""))
                return no(files[i] + " changed");
        }
        return true;
    };
    if (!same("inputs", inputs, "input files") || !same("outputs", outputs, "outputs")) return false;
    *reason = "unchanged";
    return true;
}

}  // namespace bake
