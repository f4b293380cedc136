#include "layout.h"

#include <atomic>
#include <cstring>

namespace bake {

namespace {

struct LayoutName {
    Layout layout;
    const char* name;
};
constexpr LayoutName kLayoutNames[] = {
    {Layout::Equirect, "equirect"}, {Layout::HCross, "hcross"}, {Layout::VCross, "vcross"},
    {Layout::HStrip, "hstrip"},     {Layout::VStrip, "vstrip"}, {Layout::Faces, "faces"},
};

// Where face f sits in a cross or strip, in face-size cells, and whether it is stored
// rotated by 180 degrees (only -Z of the vertical cross).
struct Cell {
    int row, col;
    bool rotated;
};

Cell face_cell(Layout layout, int face) {
    static const Cell hcross[6] = {{1, 2, false}, {1, 0, false}, {0, 1, false},
                                   {2, 1, false}, {1, 1, false}, {1, 3, false}};
    static const Cell vcross[6] = {{1, 2, false}, {1, 0, false}, {0, 1, false},
                                   {2, 1, false}, {1, 1, false}, {3, 1, true}};
    switch (layout) {
        case Layout::HCross: return hcross[face];
        case Layout::VCross: return vcross[face];
        case Layout::HStrip: return {0, face, false};
        default: return {face, 0, false};  // VStrip
    }
}

// Width and height of a layout in face-size cells.
void layout_cells(Layout layout, int* cols, int* rows) {
    switch (layout) {
        case Layout::HCross: *cols = 4; *rows = 3; break;
        case Layout::VCross: *cols = 3; *rows = 4; break;
        case Layout::HStrip: *cols = 6; *rows = 1; break;
        case Layout::VStrip: *cols = 1; *rows = 6; break;
        default: *cols = 0; *rows = 0; break;
    }
}

}  // namespace

const char* layout_name(Layout layout) {
    for (const auto& e : kLayoutNames)
        if (e.layout == layout) return e.name;
    return "?";
}

std::optional<Layout> parse_layout(const std::string& name) {
    for (const auto& e : kLayoutNames)
        if (name == e.name) return e.layout;
    return std::nullopt;
}

int cube_face_size(Layout layout, int width, int height) {
    int cols = 0, rows = 0;
    layout_cells(layout, &cols, &rows);
    if (cols == 0 || width <= 0 || height <= 0) return 0;
    if (width % cols != 0 || height % rows != 0) return 0;
    const int n = width / cols;
    return height / rows == n ? n : 0;
}

std::optional<Layout> detect_layout(int width, int height) {
    if (width <= 0 || height <= 0) return std::nullopt;
    if (width == 2 * height) return Layout::Equirect;
    for (Layout l : {Layout::HCross, Layout::VCross, Layout::HStrip, Layout::VStrip})
        if (cube_face_size(l, width, height) > 0) return l;
    return std::nullopt;
}

CubeMap extract_cube(const Image& image, Layout layout) {
    const int n = cube_face_size(layout, image.width, image.height);
    CubeMap cube(n);
    for (int f = 0; f < 6; ++f) {
        const Cell cell = face_cell(layout, f);
        Image& face = cube.faces[static_cast<size_t>(f)];
        for (int r = 0; r < n; ++r) {
            for (int c = 0; c < n; ++c) {
                const int sr = cell.rotated ? n - 1 - r : r;
                const int sc = cell.rotated ? n - 1 - c : c;
                std::memcpy(face.at(r, c), image.at(cell.row * n + sr, cell.col * n + sc), 3 * sizeof(float));
            }
        }
    }
    return cube;
}

Image assemble_cube(const CubeMap& cube, Layout layout) {
    int cols = 0, rows = 0;
    layout_cells(layout, &cols, &rows);
    const int n = cube.size;
    Image image(cols * n, rows * n);
    for (int f = 0; f < 6; ++f) {
        const Cell cell = face_cell(layout, f);
        const Image& face = cube.faces[static_cast<size_t>(f)];
        for (int r = 0; r < n; ++r) {
            for (int c = 0; c < n; ++c) {
                const int sr = cell.rotated ? n - 1 - r : r;
                const int sc = cell.rotated ? n - 1 - c : c;
                std::memcpy(image.at(cell.row * n + sr, cell.col * n + sc), face.at(r, c), 3 * sizeof(float));
            }
        }
    }
    return image;
}

void expand_packed_texels(Environment& env, int threads) {
    if (!env.is_packed()) return;
    env.equirect = expand_packed(env.packed, threads);
    env.packed = PackedImage{};
    env.identity = 0;  // another representation: a device holding the packed texels must not stand for it
}

std::uint64_t next_environment_identity() {
    static std::atomic<std::uint64_t> last{0};
    return ++last;
}

}  // namespace bake
