#include "shard.h"

#include <filesystem>
#include <stdexcept>

namespace bake {

namespace {

namespace fs = std::filesystem;

int parse_int(const std::string& text, const char* what) {
    std::size_t used = 0;
    long v = -1;
    try {
        v = std::stol(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || text.empty() || v < 0 || v > 1000000)
        throw std::invalid_argument(std::string(what) + " '" + text + "' is not a whole number");
    return static_cast<int>(v);
}

Shard checked(Shard s, const std::string& from) {
    if (s.count < 1 || s.count > 100000) throw std::invalid_argument(from + ": a shard count from 1 to 100000");
    if (s.index >= s.count)
        throw std::invalid_argument(from + ": shard " + std::to_string(s.index) + " of " + std::to_string(s.count) +
                                    " (shards are numbered from 0)");
    return s;
}

}  // namespace

Shard parse_shard(const std::string& text, const std::function<std::optional<std::string>(const char*)>& env) {
    if (text == "auto") {
        if (const auto id = env("SLURM_ARRAY_TASK_ID")) {
            const auto count = env("SLURM_ARRAY_TASK_COUNT");
            if (!count) throw std::invalid_argument("--shard auto: SLURM_ARRAY_TASK_ID without SLURM_ARRAY_TASK_COUNT");
            const auto min = env("SLURM_ARRAY_TASK_MIN");
            const int first = min ? parse_int(*min, "SLURM_ARRAY_TASK_MIN") : 0;
            return checked({parse_int(*id, "SLURM_ARRAY_TASK_ID") - first, parse_int(*count, "SLURM_ARRAY_TASK_COUNT")},
                           "--shard auto (Slurm)");
        }
        if (const auto index = env("JOB_COMPLETION_INDEX")) {
            const auto count = env("BAKE_SHARD_COUNT");
            if (!count)
                throw std::invalid_argument("--shard auto: JOB_COMPLETION_INDEX needs BAKE_SHARD_COUNT (the Job's completions)");
            return checked({parse_int(*index, "JOB_COMPLETION_INDEX"), parse_int(*count, "BAKE_SHARD_COUNT")},
                           "--shard auto (Kubernetes)");
        }
        throw std::invalid_argument("--shard auto: no SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX in the environment");
    }
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos) throw std::invalid_argument("'" + text + "' is not K/N or auto");
    return checked({parse_int(text.substr(0, slash), "the shard"), parse_int(text.substr(slash + 1), "the shard count")},
                   "--shard " + text);
}

std::uint64_t fnv1a64(const std::string& bytes) {
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string common_root(const std::vector<std::string>& paths) {
    std::optional<fs::path> root;
    for (const std::string& p : paths) {
        const fs::path folder = fs::path(p).lexically_normal().parent_path();
        if (!root) {
            root = folder;
            continue;
        }
        fs::path shared;
        for (auto a = root->begin(), b = folder.begin(); a != root->end() && b != folder.end() && *a == *b; ++a, ++b)
            shared /= *a;
        root = shared;
    }
    return root ? root->string() : "";
}

int shard_of(const std::string& path, const std::string& root, int count) {
    const fs::path relative = root.empty() ? fs::path(path).lexically_normal()
                                           : fs::path(path).lexically_normal().lexically_relative(root);
    return static_cast<int>(fnv1a64(relative.generic_string()) % static_cast<std::uint64_t>(count));
}

}  // namespace bake
