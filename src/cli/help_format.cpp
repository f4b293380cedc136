#include "help_format.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace bake {

int help_width() {
    int width = 0;
    if (const char* columns = std::getenv("COLUMNS")) width = std::atoi(columns);
    winsize ws{};
    if (width <= 0 && ::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) width = ws.ws_col;
    if (width <= 0) width = 100;
    return std::max(width, 80);
}

std::string wrap_text(const std::string& text, int width, int first_indent, int indent) {
    std::istringstream words(text);
    std::string out(static_cast<std::size_t>(first_indent), ' '), word;
    int column = first_indent;
    bool line_empty = true;
    while (words >> word) {
        const int length = static_cast<int>(word.size());
        if (!line_empty && column + 1 + length > width) {
            out += "\n" + std::string(static_cast<std::size_t>(indent), ' ');
            column = indent;
            line_empty = true;
        }
        if (!line_empty) {
            out += ' ';
            ++column;
        }
        out += word;
        column += length;
        line_empty = false;
    }
    return out;
}

std::string WrappedHelp::make_option(const CLI::Option* opt, bool is_positional) const {
    const int column = static_cast<int>(get_column_width());
    const std::string left = "  " + make_option_name(opt, is_positional) + make_option_opts(opt);
    const std::string desc = make_option_desc(opt);
    std::string out = left;
    if (desc.empty()) return out + "\n";
    const int used = static_cast<int>(left.size());
    // The description wrapped in its column; after a name too long for the column, from the next line.
    const std::string wrapped = wrap_text(desc, width_, column, column);
    if (used + 1 > column) out += "\n" + wrapped;
    else out += std::string(static_cast<std::size_t>(column - used), ' ') + wrapped.substr(static_cast<std::size_t>(column));
    return out + "\n";
}

std::string WrappedHelp::make_description(const CLI::App* app) const {
    const std::string desc = app->get_description();
    return desc.empty() ? std::string() : wrap_text(desc, width_, 0, 0) + "\n";
}

std::string WrappedHelp::make_footer(const CLI::App* app) const {
    std::istringstream lines(app->get_footer());
    std::string line, paragraph, out;
    auto flush = [&] {
        if (!paragraph.empty()) out += wrap_text(paragraph, width_, 0, 0) + "\n";
        paragraph.clear();
    };
    while (std::getline(lines, line)) {
        if (line.empty()) {
            flush();
            out += "\n";
        } else if (line.rfind("  ", 0) == 0) {
            flush();
            out += line + "\n";
        } else {
            paragraph += (paragraph.empty() ? "" : " ") + line;
        }
    }
    flush();
    return out;
}

}  // namespace bake
