// What the whole-process section reads back from its commands' outputs, and its table cells.
#include "whole_results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

#include "specular_io.h"
#include "specular_prefilter.h"

namespace bench {

using Json = nlohmann::json;

// Radiance coefficients of a bake-irradiance JSON ([k][channel]); empty when unreadable.
std::vector<double> radiance_of(const std::string& path) {
    std::vector<double> v;
    try {
        const Json j = Json::parse(read_text(path));
        for (const auto& k : j.at("radiance"))
            for (const auto& c : k) v.push_back(c.get<double>());
    } catch (const std::exception&) {
        v.clear();
    }
    return v;
}

// max |a - b| / max |b|: the gpu/cpu agreement measure (b = the CPU double path). NaN if unreadable.
double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.empty() || a.size() != b.size()) return NAN;
    double d = 0, m = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        d = std::max(d, std::fabs(a[i] - b[i]));
        m = std::max(m, std::fabs(b[i]));
    }
    return m > 0 ? d / m : NAN;
}

// cmgen --sh-output: lines "( r, g, b); // L00". Its L00 over ours, per channel: only a loose
// check (cmgen resamples to a cube map first and its normalization may differ).
std::vector<double> cmgen_l00(const std::string& path) {
    for (const auto& l : lines_of(read_text(path))) {
        double r, g, b;
        if (l.find("L00") != std::string::npos && std::sscanf(l.c_str(), " ( %lf , %lf , %lf", &r, &g, &b) == 3)
            return {r, g, b};
    }
    return {};
}

// Stage times of one input from a --report JSON (ms, null for stages not run).
Json stages_of_report(const std::string& path) {
    try {
        const Json j = Json::parse(read_text(path));
        return j.at("files").at(0).at("timings_ms");
    } catch (const std::exception&) {
        return Json();
    }
}

std::string path_of_report(const std::string& path, bool specular) {
    try {
        const Json f = Json::parse(read_text(path)).at("files").at(0);
        return specular ? f.at("specular").at("computed_by").get<std::string>() : f.at("path").get<std::string>();
    } catch (const std::exception&) {
        return "?";
    }
}

double chain_rel_diff(const std::string& a, const std::string& b) {
    try {
        const std::vector<bake::CubeMap> ca = bake::read_specular_exr(a), cb = bake::read_specular_exr(b);
        if (ca.size() != cb.size() || ca.empty() || ca[0].size != cb[0].size) return NAN;
        double worst = 0;
        for (const auto& d : bake::compare_specular_chains(ca, cb)) worst = std::max(worst, d.max_rel_to_max);
        return worst;
    } catch (const std::exception&) {
        return NAN;
    }
}

namespace {

// Why a command has no figure, or "" when it has one.
std::string why_not(const Command& c) {
    if (!c.na.empty()) return c.na == "input missing" || c.na == "batch inputs missing" ? "input missing" : "n/a";
    if (c.failed) return fmt("FAILED exit %d", c.exit_code);
    if (!c.ok()) return c.skipped.empty() ? "-" : "skipped (time)";
    return "";
}

std::string runs_note(const Command& c) {
    return static_cast<int>(c.seconds.size()) < c.asked ? fmt(" n=%zu", c.seconds.size()) : "";
}

}  // namespace

std::string cell_time(const Command& c) {
    const std::string why = why_not(c);
    return why.empty() ? fmt("%.3f (%.3f)", c.med(), c.min()) + runs_note(c) : why;
}

std::string cell_spread(const Command& c, int maps) {
    const std::string why = why_not(c);
    if (!why.empty()) return why;
    if (maps > 0)
        return fmt("%.2f maps/s [%.2f, %.2f]", maps / c.med(), maps / c.max(), maps / c.min()) + runs_note(c);
    return fmt("%.3f s [%.3f, %.3f]", c.med(), c.min(), c.max()) + runs_note(c);
}

std::string cell_ratio(const Command& num, const Command& den) {
    return num.ok() && den.ok() ? fmt("%.2fx", num.med() / den.med()) : "-";
}

std::string cell_mb(const Command& c) { return c.ok() ? fmt("%.0f", c.peak()) : "-"; }

std::string cell_agree(double rel, double limit) {
    if (std::isnan(rel)) return "-";
    return fmt("%s %.1e", rel < limit ? "yes" : "NO", rel);
}

// The failures of a table, each with its stderr's first line, after the table.
std::string failure_lines(const std::vector<const Command*>& cmds) {
    std::string s;
    for (const Command* c : cmds)
        if (c->failed) s += fmt("  FAILED %s: exit %d: %s\n", c->label.c_str(), c->exit_code, c->error.c_str());
    return s;
}

}  // namespace bench
