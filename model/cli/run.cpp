// SPDX-License-Identifier: GPL-2.0-only
// `kverify run` and `kverify replay`: one check in this process, its verdict, and its
// counterexample (shrunk by run, saved for replay; replay runs exactly the saved execution and
// compares the traces).
#include <fstream>
#include <iostream>
#include <sstream>

#include "model/cli/commands.hpp"

namespace kverify::cli {
namespace {

std::string saved_verdict(const check& c, const verdict& v) {
    json j = verdict_to_json(v);
    j["kverify_replay"] = 1;
    j["check"] = c.name;
    j["fingerprint"] = replay_fingerprint(c, v.engine, v.search, v.replay);
    return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

// Reads a replay file: one verdict object with "check", or a --json result file (the row named
// by --check, or its first row with a replay string).
struct saved_replay {
    std::string check, fingerprint;
    verdict v;
};

saved_replay read_replay(const std::string& path, const std::string& which) {
    check_readable(path, "replay file");
    std::ifstream in(path);
    if (!in) throw usage_error("cannot read replay file " + path);
    const json j = json::parse(in, nullptr, false);
    if (j.is_discarded()) throw usage_error(path + ": not a JSON file");
    json row = j;
    if (j.is_object() && j.contains("rows") && j["rows"].is_array()) {
        row = json();
        for (const json& r : j["rows"]) {
            if (!r.is_object() || !r.contains("check") || !r.contains("replay")) continue;
            if (!which.empty() ? r["check"] == which : !r["replay"].get<std::string>().empty()) {
                row = r;
                break;
            }
        }
        if (row.is_null())
            throw usage_error(path + ": no row " +
                              (which.empty() ? "with a replay string" : "of check " + which));
    }
    if (!row.is_object() || !row.contains("check") || !row["check"].is_string())
        throw usage_error(path + ": not a replay file (no 'check' field)");
    verdict v;
    try {
        v = verdict_from_json(row);
    } catch (const usage_error& e) {
        throw usage_error(path + ": " + e.what());
    }
    if (v.replay.empty())
        throw usage_error(path + ": no replay string (the row found no violation)");
    if (!row.contains("fingerprint") || !row["fingerprint"].is_string())
        throw usage_error(path +
                          ": no fingerprint (not written by this kverify, or edited): refused");
    return {row["check"].get<std::string>(), row["fingerprint"].get<std::string>(), v};
}

// The first line where two traces differ, 0 when they are the same.
std::size_t first_difference(const std::string& a, const std::string& b) {
    std::istringstream sa(a), sb(b);
    std::string la, lb;
    for (std::size_t n = 1;; ++n) {
        const bool ga = bool(std::getline(sa, la)), gb = bool(std::getline(sb, lb));
        if (!ga && !gb) return 0;
        if (ga != gb || la != lb) return n;
    }
}

}  // namespace

// The check's name and configuration, and "  engine: E" (the caller goes on on that line).
void print_check_header(const check& c, const std::string& engine) {
    std::cout << c.name << "\n  " << c.algorithm << " " << c.variant << " [" << c.config
              << "]\n  engine: " << engine;
}

void print_verdict(const check& c, const verdict& v, const std::string& weakened) {
    print_check_header(c, v.engine);
    std::cout << "  search: " << v.search.str();
    if (v.search.limits.any()) std::cout << " " << v.search.limits.str();
    std::cout << "  verdict: " << v.outcome;
    // A weakened program's verdict, never the variant's.
    if (!weakened.empty()) std::cout << " (WEAKENED: " << weakened << ")";
    std::cout << "  executions: " << v.executions;
    if (v.blocked) std::cout << "  blocked: " << v.blocked;
    if (v.stale_cut) std::cout << " (" << v.stale_cut << " ended at a stale wait)";
    if (v.in_place) std::cout << "  waits revisited in place: " << v.in_place;
    if (!v.also_sc.empty()) std::cout << "  also under SC: " << v.also_sc;
    std::cout << "  time: " << format_seconds(v.seconds) << "\n";
    if (!v.detail.empty()) std::cout << "  " << v.detail << "\n";
}

// The search that runs the one execution a verdict's replay string names.
search_spec replay_spec(const verdict& v, bool raw_trace) {
    search_spec spec = v.search;
    spec.replay = v.replay;
    spec.raw_trace = raw_trace;
    return spec;
}

// Whether a replay ran the saved execution: the same trace, or (dpor) the same execution graph,
// whose events a replay may run in another order (a read waits for its write under the LKMM).
bool same_execution(const verdict& saved, const verdict& back) {
    if (back.trace == saved.trace) return true;
    return saved.engine.compare(0, 5, "dpor-") == 0 && !saved.replay.empty() &&
           back.replay == saved.replay;
}

int cmd_run(const run_options& o) {
    const check& c = *model::find_check(o.name);
    if (!c.supports(o.engine)) {
        std::string engines;
        for (const model::check_engine& e : c.engines)
            engines += (engines.empty() ? "" : ", ") + e.name;
        std::string why;
        if (o.engine == "dpor-lkmm")
            why = "; dpor-lkmm runs only checks written for the LKMM: model/ASSUMPTIONS.md";
        throw usage_error("check " + c.name + " cannot run on engine '" + o.engine +
                          "' (it runs on: " + engines + why + ")");
    }
    o.budget.check_engine(o.engine);
    if (o.budget.no_symmetry && !c.symmetric)
        throw usage_error("--no-symmetry: check " + c.name +
                          " declares no symmetry (kverify list --symmetric lists those that do)");
    check_writable(o.save_replay);
    if (!o.graph.empty()) check_graph_file(o.graph);
    if (!o.behaviors.empty()) {
        if (o.engine.rfind("dpor-", 0) != 0)
            throw usage_error("--behaviors: engine " + o.engine +
                              " keeps no execution graphs (only the dpor engines do)");
        check_writable(o.behaviors);
    }
    job j{&c, o.engine, {}};
    std::string err;
    if (!search_spec::parse(o.search, j.spec, err)) throw usage_error(err);
    o.budget.apply(j.spec);
    j.spec.raw_trace = o.raw_trace;
    j.spec.behaviors = !o.behaviors.empty();
    weakening w;
    if (!o.weaken.empty()) {
        w = parse_weakening(o.weaken);
        // A replay file names the check, not the weakening: replayed, the weakened program's
        // counterexample would be shown as the variant's own.
        if (!o.save_replay.empty())
            throw usage_error(
                "--save-replay cannot be used with --weaken: a replay is of the "
                "variant as written, and this counterexample is of a weakened one");
        apply_weakening(w);
    }
    const verdict v = run_here(j, o.progress, c.name);
    std::string weakened;
    if (!o.weaken.empty()) {
        // A site this search never applied the weakening at: nothing was learnt of it.
        if (weakening_hit().empty())
            throw usage_error("--weaken " + w.text() + ": " + c.name + " on " + o.engine +
                              " reached no primitive at " + w.site() + " that weakens to " +
                              w.form + " (its sites: kverify orders " + c.algorithm + "/" +
                              c.variant + " --list)");
        weakened = w.text() + " [" + weakening_hit() + " -> " + w.form + "]";
    }
    print_verdict(c, v, weakened);
    if (!o.behaviors.empty()) {
        // Of a whole search only: one that stopped early did not see them all.
        if (v.outcome != "pass") {
            std::cout << "  behaviors not written: the search did not pass\n";
        } else {
            std::string text;
            for (const std::string& b : v.behaviors) text += b + "\n";
            write_file(o.behaviors, text);
            std::cout << "  " << v.behaviors.size() << " behaviors written to " << o.behaviors
                      << "\n";
        }
    }
    if (!v.found_violation()) return v.outcome == "inconclusive" ? exit_inconclusive : exit_ok;

    verdict cex = v;
    if (!o.no_shrink) {
        const shrink_result s = shrink(j, v, o.progress);
        if (s.shrunk) {
            cex = s.v;
            std::cout << "  counterexample shrunk from " << v.search.str() << " to "
                      << cex.search.str()
                      << (cex.search.limits.any() ? " " + cex.search.limits.str() : "") << " ("
                      << s.searches << " smaller searches, " << s.executions
                      << " executions); found at execution " << cex.executions << ":\n";
        } else {
            std::cout << "  counterexample (no smaller search shows it: " << s.searches
                      << " tried, " << s.executions << " executions), found at execution "
                      << cex.executions << ":\n";
        }
    } else {
        std::cout << "  counterexample, found at execution " << cex.executions << ":\n";
    }
    std::cout << cex.trace;
    if (!o.graph.empty()) {
        write_graph(o.graph, trace_graph(cex.trace, cex.engine,
                                         c.name + " (" + cex.engine + ", " + cex.search.str() +
                                             "): " + cex.outcome +
                                             (weakened.empty() ? "" : " WEAKENED: " + weakened)));
        std::cout << "  graph written to " << o.graph << "\n";
    }
    if (!o.save_replay.empty()) {
        // Saved only once replayed here to the same trace: a file that `kverify replay` would
        // refuse or run otherwise is no counterexample to hand on.
        std::string why;
        try {
            const verdict back =
                run_here(job{&c, cex.engine, replay_spec(cex, o.raw_trace)}, false, c.name);
            if (back.outcome != cex.outcome || !same_execution(cex, back))
                why = "its replay runs another execution";
        } catch (const std::exception& e) {
            why = e.what();
        }
        if (why.empty()) {
            write_file(o.save_replay, saved_verdict(c, cex));
            std::cout << "  saved for 'kverify replay " << o.save_replay << "'\n";
        } else {
            std::cout << "  not saved to " << o.save_replay << ": " << why << "\n";
        }
    }
    return exit_differs;
}

int cmd_replay(const replay_options& o) {
    const saved_replay file = read_replay(o.file, o.check);
    const std::string& name = file.check;
    const verdict& saved = file.v;
    const check* c = model::find_check(name);
    if (!c) throw usage_error(o.file + ": unknown check '" + name + "'");
    if (!c->supports(saved.engine))
        throw usage_error(o.file + ": check " + name + " cannot run on engine '" + saved.engine +
                          "'");
    // Only a file that belongs to this check, engine, search and build is run: anything else
    // would "not reproduce" without having run the execution it names.
    if (file.fingerprint != replay_fingerprint(*c, saved.engine, saved.search, saved.replay))
        throw usage_error(o.file +
                          ": the fingerprint does not match this check, engine, search and "
                          "replay string (edited, or written for another check or build): refused");
    verdict v;
    try {
        v = run_here(job{c, saved.engine, replay_spec(saved, o.raw_trace)}, false, name);
    } catch (const std::exception& e) {
        // The engine could not run the execution the string names on this program.
        throw usage_error(o.file + ": the saved execution cannot be run: " + e.what());
    }
    // A replay runs one execution, so its header says so: "verdict" and "search: exhaustive"
    // with "executions: 1" would read as a whole search's result.
    print_check_header(*c, v.engine);
    std::cout << "  replay: execution " << saved.executions << " of search " << saved.search.str();
    if (saved.search.limits.any()) std::cout << " " << saved.search.limits.str();
    std::cout << "  result: " << (v.found_violation() ? v.outcome : "no violation")
              << "  time: " << format_seconds(v.seconds) << "\n";
    if (!v.detail.empty()) std::cout << "  " << v.detail << "\n";
    if (!v.found_violation()) {
        if (v.outcome == "inconclusive") {
            std::cout << "  the replayed execution did not end (inconclusive)\n";
            return exit_inconclusive;
        }
        std::cout << "  the saved counterexample (" << saved.outcome
                  << ") does not reproduce: the replayed execution ends without a violation.\n"
                  << "  This is one execution, not a verdict on the check: `kverify run " << c->name
                  << " --engine " << saved.engine << "` searches all of them.\n";
        return exit_ok;
    }
    std::cout << "  counterexample trace (replayed execution " << saved.executions << "):\n"
              << v.trace;
    if (!o.raw_trace && !saved.trace.empty()) {
        const std::size_t d = first_difference(saved.trace, v.trace);
        // Another trace is another execution (the file edited, or the program changed since it
        // was saved) unless the graph is the saved one: then it is not the saved counterexample
        // reproduced, and the replay refuses.
        if (d != 0 && !same_execution(saved, v))
            throw usage_error(o.file +
                              ": the replayed execution is not the saved one (its trace "
                              "differs from line " +
                              std::to_string(d) +
                              " on: the file was edited or the program changed since it was "
                              "saved); refused: run `kverify run " +
                              c->name + " --engine " + saved.engine + "` again");
        if (d != 0) {
            std::cout << "  the execution graph is the one saved in " << o.file
                      << "; its events ran in another order (the trace differs from line " << d
                      << " on)\n";
            return exit_differs;
        }
        std::cout << "  the trace is identical to the one saved in " << o.file << "\n";
    }
    return exit_differs;
}

}  // namespace kverify::cli
