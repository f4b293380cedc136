#pragma once
// Sharding a batch across the tasks of a job array (Slurm, Kubernetes Indexed Jobs, render-farm
// managers): every task runs the same command with its own index K of N and bakes only the inputs
// of shard K. Which shard an input falls in is a stable hash (FNV-1a, 64 bits, written out here:
// std::hash may differ between builds) of its path relative to the batch's root, the longest
// folder all inputs share. Not its position: an input added to the library (a glob that grows)
// then moves no other input to another shard, so incremental bakes stay incremental. Relative to
// the root: the same library mounted at another path on another node shards the same way.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bake {

struct Shard {
    int index = 0;  // 0-based
    int count = 1;
};

// "K/N" (0 <= K < N <= 100000), or "auto": the scheduler's environment, read through `env`
// (getenv in the tool): Slurm's task (SLURM_ARRAY_TASK_ID - _MIN) / _STEP of _COUNT, for an array
// that is one evenly stepped range (--array=0-15, 1-16, 0-30:2; _MAX says so; a list such as
// 1,3,8 is refused), else Kubernetes' JOB_COMPLETION_INDEX of BAKE_SHARD_COUNT (an Indexed
// Job does not export its completions count: the Job's spec sets it). Throws std::invalid_argument
// with a one-line reason.
Shard parse_shard(const std::string& text, const std::function<std::optional<std::string>(const char*)>& env);

// 64-bit FNV-1a of the bytes.
std::uint64_t fnv1a64(const std::string& bytes);

// The longest folder every path lies in (lexically, after normalising "./" and ".."); "" when
// they share none.
std::string common_root(const std::vector<std::string>& paths);

// The shard a path relative to `root` falls in.
int shard_of(const std::string& path, const std::string& root, int count);

}  // namespace bake
