#include "shard.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace bake {

namespace {

namespace fs = std::filesystem;

// A count or an index as plain digits: no sign, no spaces (one rule, wherever it is written).
int parse_int(const std::string& text, const std::string& what) {
    const bool digits = !text.empty() && text.size() <= 7 && text.find_first_not_of("0123456789") == std::string::npos;
    if (digits) return std::stoi(text);
    if (text.size() > 1 && text[0] == '-' && text.find_first_not_of("0123456789", 1) == std::string::npos)
        throw std::invalid_argument(what + " '" + text + "' must be 0 or more");
    throw std::invalid_argument(what + " '" + text + "' is not a whole number (digits only, no spaces)");
}

Shard checked(Shard s, const std::string& from) {
    if (s.count < 1 || s.count > 100000)
        throw std::invalid_argument(from + "a shard count from 1 to 100000, not " + std::to_string(s.count));
    if (s.index >= s.count)
        throw std::invalid_argument(from + "shard " + std::to_string(s.index) + " of " + std::to_string(s.count) +
                                    " does not exist (shards are numbered from 0 to " + std::to_string(s.count - 1) + ")");
    return s;
}

// Slurm's array task as a shard. The task IDs of --array are not the shard numbers: 1-16 starts at
// 1, 0-30:2 steps by 2, and Slurm exports the array's shape (MIN, MAX, STEP, COUNT) but not the
// task's position in it. That position is (ID - MIN) / STEP only when the IDs are one evenly
// stepped range, MAX = MIN + STEP (COUNT - 1); a list (--array=1,3,8: MIN 1, MAX 8, STEP 1, COUNT
// 3) is refused by every task, since no task can tell which shard is its own. A throttle (%4)
// changes none of these. Slurm before 15.08 exported neither MAX nor STEP: MIN and COUNT then.
Shard slurm_shard(const std::function<std::optional<std::string>(const char*)>& env) {
    const long long id = parse_int(*env("SLURM_ARRAY_TASK_ID"), "SLURM_ARRAY_TASK_ID");
    const auto count_text = env("SLURM_ARRAY_TASK_COUNT");
    if (!count_text) throw std::invalid_argument("auto: SLURM_ARRAY_TASK_ID without SLURM_ARRAY_TASK_COUNT");
    const long long count = parse_int(*count_text, "SLURM_ARRAY_TASK_COUNT");
    if (count < 1) throw std::invalid_argument("auto (Slurm): SLURM_ARRAY_TASK_COUNT=" + *count_text + ": an array has at least one task");
    const auto min_text = env("SLURM_ARRAY_TASK_MIN"), max_text = env("SLURM_ARRAY_TASK_MAX"),
               step_text = env("SLURM_ARRAY_TASK_STEP");
    const long long first = min_text ? parse_int(*min_text, "SLURM_ARRAY_TASK_MIN") : 0;
    const long long step = step_text ? parse_int(*step_text, "SLURM_ARRAY_TASK_STEP") : 1;
    if (step < 1) throw std::invalid_argument("auto (Slurm): SLURM_ARRAY_TASK_STEP=0");
    const long long last = max_text ? parse_int(*max_text, "SLURM_ARRAY_TASK_MAX") : first + step * (count - 1);
    const std::string shape = "SLURM_ARRAY_TASK_MIN=" + std::to_string(first) + ", _MAX=" + std::to_string(last) +
                              ", _STEP=" + std::to_string(step) + ", _COUNT=" + std::to_string(count);
    if (last != first + step * (count - 1))
        throw std::invalid_argument("auto (Slurm): the array is not one evenly stepped range (" + shape +
                                    "; a list such as --array=1,3,8 makes this): submit --array=0-" +
                                    std::to_string(count - 1) + ", or give each task --shard K/N");
    if (id < first || id > last || (id - first) % step != 0)
        throw std::invalid_argument("auto (Slurm): SLURM_ARRAY_TASK_ID=" + std::to_string(id) +
                                    " is not in the array (" + shape + ")");
    return checked({static_cast<int>((id - first) / step), static_cast<int>(count)}, "auto (Slurm): ");
}

}  // namespace

Shard parse_shard(const std::string& text, const std::function<std::optional<std::string>(const char*)>& env) {
    if (text == "auto") {
        if (env("SLURM_ARRAY_TASK_ID")) return slurm_shard(env);
        if (const auto index = env("JOB_COMPLETION_INDEX")) {
            const auto count = env("BAKE_SHARD_COUNT");
            if (!count)
                throw std::invalid_argument("auto: JOB_COMPLETION_INDEX needs BAKE_SHARD_COUNT (the Job's completions)");
            return checked({parse_int(*index, "JOB_COMPLETION_INDEX"), parse_int(*count, "BAKE_SHARD_COUNT")},
                           "auto (Kubernetes): ");
        }
        throw std::invalid_argument("auto: no SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX in the environment");
    }
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos) throw std::invalid_argument("'" + text + "' is not K/N or auto");
    return checked({parse_int(text.substr(0, slash), "the shard"), parse_int(text.substr(slash + 1), "the shard count")},
                   "'" + text + "': ");
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
