// SPDX-License-Identifier: GPL-2.0-only
// `kverify orders` (issue 19): for every ordering site of a variant (a marked access, fence,
// irq/preempt region or CPU-local op of impl/, by source line), is it needed? Each one-step
// weakening of the site (model/check/ordering.hpp) re-runs the variant's quick dpor rows that
// reach it; a verdict that turns into a new violation makes the site needed. Also
// `--weaken SITE=FORM` of `kverify run` (parse_weakening). `--strengthen`: orders_strengthen.cpp.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "model/check/ordering.hpp"
#include "model/cli/orders.hpp"

namespace kverify::cli {

std::string weakening::site() const { return file + ":" + std::to_string(line); }
std::string weakening::text() const { return site() + "=" + form; }

weakening parse_weakening(const std::string& text) {
    const std::string example = " (SITE=FORM, e.g. impl/objpool.hpp:718=READ_ONCE)";
    const std::size_t eq = text.rfind('=');
    if (eq == std::string::npos) throw usage_error("--weaken '" + text + "' is not" + example);
    const std::string site = text.substr(0, eq);
    weakening w;
    w.form = text.substr(eq + 1);
    const std::size_t colon = site.rfind(':');
    const std::string digits = colon == std::string::npos ? "" : site.substr(colon + 1);
    if (colon == std::string::npos || colon == 0 || digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos || std::stoul(digits) == 0)
        throw usage_error("--weaken '" + text + "': the site must be FILE:LINE" + example);
    w.file = site.substr(0, colon);
    w.line = unsigned(std::stoul(digits));
    if (w.file.rfind("impl/", 0) != 0)
        throw usage_error("--weaken '" + text + "': the site must be a file of impl/" + example);
    if (!model::is_ordering_form(w.form)) {
        std::set<std::string> forms;
        for (const model::ordering_step& s : model::ordering_steps())
            for (const char* f : s.forms) forms.insert(f);
        std::string known;
        for (const std::string& f : forms) known += (known.empty() ? "" : ", ") + f;
        throw usage_error("--weaken '" + text + "': unknown form '" + w.form +
                          "' (known: " + known + ")");
    }
    return w;
}

void apply_weakening(const weakening& w) { model::ordering().weaken(w.file, w.line, w.form); }

std::string weakening_hit() {
    std::string s;
    for (const std::string& p : model::ordering().hit()) s += (s.empty() ? "" : ", ") + p;
    return s;
}

using namespace orders_impl;

namespace {

// One violation a weakening brings: its smallest configuration and the models showing it there.
struct finding {
    const row_run* row = nullptr;
    verdict v;
    std::vector<std::string> models;

    std::string command(const std::string& weakened) const {
        return "./kverify run " + row->row.check + " --engine " + v.engine + " --search " +
               row->row.search.str() + " --weaken " + weakened;
    }
};

struct step_result {
    site_key site;
    std::string func, form;
    std::string result;  // needed, not needed, inconclusive
    // needed: the smallest configuration's violation first, then each other class's smallest
    std::vector<finding> findings;
    std::set<std::string> configs, engines;  // what was checked
    std::size_t runs = 0;
    std::vector<std::string> inconclusive;  // rows out of budget ("check engine")

