// The whole-process section's single-input rows: one input a process, on every path
// (bake-irradiance --device auto, gpu, cpu; cmgen), an order-3 SH bake to JSON or a --specular
// bake; measured interleaved after a warm-up each, then one --timings --report run a path for the
// stage times and the path auto took. Seconds, MB (10^6 bytes).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "whole_results.h"
#include "whole_setup.h"

namespace bench {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// The paths a row runs bake-irradiance on (auto only where the CLI has it).
std::vector<int> tool_cols(const Setup& s) {
    return s.has_auto ? std::vector<int>{kAuto, kGpu, kCpu} : std::vector<int>{kGpu, kCpu};
}

// A --timings run's stderr line worth printing under the tables: not the SH error report's
// warning, which every bake of the sample sky (a small sun) gives; all lines stay in the JSON.
bool worth_printing(const std::string& line) { return line.find(": warning: ") == std::string::npos; }

// Stage times, one more run a path (stdout's "timings" line and the report's numbers); auto's
// report says which path it took.
void timings_runs(const Setup& s, const std::string& stem, const std::vector<std::string>& what, Row& row) {
    if (!s.has_timings) return;
    for (int col : tool_cols(s)) {
        const std::string dev = col_name(col);
        if (!row.c[col].na.empty()) continue;
        if (s.run.left() < row.c[col].last_s) {  // as long as its command's last run: within the budget?
            row.timings[dev] = {{"skipped", "time budget"}};
            say("  " + dev + ": --timings run skipped (time budget)\n");
            continue;
        }
        const std::string rep = s.out(stem + "." + dev + ".report.json");
        std::vector<std::string> argv{s.tool, row.in.path, "--device", dev};
        argv.insert(argv.end(), what.begin(), what.end());
        argv.push_back("--timings");
        if (s.has_report) argv.insert(argv.end(), {"--report", rep});
        const std::string o = s.run.logs + "/" + stem + "." + dev + ".timings.out";
        const std::string e = s.run.logs + "/" + stem + "." + dev + ".timings.err";
        const RunResult r = run_process(argv, s.run.work, o, e);
        std::vector<std::string> lines;
        for (const auto& l : lines_of(read_text(o)))
            if (l.rfind("timings", 0) == 0) lines.push_back(l);
        for (const auto& l : lines_of(read_text(e))) lines.push_back(l);  // notices, if any
        if (r.exit_code != 0) lines.push_back(fmt("(exit %d)", r.exit_code));
        const std::string path = s.has_report ? path_of_report(rep, row.specular > 0) : "?";
        if (col == kAuto) row.auto_path = path;
        row.timings[dev] = {{"exit_code", r.exit_code}, {"seconds", r.seconds}, {"lines", lines},
                            {"stages_ms", s.has_report ? stages_of_report(rep) : Json()}, {"path", path},
                            {"argv", argv}};
        for (const auto& l : lines)
            if (worth_printing(l)) say("  " + dev + ": " + l + "\n");
    }
}

void remove_outputs(const std::vector<std::string>& paths) {
    std::error_code ec;
    for (const auto& p : paths) fs::remove_all(p, ec);
}

// The --timings lines of the rows, under their table.
std::string timings_lines(const std::vector<Row>& rows, const char* what) {
    std::string t;
    for (const Row& r : rows)
        for (int col : {kAuto, kGpu, kCpu})
            if (r.timings.contains(col_name(col)) && r.timings[col_name(col)].contains("lines"))
                for (const auto& l : r.timings[col_name(col)]["lines"])
                    if (worth_printing(l.get<std::string>()))
                        t += fmt("%s%s --timings, %s: %s\n", col_name(col), what, r.in.label.c_str(),
                                 l.get<std::string>().c_str());
    return t;
}

// "0.123 (0.120)" with the path auto took.
std::string auto_cell(const Row& r) {
    const std::string t = cell_time(r.c[kAuto]);
    return r.c[kAuto].ok() ? t + " " + r.auto_path : t;
}

Json common_json(const Row& r) {
    std::error_code ec;
    const double file_mb = r.in.present ? static_cast<double>(fs::file_size(r.in.path, ec)) / 1e6 : 0;
    const double decoded_mb = static_cast<double>(r.in.width) * (r.in.width / 2) * 12 / 1e6;  // float RGB
    auto over = [&](int a, int b) { return r.c[a].ok() && r.c[b].ok() ? Json(r.c[a].med() / r.c[b].med()) : Json(); };
    return {{"input", r.in.label}, {"path", r.in.path}, {"present", r.in.present}, {"grain", r.in.grain},
            {"width", r.in.width}, {"height", r.in.width / 2}, {"file_mb", file_mb}, {"decoded_mb", decoded_mb},
            {"auto", r.c[kAuto].json()}, {"gpu", r.c[kGpu].json()}, {"cpu", r.c[kCpu].json()},
            {"cmgen", r.c[kCmgen].json()}, {"auto_path", r.auto_path},
            {"cmgen_over_auto", over(kCmgen, kAuto)}, {"cmgen_over_gpu", over(kCmgen, kGpu)},
            {"cmgen_over_cpu", over(kCmgen, kCpu)}, {"cpu_over_gpu", over(kCpu, kGpu)},
            {"gpu_cpu_max_rel", std::isnan(r.agree) ? Json() : Json(r.agree)},
            {"auto_cpu_max_rel", std::isnan(r.auto_agree) ? Json() : Json(r.auto_agree)},
            {"timings", r.timings}};
}

}  // namespace

