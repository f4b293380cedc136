#include "sheen_lut_files.h"

#include "image_io.h"
#include "png16.h"

namespace bake {

void write_sheen_lut_exr(const std::string& path, const Image& table) {
    write_exr(path, table, EnvmapHint::None,
              {{"bakeContent", kSheenLutContent}, {"bakeAxes", kSheenLutAxes}, {"bakeChannels", kSheenLutChannels}});
}

void write_sheen_lut_png16(const std::string& path, const Image& table) {
    write_png16(path, table,
                {{"Title", kSheenLutContent}, {"Description", std::string(kSheenLutAxes) + ". " + kSheenLutChannels},
                 {"Software", "bake-irradiance"}});
}

}  // namespace bake