    std::string weakened() const { return site.name() + "=" + form; }
};

// The configurations, in an order a reader can scan: by name.
std::string finding_text(const finding& f) {
    return f.v.outcome + " in " + f.row->config + " (" + joined(f.models) + ")";
}

std::string summary_of(const step_result& r) {
    if (r.result == "needed") {
        std::string s = finding_text(r.findings.front());
        for (std::size_t i = 1; i < r.findings.size(); ++i)
            s += (i == 1 ? "; also " : ", ") + finding_text(r.findings[i]);
        return s;
    }
    if (r.result == "inconclusive") return "out of budget: " + joined(r.inconclusive);
    return std::to_string(r.configs.size()) + " configurations on " + models_of(r.engines);
}

json to_json(const step_result& r) {
    json j = {{"site", r.site.name()},
              {"function", r.func},
              {"primitive", r.site.primitive},
              {"form", r.form},
              {"result", r.result},
              {"runs", r.runs},
              {"checked",
               {{"configurations", std::vector<std::string>(r.configs.begin(), r.configs.end())},
                {"models", models_of(r.engines)}}}};
    const auto of = [&r](const finding& f) {
        return json{{"violation", f.v.outcome},  {"detail", f.v.detail},
                    {"check", f.row->row.check}, {"configuration", f.row->config},
                    {"engine", f.v.engine},      {"search", f.row->row.search.str()},
                    {"models", f.models},        {"command", f.command(r.weakened())}};
    };
    if (r.result == "needed") {
        // The smallest configuration's finding at the top level, every class's in `violations`.
        j.update(of(r.findings.front()));
        j["violations"] = json::array();
        for (const finding& f : r.findings) j["violations"].push_back(of(f));
    }
    if (r.result == "inconclusive") j["out_of_budget"] = r.inconclusive;
    return j;
}

std::string markdown_of(const std::string& target, const std::vector<step_result>& results,
                        const std::string& cost) {
    std::ostringstream md;
    md << "### `kverify orders " << target << "`\n\n"
       << "| site | function | primitive | weakened to | result | smallest configuration, "
          "violation, models / what was checked |\n|---|---|---|---|---|---|\n";
    for (const step_result& r : results) {
        md << "| `" << r.site.name() << "` | `" << r.func << "` | `" << r.site.primitive << "` | `"
           << r.form << "` | **" << r.result << "** | ";
        if (r.result == "needed") {
            const finding& f = r.findings.front();
            md << "`" << f.row->config << "`: " << f.v.outcome << " (" << joined(f.models) << "); `"
               << f.command(r.weakened()) << "`";
            for (std::size_t i = 1; i < r.findings.size(); ++i)
                md << (i == 1 ? "; also " : ", ") << finding_text(r.findings[i]);
        } else {
            md << summary_of(r);
        }
        md << " |\n";
    }
    md << "\n" << cost << "\n";
    return md.str();
}

}  // namespace

int cmd_orders(const orders_options& o) {
    const auto t0 = clock_type::now();
    const std::size_t slash = o.target.find('/');
    const std::string algorithm = o.target.substr(0, slash);
    const std::string variant = slash == std::string::npos ? "" : o.target.substr(slash + 1);
    if (algorithm.empty() || (slash != std::string::npos && variant.empty()) ||
        variant.find('/') != std::string::npos)
        throw usage_error("orders: '" + o.target + "' is not ALGORITHM or ALGORITHM/VARIANT");
    if (variant.empty() && !o.list)
        throw usage_error("orders: give ALGORITHM/VARIANT ('" + o.target +
                          "' alone only with --list)");
    check_writable(o.markdown, true);
    check_writable(o.json, true);
    if (!o.markdown.empty() && o.markdown == o.json)
        throw usage_error("orders: --markdown and --json name the same file " + o.json);

    // The variant's quick rows on the engines with memory models to compare.
    const table t = load_table(o.expected);
    // Every configuration with a quick dpor row runs on SC and RC11 (a dpor search is the same
    // search on either), and on the LKMM where the table has its row (the checks written for it).
    std::vector<std::string> order;
    std::map<std::string, std::map<std::string, table_row>> by_check;
    for (const table_row& r : t.rows) {
        if (r.tier != "quick" || engine_rank(r.engine) == order_engines().size()) continue;
        const check* c = model::find_check(r.check);
        if (!c || c->algorithm != algorithm || (!variant.empty() && c->variant != variant))
            continue;
        if (by_check[r.check].empty()) order.push_back(r.check);
        by_check[r.check].emplace(r.engine, r);
    }
    std::vector<row_run> rows;
    for (const std::string& name : order) {
        const check* c = model::find_check(name);
        const auto& have = by_check[name];
        for (const std::string& e : order_engines()) {
            if (!c->supports(e) || (e == "dpor-lkmm" && !have.count(e))) continue;
            row_run rr;
            rr.row = have.count(e) ? have.at(e) : have.begin()->second;
            rr.row.engine = e;
            rr.c = c;
            rr.config = config_of(name, c->variant);
            if (variant.empty()) rr.config = c->variant + "/" + rr.config;
            rows.push_back(rr);
        }
    }
    if (rows.empty())
        throw usage_error("orders: no quick rows of " + o.target +
                          " on dpor-sc, dpor-rc11 or dpor-lkmm in " + o.expected +
                          " (see 'kverify evidence " + algorithm + "')");

    search_budget budget = o.budget;
    if (budget.seconds == 0) budget.seconds = 60;
    scratch_dir dir;
    std::deque<check> store;
    std::size_t runs = 0;

    // 1. Every row once, unweakened, recording the sites it reaches: its verdict is the baseline.
    std::vector<std::string> notes;
    std::map<site_key, std::string> funcs;
    {
        std::vector<job> jobs;
        for (const row_run& r : rows) {
            notes.push_back(dir.file(runs++));
            jobs.push_back(
                {instrumented(
                     store, *r.c, r.row.engine, [] { model::ordering().record(); }, notes.back()),
                 r.row.engine, r.row.search});
            budget.apply(jobs.back().spec);
        }
        run_jobs(jobs, o.jobs, o.progress,
                 [&](std::size_t i, const verdict& v) { rows[i].base = v; });
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (rows[i].base.outcome == "error")
                throw usage_error("orders: row " + rows[i].row.check + " on " + rows[i].row.engine +
                                  " failed: " + rows[i].base.detail);
            // Only impl/'s sites: the scenario's own threads go through the Env too.
            for (const auto& [k, f] : read_notes(notes[i]).sites)
                if (k.file.rfind("impl/", 0) == 0) {
                    rows[i].sites.insert(k);
                    funcs.emplace(k, f);
                }
        }
    }
    std::map<site_key, std::vector<std::size_t>> reached;  // site -> rows
    for (std::size_t i = 0; i < rows.size(); ++i)
        for (const site_key& k : rows[i].sites) reached[k].push_back(i);

