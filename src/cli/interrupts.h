#pragma once
// What SIGINT, SIGTERM, SIGHUP and SIGXFSZ do to a run (install once, first thing in main):
//   SIGINT, SIGTERM, SIGHUP: at once, every pending file (temporaries, backups) is removed and
//     the run is asked to stop (stop_request.h); it stops at its next checkpoint (between stages
//     and inputs, and as long stages advance), prints an "interrupted" line (a batch its total),
//     writes the report and exits with 128 + the signal's number. A second signal, or 3 s
//     without a checkpoint, ends the process at once by that signal, pending files removed.
//   SIGXFSZ (a file size limit, `ulimit -f`): ignored, so that the write fails with EFBIG and the
//     run ends as for any output error: exit 4, one line naming the file, nothing left behind.
#include "stop_request.h"  // signal_name

namespace bake {

void install_interrupt_handlers();

}  // namespace bake
