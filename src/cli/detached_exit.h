#pragma once

namespace bake {

// Ends the process with `code` now and leaves the release of what it holds to the kernel after
// its parent has seen it end. Tearing down a process that has used the GPU is the NVIDIA kernel
// driver freeing its context and memory, 20-45 ms on the GPU machine after every output is
// written (more than a 2048x1024 SH bake takes); freeing a large input's pages costs too. So a
// helper is made that shares the process's memory and file table (clone with CLONE_VM |
// CLONE_FILES, not a thread of it): when the process exits, both are still referenced and only
// the helper's exit, which the kernel forces as soon as the process is gone (PR_SET_PDEATHSIG),
// releases them. Standard input, output and error are closed first, so that a reader of the
// output sees its end with the exit. Nothing is written after this; every output is already
// renamed into place. Falls back to std::_Exit when the helper cannot be made, and
// BAKE_DETACHED_EXIT=0 turns it off (benchmarks: the same binary both ways).
[[noreturn]] void exit_detached(int code);

}  // namespace bake
