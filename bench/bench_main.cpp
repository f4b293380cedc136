// bake-bench: GPU projection throughput against the card's own measured memory bandwidth, the
// CPU double path's throughput and scaling, and the end-to-end stages of a large EXR; or one of
// the other sections (--whole-process, --exact, --specular, --specular-source, --ktx2, --sun, --bc6h,
// --cpu-only). Prints tables and writes JSON (--json). Every GPU variant is first checked against the
// CPU double path (1e-5 relative) before anything is timed. The sections live in their own files:
// gl_bandwidth, projection_bench, e2e_stages (in-process GPU), end_to_end (whole processes),
// exact_bench, specular_bench, specular_accuracy, ktx2_bench, sun_bench, bc6h_bench, bc6h_quality.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "bc6h_bench.h"
#include "bench_args.h"
#include "e2e_stages.h"
#include "end_to_end.h"
#include "exact_bench.h"
#include "gl_bandwidth.h"
#include "gl_context.h"
#include "gpu_projector.h"
#include "ktx2_bench.h"
#include "projection_bench.h"
#include "specular_bench.h"
#include "sun_bench.h"

using namespace bake;
using Json = nlohmann::json;

namespace {

int write_json(const bench::Args& args, const Json& out, int rc, bool say_wrote = true) {
    std::ofstream(args.json_path) << out.dump(1) << "\n";
    if (say_wrote) std::printf("wrote %s\n", args.json_path.c_str());
    return rc;
}

// The sections that need no GL context; -1 when none of them was asked for.
int run_without_context(const bench::Args& args, unsigned hw_threads, Json& out) {
    if (!args.whole.dir.empty()) {  // whole processes only: no GL context in this process
        bench::WholeProcessOptions w = args.whole;
        w.quick = args.quick;
        w.repeats = args.repeats_given ? args.repeats : 3;
        return write_json(args, out, bench::run_whole_process(w, &out["whole_process"]));
    }
    if (args.specular_source) {  // CPU only: no GL context
        out["cpu_threads"] = hw_threads;
        bench::run_specular_source_bench(args.repeats_given ? args.repeats : 3, &out["specular_source"]);
        if (!args.specular_maps.empty())
            for (int base : {16, 64})
                bench::run_specular_accuracy(args.specular_maps, base, &out["specular_accuracy"][std::to_string(base)]);
        return write_json(args, out, 0);
    }
    if (args.ktx2) {  // CPU only: no GL context
        bench::run_ktx2_bench(args.repeats_given ? args.repeats : 9, &out["ktx2"]);
        return write_json(args, out, 0);
    }
    if (args.sun) {  // CPU only: no GL context
        bench::run_sun_bench(args.repeats_given ? args.repeats : 5, args.e2e_width, &out["sun"]);
        return write_json(args, out, 0);
    }
    if (!args.bc6h_quality.empty()) {  // CPU only: no GL context
        bench::run_bc6h_quality(args.bc6h_quality, &out["bc6h_quality"]);
        return write_json(args, out, 0);
    }
    if (args.cpu_only) {
        out["cpu_threads"] = hw_threads;
        out["cpu_scaling"] = bench::cpu_scaling(args.cpu_scaling_size, hw_threads);
        return write_json(args, out, 0, false);
    }
    return -1;
}

// The drivers' program binaries, printable runs only (NVIDIA's hold the assembly).
void write_programs(GpuProjector& gpu, const std::string& path) {
    std::ofstream prog(path);
    for (const auto& entry : gpu.program_binaries()) {
        prog << "==== " << entry.first << "\n==== " << entry.second.size() << " bytes\n";
        std::string run;
        for (char c : entry.second) {
            if (c == '\n' || (c >= 32 && c < 127)) run += c;
            else {
                if (run.size() >= 8) prog << run << "\n";
                run.clear();
            }
        }
        if (run.size() >= 8) prog << run << "\n";
    }
}

// The default run: bandwidth, the projection table, variants, CPU scaling, the irradiance map
// and the in-process end to end, then the tables once more.
int run_gpu_sections(const bench::Args& args, const GlContext& ctx, GpuProjector& gpu, unsigned hw_threads,
                     Json& out) {
    bench::set_wall_clock_only(ctx.info().renderer.find("llvmpipe") != std::string::npos ||
                               ctx.info().renderer.find("softpipe") != std::string::npos);
    const GpuTuning defaults = gpu.tuning();
    out["renderer"] = ctx.info().renderer;
    out["gl_version"] = ctx.info().version;
    out["cpu_threads"] = hw_threads;
    out["tuning"] = defaults.describe();
    std::printf("renderer: %s | %s | %u CPU threads | tuning %s\n", ctx.info().renderer.c_str(),
                ctx.info().version.c_str(), hw_threads, defaults.describe().c_str());
    const bench::Bandwidth bw =
        bench::measure_bandwidth(gpu.buffer_storage_available(), args.copy_bytes, &out["bandwidth"]);
    out["empty_dispatch_ms"] = bench::empty_dispatch_ms();
    std::printf("one-group empty dispatch + barrier, back to back: %.4f ms each\n\n",
                out["empty_dispatch_ms"].get<double>());

    bench::ProjectionOptions po;
    po.sizes = args.sizes;
    po.repeats = args.repeats;
    po.cpu_max_size = args.cpu_max_size;
    po.hw_threads = hw_threads;
    po.bandwidth_gbs = bw.reference;
    std::string table, variant_table, e2e_text;
    if (!bench::projection_table(gpu, po, &table, &out["projection"])) return 6;
    out["timer_queries_plausible"] = bench::timer_queries_plausible();
    if (!bench::timer_queries_plausible())
        std::printf("(software renderer or timer queries reading ~0: times above are wall-clock around finished "
                    "calls, read-back included; batch = wall of a batch / repetitions)\n");
    if (args.variants) variant_table = bench::variants_table(gpu, po, &out["variants"]);
    if (!args.programs_path.empty()) write_programs(gpu, args.programs_path);
    out["cpu_scaling"] = bench::cpu_scaling(args.cpu_scaling_size, hw_threads);
    bench::irradiance_map_bench(gpu, args.repeats, &out);
    if (args.e2e) e2e_text = bench::end_to_end_stages(gpu, args.e2e_width, hw_threads, &out["end_to_end"]);

    write_json(args, out, 0, false);
    // The tables once more, last (the device reply keeps the end of the output).
    std::printf("\n==== summary: %s | %s\nbandwidth reference %.1f GB/s (copy %.1f, read %.1f)\n%s%s%s\nwrote %s\n",
                ctx.info().renderer.c_str(), ctx.info().version.c_str(), bw.reference, bw.copy, bw.read, table.c_str(),
                variant_table.c_str(), e2e_text.c_str(), args.json_path.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const bench::Args args = bench::parse_args(argc, argv);
    Json out;
    const unsigned hw_threads = std::max(1u, std::thread::hardware_concurrency());
    if (const int rc = run_without_context(args, hw_threads, out); rc >= 0) return rc;
    std::unique_ptr<GlContext> ctx;
    try {
        ctx = GlContext::create(GlBackend::Auto);
    } catch (const GpuError& e) {
        std::fprintf(stderr, "bake-bench: %s\n", e.what());
        return 5;
    }
    GpuProjector gpu(*ctx);
    if (args.exact) {
        out["renderer"] = ctx->info().renderer;
        bench::run_exact_bench(gpu, args.quick, args.repeats_given ? args.repeats : 5, &out["exact_irradiance"]);
        return write_json(args, out, 0);
    }
    if (args.bc6h) {
        out["renderer"] = ctx->info().renderer;
        const bool same = bench::run_bc6h_bench(gpu, args.bc6h_chain, args.repeats_given ? args.repeats : 5, &out["bc6h"]);
        return write_json(args, out, same ? 0 : 6);
    }
    if (args.specular) {
        out["renderer"] = ctx->info().renderer;
        bench::SpecularBenchOptions so;
        so.quick = args.quick;
        so.repeats = args.repeats_given ? args.repeats : 5;
        so.dir = args.specular_dir;
        so.tool = args.whole.tool;
        so.cmgen = args.whole.cmgen;
        bench::run_specular_bench(gpu, so, &out["specular"]);
        return write_json(args, out, 0);
    }
    return run_gpu_sections(args, *ctx, gpu, hw_threads, out);
}
