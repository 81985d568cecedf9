// SPDX-License-Identifier: GPL-2.0-only
// What `kverify orders` (orders.cpp: weakenings) and `kverify orders --strengthen`
// (orders_strengthen.cpp: repairs) share: the variant's rows with their unweakened verdicts and
// the sites each reaches, the instrumented copy of a check that sets up an override in its child
// process, and the names of the models.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "model/check/ordering.hpp"
#include "model/cli/commands.hpp"

namespace kverify::cli::orders_impl {

using clock_type = std::chrono::steady_clock;

inline const std::vector<std::string>& order_engines() {
    static const std::vector<std::string> e = {"dpor-sc", "dpor-rc11", "dpor-lkmm"};
    return e;
}
inline std::size_t engine_rank(const std::string& e) {
    const auto& all = order_engines();
    return std::size_t(std::find(all.begin(), all.end(), e) - all.begin());
}
inline std::string model_name(const std::string& engine) {
    for (const auto& [e, m] : models())
        if (e == engine) return m;
    return engine;
}

// A site as orders reports it: where, and which primitive is there.
struct site_key {
    std::string file;
    unsigned line = 0;
    std::string primitive;
    std::string name() const { return file + ":" + std::to_string(line); }
    friend bool operator<(const site_key& a, const site_key& b) {
        return std::tie(a.file, a.line, a.primitive) < std::tie(b.file, b.line, b.primitive);
    }
};

// What a child process leaves for the parent beside its verdict: the sites its search reached
// (recording) or the primitives the weakened site was reached as.
inline std::string sites_text() {
    std::string out;
    for (const model::ordering_site& s : model::ordering().sites())
        out += "site\t" + s.file + "\t" + std::to_string(s.line) + "\t" + s.func + "\t" +
               s.primitive + "\n";
    for (const std::string& p : model::ordering().hit()) out += "hit\t" + p + "\n";
    return out;
}

struct child_notes {
    std::map<site_key, std::string> sites;  // -> function
    std::set<std::string> hit;
};

inline child_notes read_notes(const std::string& path) {
    child_notes n;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, '\t');) f.push_back(x);
        if (f.size() == 5 && f[0] == "site")  // a template's function without its arguments
            n.sites[{f[1], unsigned(std::stoul(f[2])), f[4]}] = f[3].substr(0, f[3].find('<'));
        else if (f.size() == 2 && f[0] == "hit")
            n.hit.insert(f[1]);
    }
    return n;
}

// A copy of check `c` whose runner on `engine` first sets up the override in the child process,
// and after the search writes the notes to `out`.
inline const check* instrumented(std::deque<check>& store, const check& c,
                                 const std::string& engine, std::function<void()> setup,
                                 const std::string& out) {
    check copy = c;
    copy.engines.clear();
    const model::check_engine& e = *c.engine(engine);
    model::check_engine w = e;
    w.run = [orig = e.run, setup, out](const model::search_spec& s) {
        setup();
        model::verdict v = orig(s);
        std::ofstream(out) << sites_text();
        return v;
    };
    copy.engines.push_back(w);
    store.push_back(std::move(copy));
    return &store.back();
}

// A temporary directory for the children's notes, removed with what is in it.
class scratch_dir {
public:
    scratch_dir() {
        const char* t = std::getenv("TMPDIR");
        std::string tmpl = std::string(t && *t ? t : "/tmp") + "/kverify-orders.XXXXXX";
        if (!::mkdtemp(tmpl.data())) throw usage_error("cannot create a directory in " + tmpl);
        path_ = tmpl;
    }
    ~scratch_dir() {
        for (const std::string& f : files_) ::unlink(f.c_str());
        ::rmdir(path_.c_str());
    }
    std::string file(std::size_t i) {
        files_.push_back(path_ + "/" + std::to_string(i));
        return files_.back();
    }

private:
    std::string path_;
    std::vector<std::string> files_;
};

struct row_run {
    table_row row;
    const check* c = nullptr;
    std::string config;
    verdict base;  // the unweakened search, which also recorded the sites
    std::set<site_key> sites;
};

inline std::string joined(const std::vector<std::string>& s, const char* sep = ", ") {
    std::string out;
    for (const std::string& x : s) out += (out.empty() ? "" : sep) + x;
    return out;
}
inline std::string models_of(const std::set<std::string>& engines) {
    std::vector<std::string> e(engines.begin(), engines.end());
    std::sort(e.begin(), e.end(), [](const std::string& a, const std::string& b) {
        return engine_rank(a) < engine_rank(b);
    });
    std::vector<std::string> m;
    for (const std::string& x : e) m.push_back(model_name(x));
    return joined(m);
}

// The strengthening half of the command: called by cmd_orders after the baseline.
int strengthen(const orders_options& o, std::vector<row_run>& rows,
               const std::map<site_key, std::string>& funcs,
               const std::map<site_key, std::vector<std::size_t>>& reached, scratch_dir& dir,
               std::deque<check>& store, std::size_t runs, const search_budget& budget,
               clock_type::time_point t0);

}  // namespace kverify::cli::orders_impl