Row measure_sh_row(Setup& s, const Input& in) {
    Row row;
    row.in = in;
    const std::string stem = fs::path(in.path).stem().string();
    std::string json[kCols];
    for (int col : {kAuto, kGpu, kCpu}) {
        json[col] = s.out(stem + "." + col_name(col) + ".json");
        row.c[col] = {stem + "." + col_name(col),
                      {{s.tool, in.path, "--device", col_name(col), "--order", "3", "-o", json[col]}}};
    }
    const std::string ct = s.out(stem + ".cmgen.txt");
    row.c[kCmgen] = {stem + ".cmgen", {{s.cmgen, "-q", "--sh=3", "--sh-output=" + ct, in.path}}};
    if (!s.has_auto) row.c[kAuto].na = "this bake-irradiance has no --device auto";
    if (!s.cmgen_ok) row.c[kCmgen].na = "cmgen not found";
    else if (in.exr) row.c[kCmgen].na = "cmgen cannot read DWAB EXR";
    if (!in.present)
        for (Command& c : row.c) c.na = "input missing";
    if (!in.present) return row;
    say(fmt("\n%s (%s):\n", in.label.c_str(), in.path.c_str()));
    remove_outputs({json[kAuto], json[kGpu], json[kCpu], ct});
    s.run.measure({&row.c[kAuto], &row.c[kGpu], &row.c[kCpu], &row.c[kCmgen]}, s.opt.repeats);
    const std::vector<double> ours = radiance_of(json[kCpu]), theirs = cmgen_l00(ct);
    if (row.c[kGpu].ok() && row.c[kCpu].ok()) row.agree = rel_diff(radiance_of(json[kGpu]), ours);
    if (row.c[kAuto].ok() && row.c[kCpu].ok()) row.auto_agree = rel_diff(radiance_of(json[kAuto]), ours);
    if (row.c[kCmgen].ok() && ours.size() >= 3 && theirs.size() == 3)
        for (int c = 0; c < 3; ++c) row.l00_ratio.push_back(theirs[c] / ours[c]);
    timings_runs(s, stem, {"--order", "3", "-o", s.out(stem + ".timings.json")}, row);
    return row;
}

