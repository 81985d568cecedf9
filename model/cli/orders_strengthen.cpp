// SPDX-License-Identifier: GPL-2.0-only
// `kverify orders ALGORITHM/VARIANT --strengthen` (issue 19): for a failing variant, the
// smallest sets of one-step strengthenings (one site, then pairs; model/check/ordering.hpp's
// strengthening_steps) that make every one of its quick rows pass: each a candidate repair with
// its verification. A candidate first runs on the failing rows, cheapest first, and is dropped
// at the first that still fails; a survivor is then run on every other row that reaches one of
// its sites (a row that reaches none runs the same program). A search out of its budget makes
// the candidate inconclusive, never a repair.
#include <cstdio>

#include "model/cli/orders.hpp"

namespace kverify::cli::orders_impl {

namespace {

struct strengthening {
    site_key site;
    std::string func, form;
    std::string text() const { return site.name() + "=" + form; }
};

struct candidate {
    std::vector<strengthening> steps;
    std::string result;     // "", repair, fails, inconclusive
    std::string failed_on;  // the first row still failing, and how
    std::vector<std::string> out_of_budget;
    std::size_t runs = 0;
    std::uint64_t executions = 0;
    std::set<std::string> configs, engines;  // rows verified passing

    std::string text() const {
        std::string s;
        for (const strengthening& x : steps) s += (s.empty() ? "" : " + ") + x.text();
        return s;
    }
    std::string functions() const {
        std::string s;
        for (const strengthening& x : steps) s += (s.empty() ? "" : ", ") + x.func;
        return s;
    }
    std::string primitives() const {
        std::string s;
        for (const strengthening& x : steps)
            s += (s.empty() ? "" : ", ") + x.site.primitive + " -> " + x.form;
        return s;
    }
    static candidate of(std::vector<strengthening> steps) {
        candidate c;
        c.steps = std::move(steps);
        return c;
    }
    bool touches(const row_run& r) const {
        for (const strengthening& x : steps)
            if (r.sites.count(x.site)) return true;
        return false;
    }
};

// Runs `cands` (those still undecided) on the rows `which` picks, all at once; a candidate
// whose row does not pass is decided: fails, or inconclusive when out of budget.
void run_stage(std::vector<candidate>& cands, const std::vector<std::size_t>& undecided,
               std::vector<row_run>& rows,
               const std::function<std::vector<std::size_t>(const candidate&)>& which,
               scratch_dir& dir, std::deque<check>& store, std::size_t& runs,
               const search_budget& budget, const orders_options& o) {
    std::vector<job> jobs;
    std::vector<std::pair<std::size_t, std::size_t>> of;  // job -> candidate, row
    for (std::size_t ci : undecided) {
        const std::vector<strengthening> steps = cands[ci].steps;
        for (std::size_t ri : which(cands[ci])) {
            of.push_back({ci, ri});
            jobs.push_back({instrumented(
                                store, *rows[ri].c, rows[ri].row.engine,
                                [steps] {
                                    for (const strengthening& x : steps)
                                        model::ordering().strengthen(x.site.file, x.site.line,
                                                                     x.form);
                                },
                                dir.file(runs++)),
                            rows[ri].row.engine, rows[ri].row.search});
            budget.apply(jobs.back().spec);
        }
    }
    std::vector<verdict> got(jobs.size());
    run_jobs(jobs, o.jobs, o.progress, [&](std::size_t i, const verdict& v) { got[i] = v; });
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        candidate& c = cands[of[j].first];
        const row_run& r = rows[of[j].second];
        const verdict& v = got[j];
        ++c.runs;
        c.executions += v.executions;
        const std::string row = r.row.check + " " + r.row.engine;
        if (v.outcome == "pass") {
            c.configs.insert(r.config);
            c.engines.insert(r.row.engine);
        } else if (v.outcome == "inconclusive" || v.outcome == "error") {
            c.out_of_budget.push_back(row);
            if (c.result.empty()) c.result = "inconclusive";
        } else if (c.result != "fails") {
            c.result = "fails";
            c.failed_on = v.outcome + " in " + row;
        }
    }
}

json to_json(const candidate& c) {
    json steps = json::array();
    for (const strengthening& x : c.steps)
        steps.push_back({{"site", x.site.name()},
                         {"function", x.func},
                         {"primitive", x.site.primitive},
                         {"form", x.form}});
    json j = {{"strengthenings", steps},
              {"result", c.result},
              {"runs", c.runs},
              {"executions", c.executions}};
    if (c.result == "repair")
        j["verified"] = {
            {"configurations", std::vector<std::string>(c.configs.begin(), c.configs.end())},
            {"models", models_of(c.engines)}};
    if (c.result == "fails") j["fails"] = c.failed_on;
    if (c.result == "inconclusive") j["out_of_budget"] = c.out_of_budget;
    return j;
}

}  // namespace

