// --report through the real binary: every report written is validated against the documented
// schema (docs/report.schema.json) by a small validator of the keywords the schema uses; the
// schema itself must document every key it allows; the values are checked against the run.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <set>

#include "cli_runner.h"
#include "errors.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kSchema = std::string(BAKE_TEST_DATA_DIR) + "/../../docs/report.schema.json";


// A validator for the JSON Schema keywords the report schema uses: type (a name or a list),
// enum, properties, required, additionalProperties: false, items, and local $ref. Any other
// keyword in the schema is an error, so the schema cannot silently rely on something unchecked.
class Validator {
public:
    explicit Validator(json schema) : root_(std::move(schema)) {}

    // Problems found, each "path: what"; empty when valid.
    std::vector<std::string> validate(const json& doc) {
        problems_.clear();
        check(doc, root_, "$");
        return problems_;
    }

private:
    static bool has_type(const json& v, const std::string& t) {
        if (t == "object") return v.is_object();
        if (t == "array") return v.is_array();
        if (t == "string") return v.is_string();
        if (t == "integer") return v.is_number_integer();
        if (t == "number") return v.is_number();
        if (t == "boolean") return v.is_boolean();
        if (t == "null") return v.is_null();
        throw std::runtime_error("schema: unknown type " + t);
    }

    const json& resolve(const std::string& ref) const {
        const std::string prefix = "#/$defs/";
        if (ref.rfind(prefix, 0) != 0) throw std::runtime_error("schema: unsupported $ref " + ref);
        return root_.at("$defs").at(ref.substr(prefix.size()));
    }

    void check(const json& v, const json& s, const std::string& path) {
        static const std::set<std::string> known = {"$schema", "$id", "$defs", "title", "description", "type", "enum",
                                                    "properties", "required", "additionalProperties", "items", "$ref"};
        for (auto it = s.begin(); it != s.end(); ++it)
            if (!known.count(it.key())) throw std::runtime_error("schema: unsupported keyword " + it.key() + " at " + path);
        if (s.contains("$ref")) {
            check(v, resolve(s["$ref"]), path);
            return;
        }
        if (s.contains("type")) {
            const json types = s["type"].is_array() ? s["type"] : json::array({s["type"]});
            bool ok = false;
            for (const json& t : types) ok |= has_type(v, t.get<std::string>());
            if (!ok) {
                problems_.push_back(path + ": " + v.dump() + " is not of type " + s["type"].dump());
                return;
            }
        }
        if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end())
            problems_.push_back(path + ": " + v.dump() + " not in " + s["enum"].dump());
        if (v.is_object()) {
            if (s.contains("required"))
                for (const json& k : s["required"])
                    if (!v.contains(k.get<std::string>())) problems_.push_back(path + ": missing key " + k.get<std::string>());
            const json props = s.value("properties", json::object());
            for (auto it = v.begin(); it != v.end(); ++it) {
                if (props.contains(it.key()))
                    check(it.value(), props[it.key()], path + "." + it.key());
                else if (s.contains("additionalProperties") && s["additionalProperties"] == false)
                    problems_.push_back(path + ": undocumented key " + it.key());
            }
        }
        if (v.is_array() && s.contains("items"))
            for (size_t i = 0; i < v.size(); ++i) check(v[i], s["items"], path + "[" + std::to_string(i) + "]");
    }

    json root_;
    std::vector<std::string> problems_;
};

json load_schema() {
    std::ifstream in(kSchema);
    REQUIRE(in.good());
    return json::parse(in);
}

void require_valid(const std::string& report_path) {
    Validator validator(load_schema());
    const std::vector<std::string> problems = validator.validate(read_json(report_path));
    std::string all;
    for (const std::string& p : problems) all += p + "\n";
    INFO(report_path << ":\n" << all);
    CHECK(problems.empty());
}

}  // namespace

TEST_CASE("report schema: every object documents all its keys, requires them all, allows no others", "[cli][report]") {
    const json schema = load_schema();
    int objects = 0;
    std::function<void(const json&, const std::string&)> walk = [&](const json& s, const std::string& path) {
        if (!s.is_object()) return;
        if (s.contains("properties")) {
            ++objects;
            INFO(path);
            CHECK(s.value("additionalProperties", true) == false);
            std::set<std::string> props, required;
            for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it) props.insert(it.key());
            for (const json& k : s.at("required")) required.insert(k.get<std::string>());
            CHECK(props == required);
            for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it) walk(it.value(), path + "." + it.key());
        }
        if (s.contains("items")) walk(s["items"], path + "[]");
        if (s.contains("$defs"))
            for (auto it = s["$defs"].begin(); it != s["$defs"].end(); ++it) walk(it.value(), "#/$defs/" + it.key());
    };
    walk(schema, "$");
    CHECK(objects >= 9);  // report, summary, settings, gpu, file, timings, compare, golden, failure, preview, emitted
}

