// SPDX-License-Identifier: GPL-2.0-only
// `kverify evidence`: what each variant of an algorithm is verified against, read from the
// expected-verdict table (every row of which `verify` checks): per variant, one list item per
// memory model and engine, search, tier and verdict, with the configurations it covers; of the
// rows of one check on one engine only the strongest search is shown. Every line fits 80
// columns. The evidence in proofs/objpool.md and proofs/percpu_counter.md is this output
// (ctest proofs.evidence).
#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "model/cli/commands.hpp"

namespace kverify::cli {
namespace {

// Order of the lines of one variant: the exhaustive engines first, strongest search first, a
// pass before the violations.
int engine_rank(const std::string& e) {
    if (e == "dpor-rc11") return 0;
    if (e == "dpor-sc") return 1;
    if (e == "relacy") return 2;
    return 3;
}

std::string model_of(const std::string& e) {
    if (e == "dpor-rc11") return "RC11 (dpor)";
    if (e == "dpor-sc") return "SC (dpor)";
    if (e == "dpor-lkmm") return "LKMM (dpor)";
    if (e == "relacy") return "C++11 (Relacy)";
    return e;
}

// exhaustive < bounded:K (larger K first) < sampled:N (larger N first)
std::tuple<int, long long> search_rank(const search_spec& s) {
    const std::string t = s.str();
    if (t == "exhaustive") return {0, 0};
    const std::size_t colon = t.find(':');
    const long long n = colon == std::string::npos ? 0 : std::stoll(t.substr(colon + 1));
    return {t.rfind("bounded", 0) == 0 ? 1 : 2, -n};
}

struct line_key {
    std::string engine, search, tier, verdict;
    std::tuple<int, std::tuple<int, long long>, int, int, std::string> rank;
    bool operator<(const line_key& o) const { return rank < o.rank; }
};

// "c2-o1" and "c2-o1-np" in one line become "c2-o1[-np]"; the order is the registry's.
std::string config_list(const std::vector<std::string>& configs) {
    const std::set<std::string> all(configs.begin(), configs.end());
    std::string out;
    for (const std::string& c : configs) {
        const bool np = c.size() > 3 && c.compare(c.size() - 3, 3, "-np") == 0;
        if (np && all.count(c.substr(0, c.size() - 3))) continue;  // folded into its twin
        std::string item = c;
        if (!np && all.count(c + "-np")) item += "[-np]";
        out += (out.empty() ? "" : ", ") + item;
    }
    return out;
}

// A list item within 80 columns: broken after a ", " where the next part would not fit, the
// rest indented by two spaces.
std::string wrapped(const std::string& item) {
    constexpr std::size_t width = 80;
    std::string out, line;
    std::size_t from = 0;
    while (from < item.size()) {
        std::size_t to = item.find(", ", from);
        to = to == std::string::npos ? item.size() : to + 2;
        const std::string part = item.substr(from, to - from);
        if (!line.empty() && line.size() + part.size() > width + (to < item.size())) {
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out += line + "\n";
            line = "  ";
        }
        line += part;
        from = to;
    }
    return out + line + "\n";
}

// The algorithms of the table's rows, in table order.
std::vector<std::string> evidence_algorithms(const table& t) {
    std::vector<std::string> r;
    for (const table_row& row : t.rows) {
        const std::string& a = model::find_check(row.check)->algorithm;
        if (std::find(r.begin(), r.end(), a) == r.end()) r.push_back(a);
    }
    return r;
}

// The rows of one algorithm as Markdown: per variant, a list item per engine (memory model),
// search, tier and verdict, naming the configurations it covers.
std::string evidence_markdown(const table& t, const std::string& algorithm) {
    // Variants and their configurations in registration order; the configuration is the last
    // component of the check's name.
    std::vector<std::string> variants;
    std::map<std::string, std::vector<std::string>> configs_of;  // variant -> configs
    std::map<std::string, std::size_t> order;                    // check name -> position
    // The twins of the checker (check::checker_twin) are listed apart, after the variants, as
    // one group whose configurations carry their variant: their violations are not the variant's.
    static const std::string twins = "Twins of the checker";
    auto group_of = [&](const check& c) { return c.checker_twin ? twins : c.variant; };
    auto config_name = [&](const check& c) {
        const std::string config = c.name.substr(c.name.rfind('/') + 1);
        return c.checker_twin ? c.variant + "/" + config : config;
    };
    for (const check& c : model::registry().all()) {
        if (c.algorithm != algorithm) continue;
        if (!c.checker_twin && !configs_of.count(c.variant)) variants.push_back(c.variant);
        configs_of[group_of(c)].push_back(config_name(c));
        order[c.name] = order.size();
    }
    if (configs_of.count(twins)) variants.push_back(twins);
    if (variants.empty()) {
        std::string known;
        for (const std::string& a : evidence_algorithms(t))
            known += (known.empty() ? "" : ", ") + a;
        throw usage_error("no checks of algorithm '" + algorithm + "' (algorithms: " + known + ")");
    }

    std::map<std::string, std::map<line_key, std::vector<std::pair<std::size_t, std::string>>>>
        lines;  // variant -> line -> (registry position, config)
    // Per check and engine, only its strongest row: exhaustive, else the largest bound, else
    // sampling (a bounded:3 pass includes the bounded:2 one; every row is still verified).
    std::map<std::pair<std::string, std::string>, const table_row*> strongest;
    for (const table_row& row : t.rows) {
        const table_row*& s = strongest[{row.check, row.engine}];
        if (!s || search_rank(row.search) < search_rank(s->search)) s = &row;
    }
    for (const table_row& row : t.rows) {
        const check& c = *model::find_check(row.check);
        if (c.algorithm != algorithm || strongest.at({row.check, row.engine}) != &row) continue;
        line_key k{row.engine, row.search.str(), row.tier, row.expected, {}};
        k.rank = {engine_rank(row.engine), search_rank(row.search), row.tier == "quick" ? 0 : 1,
                  row.expected == "pass" ? 0 : 1, row.engine + " " + k.search + " " + row.expected};
        lines[group_of(c)][k].emplace_back(order.at(c.name), config_name(c));
    }

    // Per variant a bold name and a list, one item per line key; an item wraps at 80 columns
    // between configurations, going on indented (Markdown continues the item).
    std::ostringstream out;
    bool first_variant = true;
    for (const std::string& v : variants) {
        out << (first_variant ? "" : "\n") << "**" << v << "**";
        if (v == twins)
            out << ": a variant's code with a test Env, or the API misused;\n"
                   "each must fail, and its violation is not the variant's.";
        first_variant = false;
        const auto it = lines.find(v);
        if (it == lines.end()) {
            out << ": no rows\n";
            continue;
        }
        out << "\n\n";
        for (auto& [k, cs] : it->second) {
            std::sort(cs.begin(), cs.end());
            std::vector<std::string> names;
            for (const auto& pc : cs) names.push_back(pc.second);
            const std::size_t registered = configs_of[v].size();
            const std::string which =
                names.size() == registered && registered > 1
                    ? "every configuration (" + std::to_string(registered) + ")"
                    : config_list(names);
            out << wrapped("- " + model_of(k.engine) + ", " + k.search + ", " + k.tier + ", " +
                           k.verdict + ": " + which);
        }
    }
    return out.str();
}

// The one-line-per-variant summary of verify (summary.cpp), from the table's expected verdicts,
// as a block above the Markdown table.
std::string evidence_summary(const table& t, const std::string& algorithm) {
    std::vector<summary_row> rows;
    for (const table_row& row : t.rows) {
        const check& c = *model::find_check(row.check);
        if (c.algorithm == algorithm)
            rows.push_back({row.check, c.algorithm, c.variant, row.engine, row.expected, "ok"});
    }
    return "```\n" + variant_summary(rows, colour_wanted(1)) + "```\n\n";
}

}  // namespace

int cmd_evidence(const evidence_options& o) {
    const table t = load_table(o.expected);
    if (!o.algorithm.empty()) {
        const std::string md = evidence_markdown(t, o.algorithm);  // checks the name first
        std::cout << evidence_summary(t, o.algorithm) << md;
        return exit_ok;
    }
    bool first = true;
    for (const std::string& a : evidence_algorithms(t)) {
        const std::string md = evidence_markdown(t, a);
        std::cout << (first ? "" : "\n") << "## " << a << "\n\n" << evidence_summary(t, a) << md;
        first = false;
    }
    return exit_ok;
}

}  // namespace kverify::cli
