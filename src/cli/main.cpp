#include "bake_app.h"

int main(int argc, char** argv) { return bake::run_bake_app(argc, argv); }