TEST_CASE("report: the validator rejects what the schema forbids", "[cli][report]") {
    const std::string dir = scratch("report_validator");
    REQUIRE(run_cli(kSample + " -o " + dir + "/a.json --device cpu --report " + dir + "/r.json").exit_code == 0);
    const json good = read_json(dir + "/r.json");
    Validator v(load_schema());
    REQUIRE(v.validate(good).empty());
    json bad = good;
    bad["files"][0].erase("timings_ms");
    CHECK(v.validate(bad).size() == 1);
    bad = good;
    bad["files"][0]["status"] = "fine";
    CHECK(v.validate(bad).size() == 1);
    bad = good;
    bad["files"][0]["timings_ms"]["load"] = "3 ms";
    CHECK(v.validate(bad).size() == 1);
    bad = good;
    bad["extra"] = 1;
    CHECK(v.validate(bad).size() == 1);
    bad = good;
    bad["summary"]["ok"] = 1.5;
    CHECK(v.validate(bad).size() == 1);
}

TEST_CASE("report: a batch with a failure, a golden, a preview and snippets is valid and states the run",
          "[cli][report]") {
    const std::string dir = scratch("report_batch");
    const std::string bytes = slurp(kWarehouse);
    std::ofstream(dir + "/corrupt.exr", std::ios::binary) << bytes.substr(0, bytes.size() / 3);
    fs::create_directories(dir + "/g");
    REQUIRE(run_cli(kSample + " -o " + dir + "/g/sample_sky.json --device cpu").exit_code == 0);
    fs::copy_file(dir + "/g/sample_sky.json", dir + "/g/corrupt.json");  // read, then the input fails
    // A golden for the warehouse with one value off, so that a failure record is written.
    REQUIRE(run_cli(kWarehouse + " -o " + dir + "/g/pmndrs_warehouse.json --device cpu -q").exit_code == 0);
    json g = read_json(dir + "/g/pmndrs_warehouse.json");
    g["radiance"][0][0] = g["radiance"][0][0].get<double>() * 1.01;
    std::ofstream(dir + "/g/pmndrs_warehouse.json") << g.dump();

    const CliResult r =
        run_cli(kSample + " " + dir + "/corrupt.exr " + kWarehouse + " --out-dir " + dir + "/out --name '{stem}.json'" +
                " --golden '" + dir + "/g/{stem}.json' --preview '" + dir + "/out/{stem}.png' --preview-width 32" +
                " --emit glsl '" + dir + "/out/{stem}.glsl' --device cpu --order 3 -q --report " + dir + "/report.json");
    INFO(r.out << r.err);
    CHECK(r.exit_code == kExitInput);  // corrupt (3) comes before the warehouse's mismatch (7)
    require_valid(dir + "/report.json");

    const std::string text = slurp(dir + "/report.json");
    const json rep = json::parse(text);
    CHECK(text == rep.dump(1) + "\n");  // keys sorted, one stable layout
    CHECK(rep["exit_code"] == kExitInput);
    CHECK(rep["summary"] == json({{"files", 3}, {"ok", 1}, {"failed", 2}, {"skipped", 0}}));
    CHECK(rep["settings"]["order"] == 3);
    CHECK(rep["settings"]["device"] == "cpu");
    CHECK(rep["gpu"]["renderer"].is_null());  // --device cpu opens no context

    const json& ok = rep["files"][0];
    CHECK(ok["status"] == "ok");
    CHECK(ok["exit_code"] == 0);
    CHECK(ok["error"].is_null());
    CHECK(ok["path"] == "cpu");
    CHECK(ok["input"] == kSample);
    CHECK(ok["outputs"] == json({dir + "/out/sample_sky.json", dir + "/out/sample_sky.png", dir + "/out/sample_sky.glsl"}));
    for (const json& o : ok["outputs"]) CHECK(file_exists(o.get<std::string>()));
    CHECK(ok["golden"]["passed"] == true);
    CHECK(ok["golden"]["file"] == dir + "/g/sample_sky.json");
    CHECK(ok["preview"]["file"] == dir + "/out/sample_sky.png");
    CHECK(ok["emitted"] == json::array({{{"language", "glsl"}, {"file", dir + "/out/sample_sky.glsl"}}}));
    CHECK(ok["layout"] == "equirect");
    for (const char* stage : {"load", "project", "write", "total"}) CHECK(ok["timings_ms"][stage].get<double>() >= 0);
    CHECK(ok["timings_ms"]["upload"].is_null());  // CPU path
    CHECK(ok["compare"].is_null());

    const json& bad = rep["files"][1];
    CHECK(bad["status"] == "failed");
    CHECK(bad["exit_code"] == kExitInput);
    CHECK(bad["error"].get<std::string>().find(dir + "/corrupt.exr") != std::string::npos);
    CHECK(bad["outputs"].empty());
    CHECK(bad["path"].is_null());
    CHECK(bad["files"] == json({dir + "/corrupt.exr"}));

    const json& off = rep["files"][2];
    CHECK(off["status"] == "failed");
    CHECK(off["exit_code"] == kExitGoldenMismatch);
    CHECK(off["golden"]["passed"] == false);
    // 1% off in R of radiance k=0; the golden's irradiance field was left unchanged: one failure.
    REQUIRE(off["golden"]["failures"].size() == 1);
    const json& f = off["golden"]["failures"][0];
    CHECK(f["field"] == "radiance");
    CHECK(f["l"] == 0);
    CHECK(f["m"] == 0);
    CHECK(f["channel"] == "R");
    CHECK(f["expected"].get<double>() == Approx(f["actual"].get<double>() * 1.01).epsilon(1e-12));
    CHECK(off["warnings"].size() == 1);  // negative texels, kept
}

