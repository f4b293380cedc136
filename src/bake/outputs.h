#pragma once
// A bake's outputs, written from what the stages made. A file given with -o / --name is written
// by the format its extension names (the registry in outputs.cpp: one entry a format); --specular,
// --preview and --emit by their own writers. All of one input's outputs are written, or none.
#include <functional>
#include <string>
#include <vector>

#include "bake_settings.h"
#include "coefficients_json.h"
#include "run_report.h"
#include "specular_stage.h"
#include "sun.h"

namespace bake {

// What the outputs are made from.
struct BakeProducts {
    const BakeJob& job;
    const BakeSettings& settings;
    const Environment* env;         // the input, for --preview (null without one)
    const BakeRecord& record;
    const Image* map;               // the irradiance map, when an output needs one
    const SpecularBake* specular;   // --specular
    const SpecularBake* gltf_chain; // --gltf: the chain down to settings.gltf_last_size
    const SpecularBake* sheen;      // --sheen
    const Sun* sun;                 // --extract-sun: the sun taken out (null: none, or not asked)
};

// --sh-format's engines (engine_sh.h says what each file holds): a name's writer, or null.
using ShWriter = void (*)(const std::string& path, const ShCoefficients& radiance);
ShWriter parse_sh_engine(const std::string& name);

// --sun-format's engines (sun_lights.h): the sun as that engine's light, as JSON (null: no sun).
using SunWriter = nlohmann::json (*)(const Sun& sun);
SunWriter parse_sun_engine(const std::string& name);

// A format of -o / --name files, chosen by extension.
struct OutputFormat {
    const char* extension;  // lower case, with the dot: ".exr"
    const char* what;       // for --help and errors: "irradiance map"
    bool needs_map;         // the irradiance map is rendered for it
    void (*write)(const std::string& path, const BakeProducts& products);
};

// The registered formats, and the one for a path (by its extension, case-insensitive; null: none).
const std::vector<OutputFormat>& output_formats();
const OutputFormat* output_format_for(const std::string& path);

// Every file a job reads or writes, each with the option that names it, in one list: the file
// guard (file_guard.h) checks them before any work, --skip-unchanged hashes them, the depfile
// and the report list them. An output that write_outputs writes and this list lacks is refused
// by the sealed guard at its first write.
struct JobFile {
    enum Role {
        Read,      // the input, its six faces, the golden
        Write,     // an output, in the order write_outputs writes them
        Manifest,  // --skip-unchanged: the manifest written with the outputs, or an older one of this
                   // input beside another of its outputs (removed once the new one is in place)
    };
    std::string path;
    std::string option;  // "input", "--faces", "--golden", "--output", "--name", "--specular", ...
    Role role;
};
std::vector<JobFile> job_files(const BakeJob& job, const BakeSettings& settings);

// job_files' outputs, in order; its inputs (the golden last).
std::vector<std::string> planned_outputs(const BakeJob& job, const BakeSettings& settings);
std::vector<std::string> input_files(const BakeJob& job);

// Whether any of the job's -o / --name files needs the irradiance map.
bool outputs_need_map(const BakeJob& job);

// What the job's outputs would lose of what was baked, one warning line each ("warning: <file>:
// ..."): KTX2 and DDS files of a 16-bit or shared-exponent format stop near 65 000, a glTF's RGBD
// PNGs at 255 (a sun's texels are cut there).
std::vector<std::string> clipping_warnings(const BakeJob& job, const BakeSettings& settings, const Image* map,
                                           const SpecularBake* specular, const SpecularBake* sheen,
                                           const SpecularBake* gltf_chain);

// --sheen-lut: the sheen LUT (sheen_lut.h), which depends on no input either: .png 16-bit, .ktx2,
// else float EXR.
void write_sheen_lut_table(const std::string& path, int size, int threads, const KtxWriteOptions& ktx);

// --dfg: the split-sum table, which depends on no input (written once a run): .png 16-bit, .ktx2,
// else float EXR.
void write_dfg_table(const std::string& path, int size, int threads, const KtxWriteOptions& ktx);

// Writes every output of the job as one OutputSet (atomic_file.h): all of them, or none, each
// target then as it was. Fills rep.outputs, rep.specular, rep.preview and rep.emitted once the
// set is in place. Throws OutputError naming the file. before_commit (if any) runs once every
// file is staged, before the stop check and the renames.
void write_outputs(const BakeProducts& products, FileReport& rep, const std::function<void()>& before_commit = {});

}  // namespace bake
