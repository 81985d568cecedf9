// SPDX-License-Identifier: GPL-2.0-only
// The litmus command's entry point (litmus.hpp): per file, parse, run on the chosen model,
// print herd7's block, and judge it against the Result line.
#include "model/litmus/litmus.hpp"

#include <fstream>
#include <ostream>
#include <sstream>

#include "model/litmus/dpor_backend.hpp"
#include "model/litmus/parser.hpp"
#include "model/litmus/report.hpp"

namespace kverify::litmus {

bool parse_litmus_model(const std::string& s, litmus_model& out) {
    if (s == "lkmm")
        out = litmus_model::lkmm;
    else if (s == "rc11")
        out = litmus_model::rc11;
    else if (s == "sc")
        out = litmus_model::sc;
    else
        return false;
    return true;
}

namespace {

std::string where(const std::string& file, src_pos p) {
    std::string s = file + ":" + std::to_string(p.line);
    if (p.col > 0) s += ":" + std::to_string(p.col);
    return s;
}

// One file: its exit status (0, 1, 2 or 3 as in litmus.hpp).
int run_file(const std::string& file, const litmus_options& opt, std::ostream& out,
             std::ostream& err) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        err << "kverify litmus: cannot read " << file << "\n";
        return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    test t;
    try {
        t = parse_test(file, text.str());
    } catch (const litmus_error& e) {
        err << where(file, e.pos) << ": " << e.what() << "\n";
        return 2;
    }
    if (opt.judge) {
        if (!t.result) {
            err << file << ": no 'Result:' line to judge the observation against\n";
            return 2;
        }
        if (*t.result != "Never" && *t.result != "Sometimes" && *t.result != "Always") {
            err << where(file, t.result_pos) << ": unknown Result '" << *t.result
                << "' (Never, Sometimes or Always)\n";
            return 2;
        }
    }
    dpor_run_options ro;
    ro.model = opt.model == litmus_model::sc     ? dpor::memory_model::sc
               : opt.model == litmus_model::lkmm ? dpor::memory_model::lkmm
                                                 : dpor::memory_model::rc11;
    ro.max_executions = opt.max_executions;
    ro.budget_s = opt.budget_s;
    const std::vector<rloc> observed = observed_rlocs(t);
    const run_result r = run_on_dpor(t, observed, ro);
    if (r.error) {
        err << where(file, r.error->pos) << ": " << r.error->what() << "\n";
        return 2;
    }
    if (!r.complete) {
        err << file << ": inconclusive: " << r.incomplete_reason << " reached after "
            << r.executions << " complete executions; no observation\n";
        return 3;
    }
    if (r.deadlock)
        err << file << ": note: some executions cannot finish (a lock is never released); "
            << "they are not counted, as herd7 has no such executions\n";
    const outcome o = herd_report(t, observed, r.finals, r.flags);
    out << o.text;
    if (!opt.judge) return 0;
    const bool agree = o.observation == *t.result;
    out << "Result " << t.name << " " << *t.result << ": "
        << (agree ? "ok" : "mismatch, observed " + o.observation) << "\n\n";
    return agree ? 0 : 1;
}

}  // namespace

int litmus_main(const std::vector<std::string>& files, const litmus_options& opt, std::ostream& out,
                std::ostream& err) {
    if (files.empty()) {
        err << "kverify litmus: no litmus file given\n";
        return 2;
    }
    bool bad = false, differs = false, inconclusive = false;
    for (const std::string& f : files) {
        const int rc = run_file(f, opt, out, err);
        bad |= rc == 2;
        differs |= rc == 1;
        inconclusive |= rc == 3;
    }
    return bad ? 2 : differs ? 1 : inconclusive ? 3 : 0;
}

}  // namespace kverify::litmus
