#include "golden_check.h"

#include <cmath>
#include <cstdio>

#include "sh_compare.h"

namespace bake {

namespace {

using nlohmann::json;

// Text of a JSON value for a note: strings bare, anything else as JSON, absent as "(none)".
std::string text_of(const json* v) {
    if (!v) return "(none)";
    if (v->is_string()) return v->get<std::string>();
    return v->dump();
}

const json* member(const json& object, const char* key) {
    if (!object.is_object()) return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

const json* member(const json& object, const char* key, const char* sub) {
    const json* v = member(object, key);
    return v ? member(*v, sub) : nullptr;
}

std::string base_name(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

void note_if_differs(std::vector<std::string>& notes, const std::string& what, const json* golden, const json& run) {
    if (golden && *golden == run) return;
    notes.push_back(what + ": golden " + text_of(golden) + ", this run " + text_of(&run));
}

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

void compare_field(GoldenCheck& check, const char* field, const ShCoefficients& actual,
                   const ShCoefficients& expected, const GoldenTolerance& tol) {
    const ShComparison cmp = compare_sh(actual, expected);
    for (const CoefficientDifference& d : cmp.rows) {
        ++check.compared_values;
        // NaN never passes, hence the negated comparisons.
        const bool fails = (tol.relative_in_force && !(d.rel_diff <= tol.relative)) ||
                           (tol.absolute_in_force && !(d.abs_diff <= tol.absolute));
        if (std::isnan(d.abs_diff) || d.abs_diff > check.max_abs_diff) check.max_abs_diff = d.abs_diff;
        if (std::isnan(d.rel_diff) || d.rel_diff > check.max_rel_diff) check.max_rel_diff = d.rel_diff;
        if (!fails) continue;
        GoldenFailure f;
        f.field = field;
        f.k = d.k;
        f.l = sh_band(d.k);
        f.m = sh_m(d.k);
        f.channel = d.channel;
        f.expected = d.reference;
        f.actual = d.value;
        f.abs_diff = d.abs_diff;
        f.rel_diff = d.rel_diff;
        check.failures.push_back(f);
    }
}

}  // namespace

const char* channel_name(int channel) { return channel == 0 ? "R" : channel == 1 ? "G" : "B"; }

GoldenCheck check_golden(const std::string& golden_path, const CoefficientsDocument& golden, const BakeRecord& run,
                         const GoldenTolerance& tolerance) {
    GoldenCheck check;
    check.file = golden_path;
    check.golden_order = golden.radiance.order;
    check.run_order = run.radiance.order;
    check.compared_order = std::min(check.golden_order, check.run_order);
    compare_field(check, "radiance", run.radiance, golden.radiance, tolerance);
    compare_field(check, "irradiance", run.irradiance, golden.irradiance, tolerance);

    // Window: the kind and the band factors (none: all 1).
    auto window_of = [](const json* w, int order) {
        std::pair<std::string, std::vector<double>> out{"none", std::vector<double>(static_cast<std::size_t>(order), 1.0)};
        if (!w || !w->is_object()) return out;
        if (const json* k = member(*w, "kind"); k && k->is_string()) out.first = k->get<std::string>();
        if (const json* f = member(*w, "band_factors"); f && f->is_array()) {
            out.second.clear();
            for (const json& x : *f) out.second.push_back(x.is_number() ? x.get<double>() : std::nan(""));
        }
        return out;
    };
    const auto golden_window = window_of(member(golden.json, "window"), golden.radiance.order);
    const auto run_window = window_of(run.window.is_null() ? nullptr : &run.window, run.radiance.order);
    bool factors_equal = true;
    for (std::size_t l = 0; l < static_cast<std::size_t>(check.compared_order); ++l) {
        const double a = l < golden_window.second.size() ? golden_window.second[l] : std::nan("");
        const double b = l < run_window.second.size() ? run_window.second[l] : std::nan("");
        if (!(std::fabs(a - b) <= 1e-12)) factors_equal = false;
    }
    if (golden_window.first != run_window.first || !factors_equal) {
        auto text = [](const std::pair<std::string, std::vector<double>>& w) {
            std::string t = w.first + " (";
            for (std::size_t l = 0; l < w.second.size(); ++l) t += (l ? ", " : "") + fmt("%.6g", w.second[l]);
            return t + ")";
        };
        check.window_difference = "the golden's coefficients were windowed " + text(golden_window) + ", this run's " +
                                  text(run_window) + ": windowed coefficients compare with the same window only";
    }

    // Convention: every key of ours against the golden's text.
    const json ours = convention_json();
    const json* theirs = member(golden.json, "convention");
    if (!theirs || !theirs->is_object()) {
        check.convention_differences.push_back("the golden states no convention");
    } else {
        for (auto it = ours.begin(); it != ours.end(); ++it) {
            const json* v = member(*theirs, it.key().c_str());
            if (!v || *v != it.value()) check.convention_differences.push_back(it.key());
        }
        for (auto it = theirs->begin(); it != theirs->end(); ++it)
            if (!ours.contains(it.key())) check.convention_differences.push_back(it.key());
    }

    // Input: file names (not folders: goldens travel between checkouts), layout, size, policies.
    json run_names = json::array(), golden_names = json::array();
    for (const std::string& f : run.inputs) run_names.push_back(base_name(f));
    const json* files = member(golden.json, "input", "files");
    if (files && files->is_array())
        for (const json& f : *files) golden_names.push_back(f.is_string() ? json(base_name(f.get<std::string>())) : f);
    note_if_differs(check.input_differences, "input file names", files ? &golden_names : nullptr, run_names);
    note_if_differs(check.input_differences, "layout", member(golden.json, "input", "layout"), layout_name(run.layout));
    note_if_differs(check.input_differences, "width", member(golden.json, "input", "width"), run.source_width);
    note_if_differs(check.input_differences, "height", member(golden.json, "input", "height"), run.source_height);
    note_if_differs(check.input_differences, "negative texel policy", member(golden.json, "negative_texels", "policy"),
                    run.negative_policy);
    note_if_differs(check.input_differences, "non-finite texel policy",
                    member(golden.json, "nonfinite_texels", "policy"), run.nonfinite_policy);
    return check;
}

std::string GoldenCheck::failure_reason() const {
    if (order_differs())
        return "golden of order " + std::to_string(golden_order) + ", this run order " + std::to_string(run_order) +
               ": a golden checks a bake of its own order (bake it with --order " + std::to_string(golden_order) +
               ", or make a new golden)";
    if (!convention_differences.empty()) {
        std::string keys;
        for (const std::string& k : convention_differences) keys += (keys.empty() ? "" : ", ") + k;
        return "the golden's convention differs (" + keys + "): its coefficients mean something else";
    }
    if (!window_difference.empty()) return window_difference;
    if (!failures.empty())
        return std::to_string(failures.size()) + " of " + std::to_string(compared_values) +
               " coefficient values beyond tolerance, max rel diff " + fmt("%.4e", max_rel_diff);
    return "";
}

std::vector<std::string> describe_golden(const GoldenCheck& c, const GoldenTolerance& tol) {
    std::vector<std::string> lines;
    std::string limits;
    if (tol.relative_in_force) limits += "relative " + fmt("%.3g", tol.relative);
    if (tol.absolute_in_force) limits += std::string(limits.empty() ? "" : ", ") + "absolute " + fmt("%.3g", tol.absolute);
    lines.push_back(c.file + ": " + (c.passed() ? "pass" : "FAIL") + ", " + std::to_string(c.failures.size()) + " of " +
                    std::to_string(c.compared_values) + " values beyond tolerance (" + limits + "); max abs diff " +
                    fmt("%.4e", c.max_abs_diff) + ", max rel diff " + fmt("%.4e", c.max_rel_diff));
    if (c.order_differs())
        lines.push_back(c.file + ": order differs: golden order " + std::to_string(c.golden_order) + " (" +
                        std::to_string(sh_count(c.golden_order)) + " coefficients), this run order " +
                        std::to_string(c.run_order) + "; compared the " + std::to_string(sh_count(c.compared_order)) +
                        " common coefficients, but the check fails");
    if (!c.convention_differences.empty()) {
        std::string keys;
        for (const std::string& k : c.convention_differences) keys += (keys.empty() ? "" : ", ") + k;
        lines.push_back(c.file + ": convention differs: " + keys);
    }
    for (const std::string& d : c.input_differences) lines.push_back(c.file + ": input differs: " + d);
    if (!c.window_difference.empty()) lines.push_back(c.file + ": window differs: " + c.window_difference);
    for (const GoldenFailure& f : c.failures) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "%s l=%d m=%+d %s: expected %.17g, actual %.17g, diff %.4e (rel %.4e)",
                      f.field.c_str(), f.l, f.m, channel_name(f.channel), f.expected, f.actual, f.actual - f.expected,
                      f.rel_diff);
        lines.push_back(c.file + ": " + buf);
    }
    return lines;
}

nlohmann::json golden_to_json(const GoldenCheck& c, const GoldenTolerance& tol) {
    json failures = json::array();
    for (const GoldenFailure& f : c.failures)
        failures.push_back({{"field", f.field},
                            {"l", f.l},
                            {"m", f.m},
                            {"channel", channel_name(f.channel)},
                            {"expected", f.expected},
                            {"actual", f.actual},
                            {"abs_diff", f.abs_diff},
                            {"rel_diff", f.rel_diff}});
    // JSON has no NaN or infinity; nlohmann writes null for them, which the schema allows.
    return {
        {"file", c.file},
        {"passed", c.passed()},
        {"golden_order", c.golden_order},
        {"run_order", c.run_order},
        {"compared_order", c.compared_order},
        {"compared_values", c.compared_values},
        {"max_abs_diff", c.max_abs_diff},
        {"max_rel_diff", c.max_rel_diff},
        {"tolerance", tol.relative_in_force ? json(tol.relative) : json(nullptr)},
        {"abs_tolerance", tol.absolute_in_force ? json(tol.absolute) : json(nullptr)},
        {"convention_differences", c.convention_differences},
        {"input_differences", c.input_differences},
        {"window_difference", c.window_difference.empty() ? json(nullptr) : json(c.window_difference)},
        {"failures", failures},
    };
}

}  // namespace bake
