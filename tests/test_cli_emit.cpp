// --emit through the real binary: the GLSL function is compiled by the OpenGL driver inside a
// small compute shader and its values are checked against eval_sh on the CPU; the HLSL function
// is checked term by term (no HLSL compiler on Debian: no dxc package; glslang could be added).
#include <catch2/catch.hpp>

#include <glad/gl.h>

#include <filesystem>
#include <random>
#include <set>
#include <regex>

#include "cli_runner.h"
#include "errors.h"
#include "gl_context.h"
#include "test_support.h"

using namespace bake;
using namespace bake::test;
namespace fs = std::filesystem;

namespace {



std::vector<Vec3> test_normals() {
    std::vector<Vec3> n = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    std::mt19937 rng(7);
    std::normal_distribution<double> g;
    while (n.size() < 256) n.push_back(normalize({g(rng), g(rng), g(rng)}));
    return n;
}

std::string info_log(GLuint object, bool program) {
    GLint length = 0;
    program ? glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length) : glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
    program ? glGetProgramInfoLog(object, length, nullptr, log.data()) : glGetShaderInfoLog(object, length, nullptr, log.data());
    return log;
}

// Runs the snippet's bakeIrradiance for every normal in a compute shader; returns E (vec3 each).
std::vector<float> run_snippet(const std::string& snippet, const std::vector<Vec3>& normals) {
    const std::string source = "#version 430\nlayout(local_size_x = 64) in;\n"
                               "layout(std430, binding = 0) readonly buffer Normals { vec4 normals[]; };\n"
                               "layout(std430, binding = 1) writeonly buffer Result { vec4 result[]; };\n" +
                               snippet +
                               "void main() {\n"
                               "    uint i = gl_GlobalInvocationID.x;\n"
                               "    if (i < uint(normals.length())) result[i] = vec4(bakeIrradiance(normals[i].xyz), 1.0);\n"
                               "}\n";
    const GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
    const char* text = source.c_str();
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    INFO(source);
    INFO(info_log(shader, false));
    REQUIRE(ok == GL_TRUE);
    const GLuint program = glCreateProgram();
    glAttachShader(program, shader);
    glLinkProgram(program);
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    INFO(info_log(program, true));
    REQUIRE(ok == GL_TRUE);

    std::vector<float> in;
    for (const Vec3& n : normals)
        for (double v : {n.x, n.y, n.z, 0.0}) in.push_back(static_cast<float>(v));
    GLuint buffers[2];
    glGenBuffers(2, buffers);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers[0]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(in.size() * sizeof(float)), in.data(), GL_STATIC_DRAW);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers[1]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(in.size() * sizeof(float)), nullptr, GL_DYNAMIC_READ);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffers[0]);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, buffers[1]);
    glUseProgram(program);
    glDispatchCompute(static_cast<GLuint>((normals.size() + 63) / 64), 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    std::vector<float> out(in.size());
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers[1]);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(out.size() * sizeof(float)), out.data());
    REQUIRE(glGetError() == GL_NO_ERROR);
    glDeleteBuffers(2, buffers);
    glDeleteProgram(program);
    glDeleteShader(shader);
    return out;
}

}  // namespace

TEST_CASE("emit: the GLSL function compiles with the GL driver and evaluates E(n) as eval_sh does", "[cli][emit][gpu]") {
    std::unique_ptr<GlContext> context;
    try {
        context = GlContext::create(GlBackend::Egl);
    } catch (const GpuError& e) {
        if (std::getenv("BAKE_ALLOW_NO_GL")) {
            WARN("no OpenGL 4.3 context: " << e.what());
            return;
        }
        FAIL("no OpenGL 4.3 context (set BAKE_ALLOW_NO_GL=1 to allow): " << e.what());
    }
    const std::string dir = scratch("emit_glsl");
    const std::vector<Vec3> normals = test_normals();
    for (const int order : {3, 5}) {
        for (const std::string& input : {kSample, kWarehouse}) {
            const std::string tag = std::to_string(order) + "_" + fs::path(input).stem().string();
            const std::string glsl = dir + "/" + tag + ".glsl", json = dir + "/" + tag + ".json";
            const CliResult r = run_cli(input + " --order " + std::to_string(order) + " --emit glsl " + glsl + " -o " +
                                        json + " --device cpu -q");
            INFO(r.err);
            REQUIRE(r.exit_code == 0);
            const ShCoefficients e = coefficients_from(read_json(json).at("irradiance"), order);
            const std::vector<float> got = run_snippet(slurp(glsl), normals);
            // float evaluation of a sum of terms E_k Y_k(n): error bounded by a few float ulps of
            // sum_k |E_k Y_k(n)| (the coefficients are rounded to float too).
            double worst = 0, scale = 0;
            for (size_t i = 0; i < normals.size(); ++i) {
                const Rgb want = eval_sh(e, normals[i]);
                double y[25];
                eval_sh_basis(order, normals[i], y);
                for (int c = 0; c < 3; ++c) {
                    double sum_abs = 0;
                    for (int k = 0; k < e.count(); ++k) sum_abs += std::fabs(e.rgb[static_cast<size_t>(k)][c] * y[k]);
                    scale = std::max(scale, sum_abs);
                    worst = std::max(worst, std::fabs(got[i * 4 + c] - want[c]) / sum_abs);
                }
            }
            INFO(tag << ": max |GLSL - eval_sh| / sum |E_k Y_k| = " << worst);
            CHECK(worst <= 1e-6);  // 2^-24 = 6e-8: about 16 float roundings
            CHECK(scale > 0);
        }
    }
}

