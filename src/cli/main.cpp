#include "bake_app.h"
#include "interrupts.h"
#include "trace.h"

int main(int argc, char** argv) {
    bake::trace_event("main");
    bake::install_interrupt_handlers();
    return bake::run_bake_app(argc, argv);
}
