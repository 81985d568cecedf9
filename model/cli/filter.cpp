// SPDX-License-Identifier: GPL-2.0-only
// --filter: a regular expression on check names, with RE2 (libre2-dev). RE2 matches in time
// linear in the name and bounds the memory of a compiled pattern, so no pattern, however long
// or nested, crashes the command or runs for ever; one it cannot compile is a usage error.
#include <re2/re2.h>

#include "model/cli/cli.hpp"

namespace kverify::cli {
namespace {

// The pattern as a message shows it: a long one is cut, so that the message stays one line.
std::string shown(const std::string& pattern) {
    std::string s = pattern.size() > 60 ? pattern.substr(0, 60) + "..." : pattern;
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 0x20) c = '?';
    return s;
}

}  // namespace

struct name_filter::compiled {
    re2::RE2 re;
    explicit compiled(const std::string& p) : re(p, options()) {}
    static re2::RE2::Options options() {
        re2::RE2::Options o;
        o.set_log_errors(false);  // the error goes into our one-line message instead
        return o;
    }
};

name_filter::name_filter(const std::string& pattern) {
    if (pattern.empty()) return;
    if (pattern.size() > max_pattern)
        throw usage_error("invalid regex '" + shown(pattern) + "': longer than " +
                          std::to_string(max_pattern) + " characters");
    re_ = std::make_shared<const compiled>(pattern);
    if (!re_->re.ok())
        throw usage_error("invalid regex '" + shown(pattern) + "': " + re_->re.error());
}

bool name_filter::matches(const std::string& name) const {
    return !re_ || re2::RE2::PartialMatch(name, re_->re);
}

}  // namespace kverify::cli
