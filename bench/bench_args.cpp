// bake-bench's command line.
#include "bench_args.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace bench {

Args parse_args(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (s == "--quick") {  // for llvmpipe: small sizes, a small e2e map
            a.sizes = {64, 256, 512};
            a.repeats = 5;
            a.e2e_width = 2048;
            a.copy_bytes = size_t(1) << 26;
            a.cpu_scaling_size = 256;
            a.quick = true;
        } else if (s == "--sizes") {
            a.sizes.clear();
            std::string v = next();
            for (size_t p = 0; p < v.size();) {
                const size_t q = v.find(',', p);
                a.sizes.push_back(std::stoi(v.substr(p, q - p)));
                p = q == std::string::npos ? v.size() : q + 1;
            }
        } else if (s == "--repeats") {
            a.repeats = std::max(1, std::stoi(next()));
            a.repeats_given = true;
        } else if (s == "--cpu-max-size") {
            a.cpu_max_size = std::stoi(next());
        } else if (s == "--json") {
            a.json_path = next();
        } else if (s == "--programs") {
            a.programs_path = next();
        } else if (s == "--no-e2e") {
            a.e2e = false;
        } else if (s == "--variants") {
            a.variants = true;
        } else if (s == "--cpu-only") {
            a.cpu_only = true;
        } else if (s == "--e2e-width") {
            a.e2e_width = std::stoi(next());
        } else if (s == "--exact") {
            a.exact = true;
        } else if (s == "--specular") {
            a.specular = true;
        } else if (s == "--specular-source") {
            a.specular_source = true;
        } else if (s == "--ktx2") {
            a.ktx2 = true;
        } else if (s == "--sun") {
            a.sun = true;
        } else if (s == "--bc6h") {
            a.bc6h = true;
        } else if (s == "--bc6h-chain") {
            a.bc6h_chain = next();
        } else if (s == "--bc6h-quality") {
            a.bc6h_quality.push_back(next());
            while (i + 1 < argc && argv[i + 1][0] != '-') a.bc6h_quality.push_back(argv[++i]);
        } else if (s == "--specular-maps") {
            a.specular_maps = next();
        } else if (s == "--specular-dir") {
            a.specular_dir = next();
        } else if (s == "--whole-process") {
            a.whole.dir = next();
        } else if (s == "--tool") {
            a.whole.tool = next();
        } else if (s == "--sky-tool") {
            a.whole.sky_tool = next();
        } else if (s == "--cmgen") {
            a.whole.cmgen = next();
        } else if (s == "--grain") {
            a.whole.grain = std::stod(next());
        } else if (s == "--budget") {
            a.whole.budget_s = std::stod(next());
        } else {
            std::fprintf(stderr, "usage: bake-bench [--quick] [--sizes 256,512] [--repeats N] [--cpu-max-size N] "
                                 "[--json out.json] [--programs out.txt] [--variants] [--cpu-only] [--no-e2e] "
                                 "[--e2e-width W]\n"
                                 "       bake-bench --whole-process DIR [--quick] [--repeats N] [--json out.json] "
                                 "[--tool bake-irradiance] [--sky-tool make-sample-sky] [--cmgen cmgen] [--grain G] [--budget S]\n"
                                 "       bake-bench --exact [--quick] [--repeats N] [--json out.json]\n"
                                 "       bake-bench --specular [--quick] [--repeats N] [--json out.json] [--specular-dir DIR "
                                 "--tool bake-irradiance --cmgen cmgen]\n"
                                 "       bake-bench --specular-source [--specular-maps tests/data] [--repeats N] [--json out.json]\n"
                                 "       bake-bench --ktx2 [--repeats N] [--json out.json]\n"
                                 "       bake-bench --sun [--e2e-width W] [--repeats N] [--json out.json]\n"
                                 "       bake-bench --bc6h [--bc6h-chain specular.exr] [--repeats N] [--json out.json]\n"
                                 "       bake-bench --bc6h-quality specular.exr... [--json out.json]\n");
            std::exit(2);
        }
    }
    return a;
}

}  // namespace bench
