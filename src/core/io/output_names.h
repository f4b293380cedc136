#pragma once
#include <string>

namespace bake {

// Output names of a batch, made from a pattern per input. Placeholders:
//   {stem}   the input's file name without folder and last extension ("sky" for "maps/sky.exr";
//            for a face pattern "cube_{face}.hdr", the name with "{face}" and the separator
//            before it removed: "cube")
//   {name}   the input's file name without folder ("sky.exr")
//   {index}  the input's position on the command line, from 1
// Anything else in braces is an error (std::invalid_argument naming it), except, with
// keep_level = true, {level}: it is left in place as it is, for expand_level_placeholder
// (specular_io.h) to fill in per level of a specular chain afterwards.
std::string input_stem(const std::string& input);
std::string expand_output_pattern(const std::string& pattern, const std::string& input, int index,
                                  bool keep_level = false);

// Whether the pattern holds a placeholder (so that it names a different file per input); {level}
// does not count, it differs per level, not per input.
bool has_output_placeholder(const std::string& pattern);

}  // namespace bake
