// SPDX-License-Identifier: GPL-2.0-only
// The expected-verdict table: loading and validating proofs/expected/verdicts.tsv, selecting and
// sharding its rows (by the costs of row_times.cpp), and re-pinning execution counts in place.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <sstream>

#include "model/cli/cli.hpp"

namespace kverify::cli {
namespace {

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> f;
    std::size_t start = 0;
    for (;;) {
        const std::size_t tab = line.find('\t', start);
        f.push_back(line.substr(start, tab - start));
        if (tab == std::string::npos) return f;
        start = tab + 1;
    }
}

std::string read_file(const std::string& path) {
    check_readable(path, "the expected-verdict table");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw usage_error("cannot read the expected-verdict table " + path);
    std::ostringstream s;
    s << in.rdbuf();
    if (in.bad()) throw usage_error("cannot read the expected-verdict table " + path);
    return s.str();
}

// FNV-1a, 64 bits: enough to tell two tables apart, not a security measure.
std::string digest_of(const std::string& bytes) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    return buf;
}

// What a table line must not hold, named so that the message says what to change: a
// byte-order mark, a carriage return (CRLF line ends), or any other control character than the
// tabs between fields. "" when the line is clean.
std::string line_fault(const std::string& line, int n) {
    if (n == 1 && line.rfind("\xef\xbb\xbf", 0) == 0)
        return "the file starts with a UTF-8 byte-order mark: save it without one";
    for (std::size_t i = 0; i < line.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(line[i]);
        if (c == '\r')
            return i + 1 == line.size() ? "a CRLF line end: save the table with LF line ends"
                                        : "a carriage return at column " + std::to_string(i + 1);
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            char buf[80];
            std::snprintf(buf, sizeof buf, "a control character (0x%02x) at column %zu", c, i + 1);
            return buf;
        }
    }
    return "";
}

// The searches each engine offers: Relacy all three, the dpor engines (every one named dpor-)
// only exhaustive, as their runners refuse any other at run time.
bool engine_offers(const std::string& engine, const search_spec& s) {
    return engine.rfind("dpor-", 0) != 0 || s.kind == model::search_kind::exhaustive;
}

std::string joined(const std::vector<std::string>& names) {
    std::string all;
    for (const std::string& e : names) all += (all.empty() ? "" : ", ") + e;
    return all;
}

}  // namespace

table load_table(const std::string& path) {
    table t;
    t.path = path;
    const std::string bytes = read_file(path);
    t.digest = digest_of(bytes);
    std::istringstream in(bytes);
    std::string line;
    int n = 0;
    const auto bad = [&](const std::string& what) {
        throw usage_error(path + ":" + std::to_string(n) + ": " + what);
    };
    while (std::getline(in, line)) {
        ++n;
        if (const std::string fault = line_fault(line, n); !fault.empty()) bad(fault);
        if (line.empty() || line[0] == '#') continue;
        const std::vector<std::string> f = split_tabs(line);
        if (f.size() != 6)
            bad("expected 6 tab-separated fields (check engine search expected executions tier), "
                "got " +
                std::to_string(f.size()));
        table_row r;
        r.check = f[0];
        r.engine = f[1];
        r.expected = f[3];
        r.executions = f[4];
        r.tier = f[5];
        r.line = n;
        const check* c = model::find_check(r.check);
        if (!c) bad("unknown check '" + r.check + "' (see 'kverify list')");
        if (!c->supports(r.engine))
            bad("check " + r.check + " cannot run on engine '" + r.engine +
                "' (known engines: " + joined(model::known_engines()) + ")");
        std::string err;
        if (!search_spec::parse(f[2], r.search, err)) bad(err);
        if (!engine_offers(r.engine, r.search))
            bad("engine " + r.engine + " offers no search " + r.search.str() +
                " (its only search is exhaustive)");
        if (r.expected.empty() || r.expected.find(' ') != std::string::npos)
            bad("expected verdict '" + r.expected + "' is not a verdict class");
        if (const model::check_engine& e = *c->engine(r.engine);
            r.expected != "pass" && r.expected != "inconclusive" && !e.reports(r.expected))
            bad("check " + r.check + " on " + r.engine + " has no verdict class '" + r.expected +
                "' (its verdicts: pass, inconclusive, " + joined(e.classes) + ")");
        if (r.executions != "-" && (r.executions.empty() || r.executions.find_first_not_of(
                                                                "0123456789") != std::string::npos))
            bad("executions must be a number or '-', got '" + r.executions + "'");
        if (r.tier != "quick" && r.tier != "full")
            bad("tier must be quick or full, got '" + r.tier + "'");
        for (const table_row& o : t.rows)
            if (o.check == r.check && o.engine == r.engine && o.search.str() == r.search.str())
                bad("duplicate row " + r.check + " " + r.engine + " " + r.search.str() +
                    " (first at line " + std::to_string(o.line) + ")");
        t.rows.push_back(r);
    }
    return t;
}