    if (o.list) {
        std::printf(
            "ordering sites of %s reached by its %zu quick rows on dpor-sc, dpor-rc11 "
            "and dpor-lkmm:\n",
            o.target.c_str(), rows.size());
        std::printf("%-26s %-28s %-22s %-44s %s\n", "SITE", "FUNCTION", "PRIMITIVE", "WEAKER FORMS",
                    "ROWS");
        for (const auto& [k, idx] : reached) {
            const model::ordering_step* s = model::find_ordering_step(k.primitive);
            std::string forms;
            if (s)
                for (const char* f : s->forms)
                    forms += (forms.empty() ? "" : ", ") + std::string(f);
            std::printf("%-26s %-28s %-22s %-44s %zu\n", k.name().c_str(), funcs[k].c_str(),
                        k.primitive.c_str(), forms.empty() ? "-" : forms.c_str(), idx.size());
        }
        std::printf(
            "%zu sites, %zu with a weaker form; %zu runs in %s\n", reached.size(),
            std::size_t(std::count_if(reached.begin(), reached.end(),
                                      [](const auto& e) {
                                          const auto* s =
                                              model::find_ordering_step(e.first.primitive);
                                          return s && !s->forms.empty();
                                      })),
            runs,
            format_seconds(std::chrono::duration<double>(clock_type::now() - t0).count()).c_str());
        return exit_ok;
    }

    if (o.strengthen) return strengthen(o, rows, funcs, reached, dir, store, runs, budget, t0);

    // --site: that line's primitives alone.
    if (!o.site.empty()) {
        for (auto it = reached.begin(); it != reached.end();)
            it = it->first.name() == o.site ? std::next(it) : reached.erase(it);
        if (reached.empty())
            throw usage_error("orders: no ordering site " + o.site +
                              " is reached by the quick rows of " + o.target +
                              " (its sites: kverify orders " + o.target + " --list)");
    }

    // 2. Each one-step weakening of each site, on every row that reaches the site.
    std::vector<step_result> results;
    struct weak_job {
        std::size_t result, row;
    };
    std::vector<weak_job> which;
    std::vector<job> jobs;
    for (const auto& [k, idx] : reached) {
        const model::ordering_step* s = model::find_ordering_step(k.primitive);
        if (!s) continue;
        for (const char* form : s->forms) {
            step_result r;
            r.site = k;
            r.func = funcs[k];
            r.form = form;
            results.push_back(r);
            const weakening w{k.file, k.line, form};
            for (std::size_t i : idx) {
                which.push_back({results.size() - 1, i});
                jobs.push_back({instrumented(
                                    store, *rows[i].c, rows[i].row.engine,
                                    [w] { apply_weakening(w); }, dir.file(runs++)),
                                rows[i].row.engine, rows[i].row.search});
                budget.apply(jobs.back().spec);
            }
        }
    }
    std::vector<verdict> weak(jobs.size());
    run_jobs(jobs, o.jobs, o.progress, [&](std::size_t i, const verdict& v) { weak[i] = v; });

