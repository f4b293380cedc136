#pragma once
// A run's inputs, baked one after the other on the calling thread (the one that owns the GL
// context) and overlapped where nothing visible depends on it. One input's way through a batch:
//
//   decode    on a worker thread, up to `decode_ahead` inputs before its turn (--jobs); the first
//             inputs also while the GL context starts (decode_first)
//   stages    Bake::compute on the calling thread; the backend is handed the next input once that
//             one is decoded (Bake::set_next_input -> Backend::set_next_input), so that the GPU
//             receives its texels and makes its specular source while it finishes this input
//   write     on a writer thread while the next inputs bake: two inputs in flight at most (one
//             under fail_fast), each committing its files only once the one before it has
//   conclude  on the calling thread, in input order: its checks (--golden), status and lines
//
// What a run shows is what inputs baked one after the other would show: outputs committed in
// input order (an interruption leaves a prefix of the inputs baked), lines in input order (an
// input's lines wait while an earlier one is still being written), the first failed input's exit
// code. docs/ARCHITECTURE.md draws the sequence.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bake.h"

namespace bake {

// The exit code and error line of what ended an input or a run (InputError: 3, OutputError: 4,
// GpuError: 5, UsageError: 2, anything else: 1).
std::pair<int, std::string> failure_of(const std::exception& e);

// What a batch says, on the calling thread, in input order.
class BatchLog : public BakeLog {
public:
    virtual void input(const BakeJob& job) = 0;          // job's stages begin (stage lines name it)
    virtual void writing(const BakeJob& job) = 0;        // waiting for job's outputs to be written
    virtual void stages_done() = 0;                      // no stage running now
    virtual void error(const std::string& line) = 0;     // an input's error line
    virtual void finished(const FileReport& rep) = 0;    // an input is done: ok, failed or skipped
};

struct BatchSettings {
    int decode_ahead = 0;  // --jobs, resolved
    bool fail_fast = false;
};

class Batch {
public:
    // skipped[i]: job i's report when it is skipped as unchanged (--skip-unchanged), decided before
    // any work; it is neither decoded nor baked.
    Batch(const std::vector<BakeJob>& jobs, const BakeSettings& settings, BatchSettings batch,
          std::vector<std::optional<FileReport>> skipped);
    ~Batch();  // waits for the decodes still running

    // The first input and the next `more` (at most decode_ahead) decode from now: called before the
    // GL context is made, so that both happen at once. cells_on_gpu: the GPU will sum their report
    // cells (Bake::cells_on_gpu, guessed before the context exists).
    void decode_first(int more, bool cells_on_gpu);

    // What the first input to bake will most likely need, guessed from its name and header before
    // it decodes (.hdr: RGBE lat-long; .exr: half lat-long; six faces or a forced cube layout: a
    // cube), so that a backend can prepare while it decodes (Backend::prepare).
    PrepareHint first_input_hint() const;

    // Bakes every input; reports[i] (sized to the jobs) gets input i's outcome. Returns the first
    // failed input's label (empty: none). Throws Interrupted once the writes in flight have ended
    // and every input's report says how far it came.
    std::string run(Devices& devices, BatchLog& log, std::vector<FileReport>& reports);

private:
    class Decoding;
    class Run;
    const std::vector<BakeJob>& jobs_;
    const BakeSettings& settings_;
    BatchSettings batch_;
    std::vector<std::optional<FileReport>> skipped_;
    std::unique_ptr<Decoding> decoding_;
};

}  // namespace bake