int strengthen(const orders_options& o, std::vector<row_run>& rows,
               const std::map<site_key, std::string>& funcs,
               const std::map<site_key, std::vector<std::size_t>>& reached, scratch_dir& dir,
               std::deque<check>& store, std::size_t runs, const search_budget& budget,
               clock_type::time_point t0) {
    // The rows to repair, cheapest first (a candidate is dropped at the first still failing).
    std::vector<std::size_t> failing;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].base.outcome != "pass") failing.push_back(i);
    std::stable_sort(failing.begin(), failing.end(), [&](std::size_t a, std::size_t b) {
        return rows[a].base.executions < rows[b].base.executions;
    });
    if (!o.site.empty() && std::none_of(reached.begin(), reached.end(),
                                        [&](const auto& e) { return e.first.name() == o.site; }))
        throw usage_error("orders: no ordering site " + o.site +
                          " is reached by the quick rows of " + o.target +
                          " (its sites: kverify orders " + o.target + " --list)");

    // Every one-step strengthening of every site some row reached.
    std::vector<strengthening> singles;
    for (const auto& [k, idx] : reached) {
        const model::ordering_step* s = model::find_strengthening_step(k.primitive);
        if (!s) continue;
        for (const char* f : s->forms) singles.push_back({k, funcs.at(k), f});
    }
    const auto wanted = [&](const std::vector<strengthening>& steps) {
        if (o.site.empty()) return true;
        return std::any_of(steps.begin(), steps.end(),
                           [&](const strengthening& x) { return x.site.name() == o.site; });
    };

    std::vector<candidate> tried;  // every candidate, singles first
    std::size_t n_singles = 0, n_pairs = 0;
    const auto search = [&](std::vector<candidate> cands) {
        std::vector<std::size_t> undecided(cands.size());
        for (std::size_t i = 0; i < cands.size(); ++i) undecided[i] = i;
        // The failing rows one at a time, cheapest first: most candidates end at the first.
        for (std::size_t f : failing) {
            run_stage(
                cands, undecided, rows, [f](const candidate&) { return std::vector{f}; }, dir,
                store, runs, budget, o);
            std::vector<std::size_t> left;
            for (std::size_t i : undecided)
                if (cands[i].result.empty()) left.push_back(i);
            undecided = left;
            if (undecided.empty()) break;
        }
        // The survivors on every passing row that reaches one of their sites.
        run_stage(
            cands, undecided, rows,
            [&](const candidate& c) {
                std::vector<std::size_t> w;
                for (std::size_t i = 0; i < rows.size(); ++i)
                    if (rows[i].base.outcome == "pass" && c.touches(rows[i])) w.push_back(i);
                return w;
            },
            dir, store, runs, budget, o);
        for (std::size_t i : undecided)
            if (cands[i].result.empty()) {
                cands[i].result = "repair";
                // Rows that reach none of its sites run the same program: they pass as before.
                for (const row_run& r : rows)
                    if (r.base.outcome == "pass") {
                        cands[i].configs.insert(r.config);
                        cands[i].engines.insert(r.row.engine);
                    }
            }
        bool repaired = false;
        for (candidate& c : cands) {
            repaired |= c.result == "repair";
            tried.push_back(std::move(c));
        }
        return repaired;
    };

    bool repaired = false;
    if (!failing.empty()) {
        std::vector<candidate> one;
        for (const strengthening& s : singles)
            if (wanted({s})) one.push_back(candidate::of({s}));
        n_singles = one.size();
        repaired = search(std::move(one));
        // Pairs only when no single step repairs: a repairing pair is then a smallest set.
        if (!repaired) {
            std::vector<candidate> two;
            for (std::size_t a = 0; a < singles.size(); ++a)
                for (std::size_t b = a + 1; b < singles.size(); ++b)
                    if (!(singles[a].site.name() == singles[b].site.name() &&
                          singles[a].site.primitive == singles[b].site.primitive) &&
                        wanted({singles[a], singles[b]}))
                        two.push_back(candidate::of({singles[a], singles[b]}));
            n_pairs = two.size();
            repaired = search(std::move(two));
        }
    }

    std::size_t inconclusive = 0;
    std::uint64_t executions = 0;
    for (const row_run& r : rows) executions += r.base.executions;
    for (const candidate& c : tried) {
        executions += c.executions;
        inconclusive += c.result == "inconclusive";
    }
    const std::string result = failing.empty() ? "every row passes: nothing to repair"
                               : repaired      ? "repaired"
                               : inconclusive  ? "inconclusive"
                                               : "no repair of one or two sites";
    const double wall = std::chrono::duration<double>(clock_type::now() - t0).count();
    char counts[256];  // the markdown's cost line, without the wall time (as in orders.cpp)
    std::snprintf(counts, sizeof counts,
                  "%zu failing of %zu quick rows; %zu single strengthenings and %zu pairs tried: "
                  "%zu runs (%zu unweakened), %llu executions",
                  failing.size(), rows.size(), n_singles, n_pairs, runs, rows.size(),
                  static_cast<unsigned long long>(executions));
    const std::string cost =
        std::string(counts) + ", " + format_seconds(wall) + " with -j " + std::to_string(o.jobs);

    std::printf("strengthenings of %s: %s\n", o.target.c_str(), result.c_str());
    for (std::size_t i : failing)
        std::printf("  failing: %s on %s: %s\n", rows[i].row.check.c_str(),
                    rows[i].row.engine.c_str(), rows[i].base.outcome.c_str());
    std::string md = "### `kverify orders " + o.target + " --strengthen`: " + result + "\n\n";
    if (repaired) {
        md +=
            "| strengthened | function | primitive -> stronger | every row passes |\n"
            "|---|---|---|---|\n";
        std::printf("%-56s %-28s %s\n", "REPAIR", "FUNCTION", "VERIFIED (EVERY ROW PASSES)");
    }
    for (const candidate& c : tried) {
        if (c.result != "repair") continue;
        char verified[160];
        std::snprintf(verified, sizeof verified, "%zu configurations on %s (%zu runs)",
                      c.configs.size(), models_of(c.engines).c_str(), c.runs);
        std::printf("%-56s %-28s %s\n", c.text().c_str(), c.functions().c_str(), verified);
        md += "| `" + c.text() + "` | `" + c.functions() + "` | `" + c.primitives() + "` | " +
              verified + " |\n";
    }
    for (const candidate& c : tried)
        if (c.result == "inconclusive")
            std::printf("  inconclusive: %s (out of budget: %s)\n", c.text().c_str(),
                        joined(c.out_of_budget).c_str());
    std::printf("%s\n", cost.c_str());
    md += std::string(repaired ? "\n" : "") + counts + "\n";

    if (!o.json.empty()) {
        json j = {{"kverify_orders", 1},
                  {"target", o.target},
                  {"mode", "strengthen"},
                  {"result", result},
                  {"models", models_of({order_engines().begin(), order_engines().end()})},
                  {"rows", rows.size()},
                  {"failing", json::array()},
                  {"singles", n_singles},
                  {"pairs", n_pairs},
                  {"runs", runs},
                  {"executions", executions},
                  {"wall_seconds", wall},
                  {"budget_seconds", budget.seconds},
                  {"repairs", json::array()},
                  {"inconclusive", json::array()}};
        for (std::size_t i : failing)
            j["failing"].push_back({{"check", rows[i].row.check},
                                    {"engine", rows[i].row.engine},
                                    {"verdict", rows[i].base.outcome}});
        for (const candidate& c : tried)
            if (c.result == "repair" || c.result == "inconclusive")
                j[c.result == "repair" ? "repairs" : "inconclusive"].push_back(to_json(c));
        write_file(o.json, j.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
    }
    if (!o.markdown.empty()) write_file(o.markdown, md);
    return !repaired && inconclusive ? exit_inconclusive : exit_ok;
}

}  // namespace kverify::cli::orders_impl