std::vector<table_row> select_rows(const table& t, const selection& s) {
    const name_filter re(s.filter);
    std::vector<table_row> r;
    for (const table_row& row : t.rows)
        if ((s.tier == "all" || row.tier == s.tier) &&
            (s.engine.empty() || row.engine == s.engine) && re.matches(row.check))
            r.push_back(row);
    return r;
}

bool parse_shard(const std::string& s, unsigned& index, unsigned& count) {
    const std::size_t slash = s.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == s.size()) return false;
    const std::string a = s.substr(0, slash), b = s.substr(slash + 1);
    if (a.find_first_not_of("0123456789") != std::string::npos || a.size() > 6 ||
        b.find_first_not_of("0123456789") != std::string::npos || b.size() > 6)
        return false;
    const unsigned i = unsigned(std::stoul(a)), n = unsigned(std::stoul(b));
    if (n < 1 || i < 1 || i > n) return false;
    index = i - 1;
    count = n;
    return true;
}

std::vector<table_row> shard_rows(const std::vector<table_row>& rows, unsigned index,
                                  unsigned count, const row_times& times) {
    // Longest processing time first: the costliest row goes to the least loaded shard (ties:
    // the lower shard). Costs are whole microseconds (row_costs), so every shard computes the
    // same assignment for one table, one estimate file and one selection.
    const std::vector<std::uint64_t> cost = row_costs(rows, times);
    std::vector<std::size_t> order(rows.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
    std::vector<std::uint64_t> load(count, 0);
    std::vector<bool> mine(rows.size(), false);
    for (std::size_t i : order) {
        const auto least = std::min_element(load.begin(), load.end()) - load.begin();
        load[least] += cost[i];
        mine[i] = unsigned(least) == index;
    }
    std::vector<table_row> r;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (mine[i]) r.push_back(rows[i]);
    return r;
}

int repin_table(const std::string& path, const std::vector<std::pair<int, std::string>>& counts) {
    const std::string bytes = read_file(path);
    std::string out;
    int n = 0, changed = 0;
    std::size_t start = 0;
    while (start < bytes.size()) {
        std::size_t end = bytes.find('\n', start);
        const bool last = end == std::string::npos;
        if (last) end = bytes.size();
        std::string line = bytes.substr(start, end - start);
        ++n;
        for (const auto& [at, count] : counts) {
            if (at != n) continue;
            std::vector<std::string> f = split_tabs(line);
            if (f.size() != 6) throw usage_error(path + ":" + std::to_string(n) + " changed");
            if (f[4] != count) {
                f[4] = count;
                ++changed;
            }
            line.clear();
            for (std::size_t i = 0; i < f.size(); ++i) line += (i ? "\t" : "") + f[i];
        }
        out += line;
        if (!last) out += '\n';
        start = end + 1;
    }
    // Written beside the table and renamed over it, so an interrupted re-pin leaves the old one.
    const std::string tmp = path + ".repin.tmp";
    write_file(tmp, out);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw usage_error("cannot replace " + path);
    }
    return changed;
}

}  // namespace kverify::cli
