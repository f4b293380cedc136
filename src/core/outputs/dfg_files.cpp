#include "dfg_files.h"

#include "image_io.h"
#include "png16.h"

namespace bake {

void write_dfg_exr(const std::string& path, const Image& table) {
    write_exr(path, table, EnvmapHint::None,
              {{"bakeContent", "split-sum DFG table of GGX (Karis 2013)"}, {"bakeAxes", kDfgAxes}, {"bakeChannels", kDfgChannels}});
}

void write_dfg_png16(const std::string& path, const Image& table) {
    write_png16(path, table,
                {{"Title", "split-sum DFG table of GGX (Karis 2013)"}, {"Description", std::string(kDfgAxes) + ". " + kDfgChannels},
                 {"Software", "bake-irradiance"}});
}

}  // namespace bake
