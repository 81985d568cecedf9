// SPDX-License-Identifier: GPL-2.0-only
// The per-row time estimates that --shard balances by (times.tsv beside the table, written by
// proofs/expected/pin-times from a `verify -j 1 --json` run), and each selected row's cost under
// them: its estimate, or for a row the file does not hold its pinned count at the mean rate of
// its engine's rows that it does hold.
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <fstream>
#include <map>

#include "model/cli/cli.hpp"

namespace kverify::cli {
namespace {

std::string key_of(const std::string& check, const std::string& engine, const std::string& search) {
    return check + "\t" + engine + "\t" + search;
}

// A row's work in executions: its pinned count (+1, so that a row pinned at 0 costs something),
// or the samples of a sampled row without one.
std::uint64_t work_of(const table_row& r) {
    if (r.executions != "-") return std::stoull(r.executions) + 1;
    return r.search.kind == model::search_kind::sampled ? r.search.samples : 1;
}

}  // namespace

std::string row_times_path(const std::string& table_path) {
    const std::size_t slash = table_path.rfind('/');
    return (slash == std::string::npos ? std::string() : table_path.substr(0, slash + 1)) +
           "times.tsv";
}

row_times load_row_times(const std::string& path) {
    row_times t;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) return t;  // none: counts decide
    check_readable(path, "the row-time estimates");
    std::ifstream in(path, std::ios::binary);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line[0] == '#') continue;
        const auto bad = [&](const std::string& what) {
            throw usage_error(path + ":" + std::to_string(n) + ": " + what);
        };
        std::vector<std::string> f;
        for (std::size_t start = 0;;) {
            const std::size_t tab = line.find('\t', start);
            f.push_back(line.substr(start, tab - start));
            if (tab == std::string::npos) break;
            start = tab + 1;
        }
        if (f.size() != 4)
            bad("expected 4 tab-separated fields (check engine search microseconds), got " +
                std::to_string(f.size()));
        if (f[3].empty() || f[3].size() > 15 ||
            f[3].find_first_not_of("0123456789") != std::string::npos)
            bad("microseconds must be a whole number, got '" + f[3] + "'");
        if (!t.us.emplace(key_of(f[0], f[1], f[2]), std::stoull(f[3])).second)
            bad("a second estimate for " + f[0] + " " + f[1] + " " + f[2]);
    }
    if (in.bad()) throw usage_error("cannot read the row-time estimates " + path);
    t.path = path;
    return t;
}

std::vector<std::uint64_t> row_costs(const std::vector<table_row>& rows, const row_times& t) {
    std::vector<std::uint64_t> cost(rows.size());
    std::vector<const std::uint64_t*> known(rows.size(), nullptr);
    // Per engine (and over all, for an engine with no estimate here): microseconds per execution.
    std::map<std::string, std::pair<double, double>> rate;  // engine -> (us, work)
    std::pair<double, double> all{0, 0};
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto at = t.us.find(key_of(rows[i].check, rows[i].engine, rows[i].search.str()));
        if (at == t.us.end()) continue;
        known[i] = &at->second;
        std::pair<double, double>& r = rate[rows[i].engine];
        r.first += double(at->second);
        r.second += double(work_of(rows[i]));
        all.first += double(at->second);
        all.second += double(work_of(rows[i]));
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (known[i]) {
            cost[i] = *known[i];
            continue;
        }
        const auto r = rate.find(rows[i].engine);
        const std::pair<double, double> use = r != rate.end() ? r->second : all;
        // Without any estimate the count alone decides, as it did before estimates existed.
        const double per = use.second > 0 ? use.first / use.second : 1.0;
        cost[i] = std::uint64_t(std::llround(per * double(work_of(rows[i])))) + 1;
    }
    return cost;
}

}  // namespace kverify::cli
