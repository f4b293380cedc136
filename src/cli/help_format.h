#pragma once
// --help wrapped to the terminal. CLI11 2.1 (Debian 12's) prints each option's description on one
// line whatever its length (the --device line was 348 columns); this formatter wraps descriptions
// under their column and the footer's paragraphs to the width of the terminal.
#include <CLI/CLI.hpp>
#include <string>

namespace bake {

// $COLUMNS when set, else the terminal's width when stdout is one, else 100; at least 80 (the examples are laid out for 80).
int help_width();

// `text` broken at spaces into lines of at most `width` columns, each after `indent` spaces (the
// first after `first_indent`); a word longer than a line stands alone.
std::string wrap_text(const std::string& text, int width, int first_indent, int indent);

class WrappedHelp : public CLI::Formatter {
public:
    explicit WrappedHelp(int width) : width_(width) {}
    std::string make_option(const CLI::Option* opt, bool is_positional) const override;
    std::string make_description(const CLI::App* app) const override;
    // Paragraphs are wrapped; lines that begin with two spaces (examples, tables) are kept as written.
    std::string make_footer(const CLI::App* app) const override;

private:
    int width_;
};

}  // namespace bake