Row measure_specular_row(Setup& s, const Input& in, int size) {
    Row row;
    row.in = in;
    row.specular = size;
    const std::string stem = fs::path(in.path).stem().string(), n = std::to_string(size);
    std::string chain[kCols];
    for (int col : {kAuto, kGpu, kCpu}) {
        chain[col] = s.out(stem + "." + col_name(col) + ".spec" + n + ".exr");
        row.c[col] = {stem + ".spec." + col_name(col),
                      {{s.tool, in.path, "--device", col_name(col), "--specular", chain[col], "--specular-size", n}}};
    }
    chain[kCmgen] = s.out(stem + ".cmgen.ibl" + n);
    row.c[kCmgen] = {stem + ".spec.cmgen",
                     {{s.cmgen, "-q", "--format=exr", "--size=" + n, "--ibl-ld=" + chain[kCmgen], in.path}}};
    if (!s.has_auto) row.c[kAuto].na = "this bake-irradiance has no --device auto";
    if (!s.cmgen_ok) row.c[kCmgen].na = "cmgen not found";
    else if (in.exr) row.c[kCmgen].na = "cmgen cannot read DWAB EXR";
    if (!s.has_specular)
        for (int col : {kAuto, kGpu, kCpu}) row.c[col].na = "this bake-irradiance has no --specular";
    if (!in.present)
        for (Command& c : row.c) c.na = "input missing";
    if (!in.present) return row;
    say(fmt("\n--specular 6x%d^2, %s (%s):\n", size, in.label.c_str(), in.path.c_str()));
    remove_outputs({chain[kAuto], chain[kGpu], chain[kCpu], chain[kCmgen]});
    std::error_code ec;
    fs::create_directories(chain[kCmgen], ec);
    s.run.measure({&row.c[kAuto], &row.c[kGpu], &row.c[kCpu], &row.c[kCmgen]}, s.opt.repeats);
    if (row.c[kGpu].ok() && row.c[kCpu].ok()) row.agree = chain_rel_diff(chain[kGpu], chain[kCpu]);
    if (row.c[kAuto].ok() && row.c[kCpu].ok()) row.auto_agree = chain_rel_diff(chain[kAuto], chain[kCpu]);
    if (s.has_specular)
        timings_runs(s, stem + ".spec", {"--specular", s.out(stem + ".timings.spec.exr"), "--specular-size", n}, row);
    return row;
}

std::string sh_table(const Setup& s, const std::vector<Row>& rows, Json* jrows, std::vector<const Command*>* all) {
    char line[1024];
    std::string table = fmt("\nwhole process, one input per process, median (min) of %d after one warm-up; order 3, "
                            "coefficients JSON only; auto: the path it took after the time\n",
                            s.opt.repeats);
    const char* fmt_row = "| %-28s | %-24s | %-17s | %-17s | %-17s | %-10s | %-9s | %-7s | %-7s | %-7s | %-7s | %-7s | %-13s |\n";
    std::snprintf(line, sizeof line, fmt_row, "input", "auto s", "gpu s", "cpu s", "cmgen s", "cmgen/auto",
                  "cmgen/gpu", "cpu/gpu", "auto MB", "gpu MB", "cpu MB", "decoded", "gpu/cpu agree");
    table += line;
    table += "|------------------------------|--------------------------|-------------------|-------------------|"
             "-------------------|------------|-----------|---------|---------|---------|---------|---------|"
             "---------------|\n";
    *jrows = Json::array();
    for (const Row& r : rows) {
        const double decoded_mb = static_cast<double>(r.in.width) * (r.in.width / 2) * 12 / 1e6;  // float RGB
        std::snprintf(line, sizeof line, fmt_row, r.in.label.c_str(), auto_cell(r).c_str(),
                      cell_time(r.c[kGpu]).c_str(), cell_time(r.c[kCpu]).c_str(), cell_time(r.c[kCmgen]).c_str(),
                      cell_ratio(r.c[kCmgen], r.c[kAuto]).c_str(), cell_ratio(r.c[kCmgen], r.c[kGpu]).c_str(),
                      cell_ratio(r.c[kCpu], r.c[kGpu]).c_str(), cell_mb(r.c[kAuto]).c_str(),
                      cell_mb(r.c[kGpu]).c_str(), cell_mb(r.c[kCpu]).c_str(), fmt("%.0f", decoded_mb).c_str(),
                      cell_agree(r.agree).c_str());
        table += line;
        for (const Command& c : r.c) all->push_back(&c);
        Json j = common_json(r);
        j["gpu_peak_over_decoded"] = r.c[kGpu].ok() ? Json(r.c[kGpu].peak() / decoded_mb) : Json();
        j["cpu_peak_over_decoded"] = r.c[kCpu].ok() ? Json(r.c[kCpu].peak() / decoded_mb) : Json();
        j["gpu_cpu_agree"] = std::isnan(r.agree) ? Json() : Json(r.agree < 1e-4);
        j["cmgen_l00_over_ours"] = r.l00_ratio;
        jrows->push_back(j);
    }
    table += failure_lines(*all);
    table += "(decoded: width x height x 12 bytes, float RGB, MB; MB: the process's peak resident set; agree: "
             "max |gpu - cpu| / max |cpu| over the radiance coefficients, < 1e-4)\n";
    for (const Row& r : rows)
        if (r.l00_ratio.size() == 3)
            table += fmt("cmgen L00 / ours, %s: %.4f %.4f %.4f (r g b; cmgen resamples to a cube first)\n",
                         r.in.label.c_str(), r.l00_ratio[0], r.l00_ratio[1], r.l00_ratio[2]);
    return table + timings_lines(rows, "");
}