    // 3. Per weakening: needed when some row finds a violation its baseline did not.
    std::uint64_t executions = 0;
    for (const row_run& r : rows) executions += r.base.executions;
    std::vector<std::vector<std::size_t>> changed(results.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        step_result& r = results[which[j].result];
        const row_run& row = rows[which[j].row];
        const verdict& v = weak[j];
        executions += v.executions;
        ++r.runs;
        r.configs.insert(row.config);
        r.engines.insert(row.row.engine);
        if (v.found_violation() && v.outcome != "error" && v.outcome != row.base.outcome)
            changed[which[j].result].push_back(j);
        else if ((v.outcome == "inconclusive" && row.base.outcome != "inconclusive") ||
                 v.outcome == "error")
            r.inconclusive.push_back(row.row.check + " " + row.row.engine);
    }
    std::map<std::string, std::size_t> ladder;
    for (const check& c : model::registry().all()) ladder.emplace(c.name, ladder.size());
    bool any_inconclusive = false;
    for (std::size_t i = 0; i < results.size(); ++i) {
        step_result& r = results[i];
        if (changed[i].empty()) {
            r.result = r.inconclusive.empty() ? "not needed" : "inconclusive";
            any_inconclusive |= !r.inconclusive.empty();
            continue;
        }
        // The smallest configuration: the first of the variant's ladder (registration order,
        // as `kverify list` and the summary have it), then the strongest model.
        const auto size = [&](std::size_t j) {
            const row_run& row = rows[which[j].row];
            return std::make_tuple(ladder.at(row.c->name), engine_rank(row.row.engine));
        };
        std::vector<std::size_t> by_size = changed[i];
        std::sort(by_size.begin(), by_size.end(),
                  [&](std::size_t a, std::size_t b) { return size(a) < size(b); });
        r.result = "needed";
        std::set<std::string> classes;
        for (std::size_t best : by_size) {
            if (!classes.insert(weak[best].outcome).second) continue;
            finding f;
            f.row = &rows[which[best].row];
            f.v = weak[best];
            std::set<std::string> showing;
            for (std::size_t j : changed[i])
                if (rows[which[j].row].config == f.row->config && weak[j].outcome == f.v.outcome)
                    showing.insert(rows[which[j].row].row.engine);
            std::vector<std::string> e(showing.begin(), showing.end());
            std::sort(e.begin(), e.end(), [](const std::string& a, const std::string& b) {
                return engine_rank(a) < engine_rank(b);
            });
            for (const std::string& x : e) f.models.push_back(model_name(x));
            r.findings.push_back(f);
        }
    }

    const double wall = std::chrono::duration<double>(clock_type::now() - t0).count();
    // The markdown's cost line leaves out the wall time, so that a table in proofs/ can be
    // kept equal to the command's output (proofs/check-orders).
    char counts[256];
    std::snprintf(counts, sizeof counts,
                  "%zu weakenings of %zu sites over %zu quick rows: %zu runs (%zu unweakened), "
                  "%llu executions",
                  results.size(),
                  std::size_t(std::count_if(reached.begin(), reached.end(),
                                            [](const auto& e) {
                                                const auto* s =
                                                    model::find_ordering_step(e.first.primitive);
                                                return s && !s->forms.empty();
                                            })),
                  rows.size(), runs, rows.size(), static_cast<unsigned long long>(executions));
    const std::string cost =
        std::string(counts) + ", " + format_seconds(wall) + " with -j " + std::to_string(o.jobs);

    std::printf(
        "orders of %s: each ordering site weakened one step, its quick rows re-run on "
        "%s\n",
        o.target.c_str(), models_of({order_engines().begin(), order_engines().end()}).c_str());
    std::printf("%-26s %-24s %-40s %-13s %s\n", "SITE", "FUNCTION", "PRIMITIVE -> WEAKENED",
                "RESULT", "SMALLEST CONFIGURATION (MODELS) / CHECKED");
    for (const step_result& r : results) {
        const std::string step = r.site.primitive + " -> " + r.form;
        std::printf("%-26s %-24s %-40s %-13s %s\n", r.site.name().c_str(), r.func.c_str(),
                    step.c_str(), r.result.c_str(), summary_of(r).c_str());
    }
    for (const step_result& r : results)
        for (const finding& f : r.findings)
            std::printf("  %s -> %s: %s in %s: %s\n    %s\n", r.site.name().c_str(), r.form.c_str(),
                        f.v.outcome.c_str(), f.row->config.c_str(), f.v.detail.c_str(),
                        f.command(r.weakened()).c_str());
    std::printf("%s\n", cost.c_str());

    if (!o.json.empty()) {
        json j = {{"kverify_orders", 1},
                  {"target", o.target},
                  {"models", models_of({order_engines().begin(), order_engines().end()})},
                  {"rows", rows.size()},
                  {"runs", runs},
                  {"executions", executions},
                  {"wall_seconds", wall},
                  {"budget_seconds", budget.seconds},
                  {"weakenings", json::array()}};
        for (const step_result& r : results) j["weakenings"].push_back(to_json(r));
        write_file(o.json, j.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
    }
    if (!o.markdown.empty()) write_file(o.markdown, markdown_of(o.target, results, counts));
    return any_inconclusive ? exit_inconclusive : exit_ok;
}

}  // namespace kverify::cli
