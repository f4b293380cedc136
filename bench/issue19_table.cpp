// Issue 19's table: every row on bake-irradiance --device auto (the default), gpu and cpu, and
// cmgen, whole processes, median [min, max] seconds (batches: maps/s), and the ratios of medians
// within this one run; markdown, printed last, and the same figures as JSON.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "whole_results.h"
#include "whole_setup.h"

namespace bench {
namespace {

using Json = nlohmann::json;

struct IssueRow {
    std::string label;
    const Command* c[kCols] = {nullptr, nullptr, nullptr, nullptr};
    int maps = 0;                 // batch rows: maps/s
    std::string auto_path = "?";  // the path --device auto took
    bool path_from_json = false;  // batches: from their first map's JSON
};

std::string cell(const IssueRow& r, int col) {
    const Command* c = r.c[col];
    if (!c) return "-";
    if (c->na.find("cannot read") != std::string::npos) return "cannot read (DWAB)";
    std::string t = cell_spread(*c, r.maps);
    if (col == kAuto && c->ok()) t += " " + r.auto_path + (r.path_from_json ? "*" : "");
    return t;
}

std::string ratio(const Command* num, const Command* den, const char* f) {
    return num && den && num->ok() && den->ok() ? fmt(f, num->med() / den->med()) : "-";
}

Json cell_json(const Command* c, int maps) {
    if (!c) return Json();
    Json j = {{"label", c->label}, {"status", !c->na.empty() ? "n/a" : c->failed ? "FAILED" : c->ok() ? "ok" : "skipped"},
              {"runs", c->seconds.size()}, {"seconds", c->seconds}};
    if (!c->na.empty()) j["na_reason"] = c->na;
    if (c->failed) j["error"] = fmt("exit %d: ", c->exit_code) + c->error;
    if (c->ok()) {
        j["median_s"] = c->med();
        j["min_s"] = c->min();
        j["max_s"] = c->max();
        if (maps > 0) j["maps_per_s"] = maps / c->med();
    }
    return j;
}

// The path a batch's run took: its first map's JSON names it (computed_by.path; with --specular the
// chain's path is the same); "?" when there is none to read.
std::string batch_path(const BatchRun* r, const std::vector<std::string>& files) {
    if (!r || files.empty()) return "?";
    try {
        std::ifstream in(r->out_dir + "/" + std::filesystem::path(files[0]).stem().string() + ".json");
        return Json::parse(in).at("computed_by").at("path").get<std::string>();
    } catch (const std::exception&) {
        return "?";
    }
}

std::vector<IssueRow> issue_rows(const Setup& s, const Plan& p, const std::vector<Row>& sh,
                                 const std::vector<Row>& spec, const Batch& b) {
    std::vector<IssueRow> rows;
    for (const Row& r : sh) {
        IssueRow i;
        i.label = fmt("SH order 3, %d×%d %s", r.in.width, r.in.width / 2, r.in.exr ? "half DWAB" : "`.hdr`");
        if (r.in.grain != s.grain) i.label += fmt(" (grain %g)", r.in.grain);
        for (int c = 0; c < kCols; ++c) i.c[c] = &r.c[c];
        i.auto_path = r.auto_path;
        rows.push_back(i);
    }
    for (const Row& r : spec) {
        IssueRow i;
        i.label = fmt("`--specular` 6×%d², %d×%d `.hdr`", r.specular, r.in.width, r.in.width / 2);
        if (r.in.grain != s.grain) i.label += fmt(" (grain %g)", r.in.grain);
        for (int c = 0; c < kCols; ++c) i.c[c] = &r.c[c];
        i.auto_path = r.auto_path;
        rows.push_back(i);
    }
    const int jobs = s.has_jobs ? p.issue_jobs : -1;
    for (bool specular : {false, true}) {
        IssueRow i;
        i.label = specular ? fmt("the same batch with `--specular` (%d)", p.specular_size)
                           : fmt("batch %d × %d×%d `.hdr`, JSON, `--jobs %d`", p.batch_count, p.batch_width,
                                 p.batch_width / 2, p.issue_jobs);
        int c = 0;
        for (const char* dev : {"auto", "gpu", "cpu", "cmgen"}) {
            const BatchRun* r = b.find(dev, c == kCmgen ? -1 : jobs, specular);
            i.c[c++] = r ? &r->cmd : nullptr;
        }
        i.maps = p.batch_count;
        i.auto_path = batch_path(b.find("auto", jobs, specular), b.files);
        i.path_from_json = true;
        rows.push_back(i);
    }
    return rows;
}

// The commands behind the table, and every failure with its stderr's first line.
std::string footnotes(const Setup& s, const Plan& p, const std::vector<IssueRow>& rows) {
    std::string t = fmt(
        "\nCommands (D = auto, gpu, cpu; auto is the default): SH rows `bake-irradiance IN --device D --order 3 -o "
        "OUT.json`, cmgen `cmgen -q --sh=3 --sh-output=OUT.txt IN`; --specular rows `bake-irradiance IN --device D "
        "--specular OUT.exr --specular-size %d`, cmgen `cmgen -q --format=exr --size=%d --ibl-ld=DIR IN` (1024 "
        "samples, its default); batches `bake-irradiance MAPS... --device D --order 3 --out-dir DIR --name "
        "'{stem}.json'%s` (with `--specular DIR/{stem}_spec.exr --specular-size %d`), cmgen one process per map, "
        "`--sh=3` (with `--format=exr --size=%d --ibl-ld=DIR`).\n",
        p.specular_size, p.specular_size, s.has_jobs ? fmt(" --jobs %d", p.issue_jobs).c_str() : "", p.specular_size,
        p.specular_size);
    t += "Ratios: cmgen's median over auto's, and cpu's over gpu's (above 1: the first is slower). After auto's time: "
         "the path it took, from its --report (*: batches, from their first map's JSON).\n";
    std::vector<const Command*> cmds;
    for (const IssueRow& r : rows)
        for (const Command* c : r.c)
            if (c) cmds.push_back(c);
    t += failure_lines(cmds);
    for (const Command* c : cmds)
        if (!c->skipped.empty()) t += fmt("  %s: %s\n", c->label.c_str(), c->skipped.c_str());
    return t;
}

}  // namespace

std::string issue_table(const Setup& s, const Plan& p, const std::vector<Row>& sh, const std::vector<Row>& spec,
                        const Batch& b, Json* out) {
    const std::vector<IssueRow> rows = issue_rows(s, p, sh, spec, b);
    std::string t = fmt("\n## Issue 19: whole processes, median [min, max] of %d runs (after one warm-up; the batches "
                        "with --specular: none); n=K: a command with fewer runs, as %d would take over %.0f s\n\n",
                        s.opt.repeats, s.opt.repeats, s.run.cap_s);
    t += "| run | `--device auto` | `gpu` | `cpu` | cmgen | cmgen / auto | cpu / gpu |\n";
    t += "|---|---|---|---|---|---|---|\n";
    Json jrows = Json::array();
    for (const IssueRow& r : rows) {
        t += "| " + r.label;
        for (int c = 0; c < kCols; ++c) t += " | " + cell(r, c);
        t += " | " + ratio(r.c[kCmgen], r.c[kAuto], "%.1fx") + " | " + ratio(r.c[kCpu], r.c[kGpu], "%.2fx") + " |\n";
        Json j = {{"run", r.label}, {"maps", r.maps}, {"auto_path", r.auto_path}, {"auto_path_from_json", r.path_from_json}};
        for (int c = 0; c < kCols; ++c) j[col_name(c)] = cell_json(r.c[c], r.maps);
        const bool ca = r.c[kCmgen] && r.c[kAuto] && r.c[kCmgen]->ok() && r.c[kAuto]->ok();
        const bool cg = r.c[kCpu] && r.c[kGpu] && r.c[kCpu]->ok() && r.c[kGpu]->ok();
        j["cmgen_over_auto"] = ca ? Json(r.c[kCmgen]->med() / r.c[kAuto]->med()) : Json();
        j["cpu_over_gpu"] = cg ? Json(r.c[kCpu]->med() / r.c[kGpu]->med()) : Json();
        jrows.push_back(j);
    }
    t += footnotes(s, p, rows);
    *out = {{"rows", jrows}, {"markdown", t}, {"repeats", s.opt.repeats}, {"cap_s", s.run.cap_s}};
    return t;
}

}  // namespace bench