std::string specular_table(const Setup& s, const std::vector<Row>& rows, Json* jrows,
                           std::vector<const Command*>* all) {
    char line[1024];
    std::string table = fmt("\nwhole process, --specular (the GGX chain, one mip-mapped EXR) against cmgen --ibl-ld, "
                            "median (min) of %d after one warm-up; auto: the path that made the chain\n",
                            s.opt.repeats);
    const char* fmt_row = "| %-28s | %-6s | %-24s | %-17s | %-17s | %-17s | %-10s | %-9s | %-7s | %-7s | %-7s | %-7s | %-8s | %-13s |\n";
    std::snprintf(line, sizeof line, fmt_row, "input", "base", "auto s", "gpu s", "cpu s", "cmgen s", "cmgen/auto",
                  "cmgen/gpu", "cpu/gpu", "auto MB", "gpu MB", "cpu MB", "cmgen MB", "gpu/cpu agree");
    table += line;
    table += "|------------------------------|--------|--------------------------|-------------------|"
             "-------------------|-------------------|------------|-----------|---------|---------|---------|"
             "---------|----------|---------------|\n";
    *jrows = Json::array();
    for (const Row& r : rows) {
        std::snprintf(line, sizeof line, fmt_row, r.in.label.c_str(), fmt("6x%d^2", r.specular).c_str(),
                      auto_cell(r).c_str(), cell_time(r.c[kGpu]).c_str(), cell_time(r.c[kCpu]).c_str(),
                      cell_time(r.c[kCmgen]).c_str(), cell_ratio(r.c[kCmgen], r.c[kAuto]).c_str(),
                      cell_ratio(r.c[kCmgen], r.c[kGpu]).c_str(), cell_ratio(r.c[kCpu], r.c[kGpu]).c_str(),
                      cell_mb(r.c[kAuto]).c_str(), cell_mb(r.c[kGpu]).c_str(), cell_mb(r.c[kCpu]).c_str(),
                      cell_mb(r.c[kCmgen]).c_str(), cell_agree(r.agree).c_str());
        table += line;
        for (const Command& c : r.c) all->push_back(&c);
        Json j = common_json(r);
        j["specular_size"] = r.specular;
        j["gpu_cpu_agree"] = std::isnan(r.agree) ? Json() : Json(r.agree < 1e-4);
        jrows->push_back(j);
    }
    table += failure_lines(*all);
    table += "(agree: the largest over the levels of max |gpu - cpu| / the level's max |cpu|, < 1e-4: the same "
             "samples on both paths; cmgen: its default 1024 samples, levels down to 16^2)\n";
    return table + timings_lines(rows, " --specular");
}

}  // namespace bench