TEST_CASE("report: a report that cannot be written is exit 4 before any work, and nothing is written", "[cli][report]") {
    // Like every output, the report's folder is checked first: no bake is thrown away at the end.
    const std::string dir = scratch("report_unwritable");
    std::ofstream(dir + "/no") << "a file, not a folder";
    const CliResult r = run_cli(kSample + " -o " + dir + "/a.json --device cpu --report " + dir + "/no/such/r.json");
    CHECK(r.exit_code == kExitOutput);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(dir + "/no/such/r.json") != std::string::npos);
    CHECK_FALSE(file_exists(dir + "/a.json"));
}

TEST_CASE("report: written even when the demanded GPU is missing, every input failed with exit 5", "[cli][report]") {
    const std::string dir = scratch("report_no_gpu");
    const CliResult r = run_cli(kSample + " " + kWarehouse + " --out-dir " + dir + " --name '{stem}.json' --device gpu " +
                                    "--report " + dir + "/r.json",
                                "BAKE_TEST_FAULT=context");
    CHECK(r.exit_code == kExitGpuUnavailable);
    REQUIRE(file_exists(dir + "/r.json"));
    require_valid(dir + "/r.json");
    const json rep = read_json(dir + "/r.json");
    CHECK(rep["exit_code"] == kExitGpuUnavailable);
    REQUIRE(rep["files"].size() == 2);
    for (const json& f : rep["files"]) {
        CHECK(f["status"] == "failed");
        CHECK(f["exit_code"] == kExitGpuUnavailable);
        CHECK(f["error"].get<std::string>().find("GPU path failed") != std::string::npos);
    }
}

// Issue 18: a run refused before baking wrote no report, so a pipeline reading it found nothing.
// Now every run whose options parse writes one, with the error line in it (valid against the schema).
TEST_CASE("report: written for a run refused before baking, with its error", "[cli][report]") {
    const std::string dir = scratch("report_refused");
    std::ofstream(dir + "/plain") << "a file where a folder should be";
    struct Case {
        std::string args;
        int code;
        std::string mention;
    };
    const Case cases[] = {
        // An output folder that cannot be made.
        {kSample + " -o " + dir + "/plain/x.json --device cpu", kExitOutput, dir + "/plain/x.json"},
        // Usage errors found after parsing: an option without effect, a name clash.
        {kSample + " -o " + dir + "/x.json --tolerance 1e-3 --device cpu", kExitUsage, "--tolerance: has no effect"},
        {kSample + " " + kWarehouse + " --out-dir " + dir + " --name fixed.json --device cpu", kExitUsage,
         "same file for every input"},
        // --dfg alone with an option that needs an input.
        {"--dfg " + dir + "/d.png --golden " + dir + "/missing.json", kExitUsage, "--golden: has no effect without an input"},
    };
    for (const Case& c : cases) {
        fs::remove(dir + "/r.json");
        const CliResult r = run_cli(c.args + " --report " + dir + "/r.json");
        INFO(c.args << "\n" << r.err);
        CHECK(r.exit_code == c.code);
        CHECK(line_count(r.err) == 1);
        REQUIRE(file_exists(dir + "/r.json"));
        require_valid(dir + "/r.json");
        const json rep = read_json(dir + "/r.json");
        CHECK(rep["exit_code"] == c.code);
        CHECK(rep["error"].get<std::string>().find(c.mention) != std::string::npos);
        for (const json& f : rep["files"]) {
            CHECK(f["status"] == "failed");
            CHECK(f["exit_code"] == c.code);
        }
    }
    // When the report itself is the problem (it would overwrite an input), it is not written.
    fs::copy_file(kSample, dir + "/in.hdr");
    const std::string before = slurp(dir + "/in.hdr");
    const CliResult r = run_cli(dir + "/in.hdr -o " + dir + "/y.json --device cpu --report " + dir + "/in.hdr");
    CHECK(r.exit_code == kExitUsage);
    CHECK(slurp(dir + "/in.hdr") == before);
}

// Issue 18 #7: `--dfg d.png --report r.json` exited 0 and wrote no report.
TEST_CASE("report: --dfg alone writes its report, the table among the run's outputs", "[cli][report][dfg]") {
    const std::string dir = scratch("report_dfg");
    const CliResult r = run_cli("--dfg " + dir + "/d.png --dfg-size 8 --report " + dir + "/r.json");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    REQUIRE(file_exists(dir + "/r.json"));
    require_valid(dir + "/r.json");
    const json rep = read_json(dir + "/r.json");
    CHECK(rep["outputs"] == json::array({dir + "/d.png"}));
    CHECK(rep["files"].empty());
    CHECK(rep["error"].is_null());
}
