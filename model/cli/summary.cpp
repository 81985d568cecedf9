// SPDX-License-Identifier: GPL-2.0-only
// The summary a reviewer reads first (verify, merge, evidence): per algorithm, one line per
// variant saying whether it is sound or bad and, per memory model, the verdict class over its
// configurations: pass everywhere, or each violation class with the smallest configuration
// (the first of the registry's ladder) that shows it. Fits 80 columns: a line too long goes on
// below, indented under the models.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "model/cli/cli.hpp"

namespace kverify::cli {
namespace {

constexpr std::size_t width = 80;

std::string paint(const std::string& s, const char* code, bool colour) {
    return colour ? std::string("\033[") + code + "m" + s + "\033[0m" : s;
}

// What one variant showed on one model.
struct cell {
    bool any = false, all_pass = true, differs = false;
    std::set<std::string> checks;  // the configurations the model's rows cover
    // class -> (registry position, configuration) of the smallest configuration showing it
    std::map<std::string, std::pair<std::size_t, std::string>> classes;
};

struct variant_line {
    std::string name;
    std::map<std::string, cell> by_model;  // engine -> cell
    bool differs = false;
};

}  // namespace

// The configuration part of a check's name, ALGORITHM/VARIANT/CONFIG; "" when the name is the
// variant's alone (litmus/mp/relaxed), the rest of it when the variant is not in it.
std::string config_of(const std::string& check, const std::string& variant) {
    const std::size_t at = check.find("/" + variant + "/");
    if (at != std::string::npos) return check.substr(at + variant.size() + 2);
    const std::size_t end = check.size() >= variant.size() + 1 ? check.size() - variant.size() : 0;
    if (end > 0 && check.compare(end - 1, std::string::npos, "/" + variant) == 0) return "";
    return check.substr(check.find('/') + 1);
}

const std::vector<std::pair<std::string, std::string>>& models() {
    static const std::vector<std::pair<std::string, std::string>> m = {
        {"dpor-sc", "SC"}, {"dpor-rc11", "RC11"}, {"dpor-lkmm", "LKMM"}, {"relacy", "Relacy"}};
    return m;
}

bool colour_wanted(int fd) {
    const char* no = std::getenv("NO_COLOR");
    return (no == nullptr || *no == '\0') && isatty(fd) == 1;
}

std::string variant_summary(const std::vector<summary_row>& rows, bool colour) {
    std::map<std::string, std::size_t> position;  // check name -> registry position
    for (const check& c : model::registry().all()) position.emplace(c.name, position.size());

    std::vector<std::pair<std::string, std::vector<variant_line>>> algorithms;
    // Per algorithm, the twins of the checker (check::checker_twin): kept out of the variants'
    // lines (their violations are not the variants'), counted on a line of their own.
    struct twins {
        std::set<std::string> checks, differ;
    };
    std::map<std::string, twins> twins_of;
    for (const summary_row& r : rows) {
        auto a = std::find_if(algorithms.begin(), algorithms.end(),
                              [&](const auto& x) { return x.first == r.algorithm; });
        if (a == algorithms.end()) a = algorithms.insert(algorithms.end(), {r.algorithm, {}});
        const check* ck = model::find_check(r.check);
        if (ck && ck->checker_twin) {
            twins& tw = twins_of[r.algorithm];
            tw.checks.insert(r.check);
            if (r.status != "ok") tw.differ.insert(r.check);
            continue;
        }
        auto v = std::find_if(a->second.begin(), a->second.end(),
                              [&](const variant_line& x) { return x.name == r.variant; });
        if (v == a->second.end()) v = a->second.insert(a->second.end(), {r.variant, {}, false});
        cell& c = v->by_model[r.engine];
        c.any = true;
        c.checks.insert(r.check);
        const bool ok = r.status == "ok";
        c.differs = c.differs || !ok;
        v->differs = v->differs || !ok;
        if (r.outcome == "pass") continue;
        c.all_pass = false;
        const auto at = position.find(r.check);
        const std::size_t pos = at == position.end() ? SIZE_MAX : at->second;
        const std::string config = config_of(r.check, r.variant);
        auto [it, fresh] = c.classes.emplace(r.outcome, std::make_pair(pos, config));
        if (!fresh && pos < it->second.first) it->second = {pos, config};
    }

    std::ostringstream out;
    for (const auto& [algorithm, variants] : algorithms) {
        std::size_t name_w = 0;
        for (const variant_line& v : variants) name_w = std::max(name_w, v.name.size());
        name_w = std::min<std::size_t>(name_w, 26);
        int sound = 0;
        for (const variant_line& v : variants) {
            bool bad = false, unknown = false;
            for (const auto& [e, c] : v.by_model)
                for (const auto& [cls, where] : c.classes)
                    (cls == "inconclusive" || cls == "error" ? unknown : bad) = true;
            sound += !bad && !unknown;
        }
        out << algorithm << ": " << variants.size() << " variant(s), " << sound
            << " sound on every model\n";
        for (const variant_line& v : variants) {
            bool bad = false, unknown = false;
            for (const auto& [e, c] : v.by_model)
                for (const auto& [cls, where] : c.classes)
                    (cls == "inconclusive" || cls == "error" ? unknown : bad) = true;
            std::string name = v.name.size() > name_w ? v.name.substr(0, name_w - 1) + "~" : v.name;
            name.resize(name_w, ' ');
            const std::string label = bad ? "bad  " : unknown ? "?    " : "sound";
            std::string line = "  " + name + " " +
                               paint(label,
                                     bad       ? "33"
                                     : unknown ? "35"
                                               : "32",
                                     colour && !v.differs);
            if (v.differs) line = "  " + name + " " + paint(label, "1;31", colour);
            std::size_t col = 2 + name_w + 1 + label.size();
            const std::size_t indent = col + 2;  // where the first model starts
            // A model whose rows cover fewer configurations than another model's says so: its
            // "pass" is over those only ("LKMM pass 40/92").
            std::size_t most = 0;
            for (const auto& [e, c] : v.by_model) most = std::max(most, c.checks.size());
            // Words: "SC pass", "RC11 loss c2-o1-np," ... each kept whole.
            for (const auto& [engine, model] : models()) {
                const auto it = v.by_model.find(engine);
                if (it == v.by_model.end()) continue;
                const cell& c = it->second;
                std::vector<std::pair<std::string, const char*>> words;  // text, colour code
                const char* mark = c.differs ? "1;31" : nullptr;
                if (c.classes.empty()) {
                    const std::string part =
                        c.checks.size() < most
                            ? " " + std::to_string(c.checks.size()) + "/" + std::to_string(most)
                            : "";
                    words.push_back(
                        {model + " pass" + part + (c.differs ? "!" : ""), mark ? mark : "32"});
                } else {
                    std::size_t k = 0;
                    for (const auto& [cls, where] : c.classes) {
                        std::string w = (k == 0 ? model + " " : "") + cls +
                                        (where.second.empty() ? "" : " " + where.second);
                        if (++k < c.classes.size())
                            w += ",";
                        else if (c.differs)
                            w += "!";
                        words.push_back({w, mark ? mark : "33"});
                    }
                }
                // A model starts a line of its own when it does not fit whole on this one.
                std::size_t whole = 1;
                for (const auto& wc : words) whole += 1 + wc.first.size();
                if (col + whole > width && col > indent) {
                    out << line << "\n";
                    line = std::string(indent - 2, ' ');
                    col = indent - 2;
                }
                bool first = true;
                for (const auto& [w, code] : words) {
                    const std::size_t gap = first ? 2 : 1;
                    if (col + gap + w.size() > width && col > indent) {
                        out << line << "\n";
                        line = std::string(indent + 2, ' ');  // a model goes on
                        col = indent + 2;
                    } else {
                        line += std::string(gap, ' ');
                        col += gap;
                    }
                    line += paint(w, code, colour);
                    col += w.size();
                    first = false;
                }
            }
            out << line << "\n";
        }
        const auto tw = twins_of.find(algorithm);
        if (tw != twins_of.end()) {
            const std::size_t n = tw->second.checks.size(), bad = tw->second.differ.size();
            std::string line =
                "  + " + std::to_string(n) + " twin(s) of the checker, not of a variant: ";
            line +=
                bad == 0
                    ? paint("each fails as expected", "32", colour)
                    : paint(std::to_string(bad) + " differ (" + *tw->second.differ.begin() +
                                (bad > 1 ? ", ... " + std::to_string(bad - 1) + " more" : "") + ")",
                            "1;31", colour);
            out << line << "\n";
        }
    }
    out << "(sound: every row passes; bad: a model shows a violation, with the smallest\n"
           " configuration that shows it; pass k/n: passes the k configurations it ran, of\n"
           " the n another model ran; !: a model whose rows differ from the table)\n";
    if (!twins_of.empty())
        out << "(twins of the checker: a variant's code with a test Env, or the API misused,\n"
               " made to fail; their violations are not the variant's)\n";
    return out.str();
}

std::string difference_list(const std::vector<row_result>& results) {
    std::ostringstream out;
    std::size_t n = 0;
    for (const row_result& r : results) n += r.status != "ok";
    if (n == 0) return "";
    out << "rows that differ from the table (" << n << "):\n";
    for (const row_result& r : results) {
        if (r.status == "ok") continue;
        const std::string row = "  " + r.row.check + " " + r.row.engine + " " + r.row.search.str();
        std::string what = r.v.outcome + " (expected " + r.row.expected + ")";
        if (r.status == "count-changed")
            what = std::to_string(r.v.executions) + " executions (pinned " + r.row.executions + ")";
        what += "  " + r.status;
        if (row.size() + 2 + what.size() > width)
            out << row << "\n      " << what << "\n";
        else
            out << row << "  " << what << "\n";
    }
    return out.str();
}

}  // namespace kverify::cli
