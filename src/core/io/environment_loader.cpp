#include "environment_loader.h"

#include "errors.h"

namespace bake {

namespace {

std::string dims(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

void pass_on_notes(const std::string& path, const LoadedImage& loaded, const LoadOptions& options) {
    if (options.warnings)
        for (const std::string& note : loaded.notes) options.warnings->push_back("warning: " + path + ": " + note);
}

}  // namespace

Environment load_environment(const std::string& path, const LoadOptions& options) {
    LoadedImage loaded = options.packed ? load_image_packed(path, options.max_pixels)
                                        : load_image(path, options.max_pixels);
    pass_on_notes(path, loaded, options);
    const int w = loaded.width(), h = loaded.height();

    std::optional<Layout> layout = options.layout;
    if (!layout && loaded.envmap == EnvmapHint::LatLong) layout = Layout::Equirect;
    if (!layout && loaded.envmap == EnvmapHint::Cube) {
        if (cube_face_size(Layout::VStrip, w, h) == 0)
            throw InputError(path + ": envmap attribute says cube but the image is " + dims(w, h) +
                             ", not N x 6N");
        layout = Layout::VStrip;
    }
    if (!layout) layout = detect_layout(w, h);
    // --layout helps an image of some other aspect, never one too small to be an environment.
    if (!layout && (w < 6 || h < 3))
        throw InputError(path + ": " + dims(w, h) + " is too small for an environment map (a lat-long map needs at "
                                                    "least 6x3 texels, 64x32 to keep the irradiance within 0.1%)");
    if (!layout)
        throw InputError(path + ": " + dims(w, h) +
                         " fits no layout (2:1 equirect, 4:3 or 3:4 cross, 6:1 or 1:6 strip); use --layout");
    if (*layout == Layout::Faces)
        throw InputError(path + ": layout 'faces' needs six files (--faces or a {face} pattern)");

    Environment env;
    env.layout = *layout;
    if (*layout == Layout::Equirect) {
        env.equirect = std::move(loaded.image);
        env.packed = std::move(loaded.packed);
    } else {
        if (loaded.is_packed()) {
            loaded.image = expand_packed(loaded.packed);
            loaded.packed = PackedImage{};
        }
        if (cube_face_size(*layout, w, h) == 0)
            throw InputError(path + ": " + dims(w, h) + " is not a " + layout_name(*layout) + " of square faces");
        env.cube = extract_cube(loaded.image, *layout);
    }
    return env;
}

Environment load_environment_faces(const std::array<std::string, 6>& paths, const LoadOptions& options) {
    Environment env;
    env.layout = Layout::Faces;
    for (int f = 0; f < 6; ++f) {
        const std::string& path = paths[static_cast<size_t>(f)];
        LoadedImage loaded = load_image(path, options.max_pixels);
        pass_on_notes(path, loaded, options);
        const int w = loaded.image.width, h = loaded.image.height;
        if (w != h)
            throw InputError(path + ": face " + cube_face_name(f) + " is " + dims(w, h) + ", not square");
        if (f == 0) {
            env.cube.size = w;
        } else if (w != env.cube.size) {
            throw InputError(path + ": face " + cube_face_name(f) + " is " + dims(w, h) + " but face +X is " +
                             dims(env.cube.size, env.cube.size));
        }
        env.cube.faces[static_cast<size_t>(f)] = std::move(loaded.image);
    }
    return env;
}

std::optional<std::array<std::string, 6>> expand_face_pattern(const std::string& pattern) {
    static const char* const tags[6] = {"px", "nx", "py", "ny", "pz", "nz"};
    const std::string key = "{face}";
    const size_t at = pattern.find(key);
    if (at == std::string::npos) return std::nullopt;
    std::array<std::string, 6> out;
    for (int f = 0; f < 6; ++f) {
        std::string s = pattern;
        for (size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + 2)) s.replace(p, key.size(), tags[f]);
        out[static_cast<size_t>(f)] = s;
    }
    return out;
}

}  // namespace bake