TEST_CASE("emit: the HLSL function holds every non-zero coefficient with its basis term", "[cli][emit]") {
    const std::string dir = scratch("emit_hlsl");
    const CliResult r = run_cli(kWarehouse + " --order 5 --emit hlsl " + dir + "/w.hlsl --emit glsl " + dir +
                                "/w.glsl -o " + dir + "/w.json --device cpu -q");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::string hlsl = slurp(dir + "/w.hlsl");
    CHECK(hlsl.find("float3 BakeIrradiance(float3 n)") != std::string::npos);
    CHECK(hlsl.find("Condon-Shortley") != std::string::npos);
    CHECK(hlsl.find("NOT divided") != std::string::npos);
    CHECK(hlsl.find("vec3") == std::string::npos);
    const ShCoefficients e = coefficients_from(read_json(dir + "/w.json").at("irradiance"), 5);
    // The basis constants of docs/CONVENTION.md, index k = l*l + l + m.
    const double basis[25] = {0.282094791773878, 0.488602511902920, 0.488602511902920, 0.488602511902920,
                              1.092548430592079, 1.092548430592079, 0.315391565252520, 1.092548430592079,
                              0.546274215296040, 0.590043589926644, 2.890611442640554, 0.457045799464466,
                              0.373176332590115, 0.457045799464466, 1.445305721320277, 0.590043589926644,
                              2.503342941796705, 1.770130769779931, 0.946174695757560, 0.669046543557289,
                              0.105785546915204, 0.669046543557289, 0.473087347878780, 1.770130769779931,
                              0.625835735449176};
    const std::regex term(R"(e \+= float3\(([^,]+), ([^,]+), ([^)]+)\) \* \(([0-9.e+-]+)[^;]*;  // l=(\d) m=(-?\d))");
    std::set<int> seen;
    for (auto it = std::sregex_iterator(hlsl.begin(), hlsl.end(), term); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        const int l = std::stoi(m[5]), mm = std::stoi(m[6]), k = l * l + l + mm;
        INFO("l=" << l << " m=" << mm);
        seen.insert(k);
        for (int c = 0; c < 3; ++c) {
            const double want = e.rgb[static_cast<size_t>(k)][c];
            CHECK(std::fabs(std::stod(m[static_cast<size_t>(c) + 1]) - want) <= 1e-8 * std::fabs(want));  // 9 digits
        }
        CHECK(std::stod(m[4]) == Approx(basis[k]).epsilon(1e-8));
    }
    // Bands 0, 1, 2, 4 (9 + 16 - 7 = 18 terms); band 3 vanishes (A_3 = 0) and is left out.
    std::set<int> want;
    for (int k = 0; k < 25; ++k)
        if (k < 9 || k >= 16) want.insert(k);
    CHECK(seen == want);
    // The two languages carry the same numbers.
    std::string glsl = slurp(dir + "/w.glsl");
    std::string as_hlsl = std::regex_replace(glsl, std::regex("vec3"), "float3");
    as_hlsl = std::regex_replace(as_hlsl, std::regex("bakeIrradiance"), "BakeIrradiance");
    CHECK(as_hlsl == hlsl);
}

TEST_CASE("emit: the HLSL function compiles as an HLSL compute shader (glslang, where installed)", "[cli][emit]") {
    // Debian has no dxc; glslang (package glslang-tools) reads HLSL. Without it: a warning.
    if (std::system("command -v glslangValidator >/dev/null 2>&1") != 0) {
        WARN("glslangValidator not installed (Debian package glslang-tools): HLSL not compiled");
        return;
    }
    const std::string dir = scratch("emit_hlsl_compile");
    for (const int order : {3, 5}) {
        const std::string name = "s" + std::to_string(order) + ".hlsl";
        REQUIRE(run_cli(kWarehouse + " --order " + std::to_string(order) + " --emit hlsl " + dir + "/" + name +
                        " --device cpu -q")
                    .exit_code == 0);
        std::ofstream(dir + "/wrap" + name) << "RWStructuredBuffer<float4> normals : register(u0);\n"
                                               "RWStructuredBuffer<float4> result : register(u1);\n"
                                               "#include \"" << name << "\"\n"
                                               "[numthreads(64, 1, 1)]\n"
                                               "void main(uint3 id : SV_DispatchThreadID)\n"
                                               "{ result[id.x] = float4(BakeIrradiance(normals[id.x].xyz), 1.0); }\n";
        const std::string cmd = "cd " + dir + " && glslangValidator -D -V -S comp -e main wrap" + name + " -o " + name +
                                ".spv >" + name + ".log 2>&1";
        const int status = std::system(cmd.c_str());
        INFO(slurp(dir + "/" + name + ".log"));
        CHECK(status == 0);
        CHECK(file_exists(dir + "/" + name + ".spv"));
    }
    // And a broken function does not compile: the check can fail.
    std::ofstream(dir + "/bad.hlsl") << "[numthreads(1, 1, 1)] void main() { float3 e = float3(1.0, 2.0); }\n";
    CHECK(std::system(("cd " + dir + " && glslangValidator -D -V -S comp -e main bad.hlsl >/dev/null 2>&1").c_str()) != 0);
}

TEST_CASE("emit: an unwritable snippet is exit 4, one line naming it", "[cli][emit][errors]") {
    const std::string dir = scratch("emit_error");
    std::ofstream(dir + "/no") << "a file, not a folder";
    const CliResult r = run_cli(kSample + " --emit glsl " + dir + "/no/dir/s.glsl --device cpu");
    CHECK(r.exit_code == kExitOutput);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(dir + "/no/dir/s.glsl") != std::string::npos);
}
