// SPDX-License-Identifier: GPL-2.0-only
// Verdicts and result rows as JSON (nlohmann::json): the rows of a --json result file (written by
// the report, read back by merge and replay), replay files, and the verdict a child process
// sends to its parent; and writing a result file.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "model/cli/cli.hpp"

namespace kverify::cli {

namespace {

// A split part's counted executions under the LKMM (model/check/split.hpp), by chunk: [chunk,
// text], the text 33 hex digits an execution (its fingerprint's two words, then how it ended).
constexpr std::size_t end_digits = 33;

json ends_to_json(const std::vector<model::counted_end>& ends) {
    json out = json::array();
    std::string text;
    char buf[48];
    for (std::size_t k = 0; k < ends.size(); ++k) {
        const model::counted_end& e = ends[k];
        std::snprintf(buf, sizeof buf, "%016llx%016llx%01x", (unsigned long long)e.a,
                      (unsigned long long)e.b, unsigned(e.kind) & 0xfu);
        text += buf;
        if (k + 1 == ends.size() || ends[k + 1].chunk != e.chunk) {
            out.push_back({e.chunk, text});
            text.clear();
        }
    }
    return out;
}

std::vector<model::counted_end> ends_from_json(const json& j) {
    std::vector<model::counted_end> ends;
    const auto word = [](const std::string& s, std::size_t at, std::size_t n) {
        std::uint64_t w = 0;
        for (std::size_t k = at; k < at + n; ++k) {
            const char c = s[k];
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0) throw usage_error("split ends: '" + std::string(1, c) + "' is no hex digit");
            w = w << 4 | std::uint64_t(d);
        }
        return w;
    };
    for (const json& c : j) {
        const std::uint64_t chunk = c.at(0).get<std::uint64_t>();
        const std::string text = c.at(1).get<std::string>();
        if (text.empty() || text.size() % end_digits != 0)
            throw usage_error("split ends of chunk " + std::to_string(chunk) + ": " +
                              std::to_string(text.size()) + " digits, not a multiple of " +
                              std::to_string(end_digits));
        for (std::size_t at = 0; at < text.size(); at += end_digits) {
            const std::uint64_t kind = word(text, at + 32, 1);
            if (kind > model::counted_end::stale)
                throw usage_error("split ends of chunk " + std::to_string(chunk) +
                                  ": an execution ends in kind " + std::to_string(kind));
            ends.push_back({word(text, at, 16), word(text, at + 16, 16), chunk,
                            static_cast<model::counted_end::kind_t>(kind)});
        }
    }
    return ends;
}

}  // namespace

json verdict_to_json(const verdict& v) {
    json j = {{"engine", v.engine},       {"search", v.search.str()},   {"verdict", v.outcome},
              {"detail", v.detail},       {"executions", v.executions}, {"blocked", v.blocked},
              {"stale_cut", v.stale_cut}, {"also_sc", v.also_sc},       {"seconds", v.seconds},
              {"trace", v.trace},         {"replay", v.replay},         {"in_place", v.in_place}};
    const model::search_limits& l = v.search.limits;
    if (l.any()) {
        json lj = json::object();
        if (l.irq >= 0) lj["irq"] = l.irq;
        if (l.nmi >= 0) lj["nmi"] = l.nmi;
        if (l.migrations >= 0) lj["migrations"] = l.migrations;
        if (l.no_symmetry) lj["no_symmetry"] = true;
        if (l.every_switch_point) lj["every_switch_point"] = true;
        if (l.preempt_by_choice) lj["preempt_by_choice"] = true;
        j["limits"] = lj;
    }
    if (v.search.split_parts > 0) {  // a part of a split search: what merge joins
        json chunks = json::array();
        for (const model::split_chunk& c : v.split.chunks)
            chunks.push_back({c.index, c.executions, c.blocked});
        j["split"] = {{"part", v.search.split_part},
                      {"parts", v.search.split_parts},
                      {"depth", v.split.depth},
                      {"roots", v.split.roots},
                      {"chunks", chunks},
                      {"violation_chunk", v.split.violation_chunk}};
        if (v.split.by_fingerprint) {
            j["split"]["by_fingerprint"] = true;
            j["split"]["violation_elsewhere"] = v.split.violation_elsewhere;
            j["split"]["ends"] = ends_to_json(v.split.ends);
        }
    }
    return j;
}

verdict verdict_from_json(const json& j) {
    try {
        if (!j.is_object()) throw usage_error("a verdict must be a JSON object");
        for (const char* key : {"engine", "search", "verdict"})
            if (!j.contains(key) || !j[key].is_string())
                throw usage_error(std::string("missing string field '") + key + "'");
        verdict v;
        v.engine = j["engine"].get<std::string>();
        std::string err;
        if (!search_spec::parse(j["search"].get<std::string>(), v.search, err))
            throw usage_error(err);
        if (j.contains("limits")) {
            const json& l = j["limits"];
            v.search.limits.irq = l.value("irq", -1);
            v.search.limits.nmi = l.value("nmi", -1);
            v.search.limits.migrations = l.value("migrations", -1);
            v.search.limits.no_symmetry = l.value("no_symmetry", false);
            v.search.limits.every_switch_point = l.value("every_switch_point", false);
            v.search.limits.preempt_by_choice = l.value("preempt_by_choice", false);
        }
        v.outcome = j["verdict"].get<std::string>();
        v.detail = j.value("detail", "");
        v.executions = j.value("executions", std::uint64_t(0));
        v.blocked = j.value("blocked", std::uint64_t(0));
        v.stale_cut = j.value("stale_cut", std::uint64_t(0));
        v.in_place = j.value("in_place", std::uint64_t(0));
        v.also_sc = j.value("also_sc", "");
        v.seconds = j.value("seconds", 0.0);
        v.trace = j.value("trace", "");
        v.replay = j.value("replay", "");
        if (j.contains("split")) {
            const json& sp = j["split"];
            v.search.split_part = sp.at("part").get<unsigned>();
            v.search.split_parts = sp.at("parts").get<unsigned>();
            if (v.search.split_parts == 0 || v.search.split_part < 1 ||
                v.search.split_part > v.search.split_parts)
                throw usage_error("split part " + std::to_string(v.search.split_part) + " of " +
                                  std::to_string(v.search.split_parts));
            v.split.depth = sp.at("depth").get<unsigned>();
            v.split.roots = sp.at("roots").get<std::uint64_t>();
            v.split.violation_chunk = sp.at("violation_chunk").get<std::uint64_t>();
            for (const json& c : sp.at("chunks"))
                v.split.chunks.push_back({c.at(0).get<std::uint64_t>(),
                                          c.at(1).get<std::uint64_t>(),
                                          c.at(2).get<std::uint64_t>()});
            v.split.by_fingerprint = sp.value("by_fingerprint", false);
            if (v.split.by_fingerprint) {
                v.split.violation_elsewhere = sp.at("violation_elsewhere").get<bool>();
                v.split.ends = ends_from_json(sp.at("ends"));
            }
        }
        return v;
    } catch (const json::exception& e) {
        throw usage_error(std::string("malformed verdict: ") + e.what());
    }
}

json row_to_json(const row_result& r) {
    json j = verdict_to_json(r.v);
    j["check"] = r.row.check;
    j["engine"] = r.row.engine;
    j["search"] = r.row.search.str();
    j["tier"] = r.row.tier;
    j["line"] = r.row.line;
    j["expected"] = r.row.expected;
    j["expected_executions"] = r.row.executions;
    j["algorithm"] = r.algorithm;
    j["variant"] = r.variant;
    j["config"] = r.config;
    j["status"] = r.status;
    j["mismatch"] = r.mismatch;
    if (!r.fingerprint.empty()) j["fingerprint"] = r.fingerprint;
    return j;
}

row_result row_from_json(const json& j) {
    row_result r;
    r.v = verdict_from_json(j);
    try {
        for (const char* key : {"check", "expected", "expected_executions", "tier"})
            if (!j.contains(key) || !j[key].is_string())
                throw usage_error(std::string("missing string field '") + key + "'");
        r.row.check = j["check"].get<std::string>();
        r.row.engine = r.v.engine;
        r.row.search = r.v.search;
        r.row.search.limits = {};
        r.row.expected = j["expected"].get<std::string>();
        r.row.executions = j["expected_executions"].get<std::string>();
        r.row.tier = j["tier"].get<std::string>();
        r.row.line = j.value("line", 0);
        r.algorithm = j.value("algorithm", "");
        r.variant = j.value("variant", "");
        r.config = j.value("config", "");
        r.fingerprint = j.value("fingerprint", "");
    } catch (const json::exception& e) {
        throw usage_error(std::string("malformed result row: ") + e.what());
    }
    return r;
}

namespace {

std::string directory_of(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

void write_file(const std::string& path, const std::string& text) {
    // Written to a hidden name beside it and renamed when complete: a reader (a CI step, merge)
    // sees the whole file or none, never a part of one.
    const std::size_t slash = path.rfind('/');
    const std::size_t at = slash == std::string::npos ? 0 : slash + 1;
    const std::string tmp = path.substr(0, at) + "." + path.substr(at) + ".kverify-partial-" +
                            std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.close();
        if (!out) {
            std::remove(tmp.c_str());
            throw usage_error("cannot write " + path);
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw usage_error("cannot write " + path + ": " + std::strerror(errno));
    }
}

void check_readable(const std::string& path, const std::string& what) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw usage_error("cannot read " + what + " " + path + ": " + std::strerror(errno));
    if (S_ISDIR(st.st_mode))
        throw usage_error("cannot read " + what + " " + path + ": is a directory");
}

void check_writable(const std::string& path, bool discard_old) {
    if (path.empty()) return;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw usage_error("cannot write " + path + ": is a directory");
    if (::access(directory_of(path).c_str(), W_OK | X_OK) != 0)
        throw usage_error("cannot write " + path + ": " + std::strerror(errno));
    // A result file left from an earlier run must not pass for this one's if this one fails.
    if (discard_old && std::remove(path.c_str()) != 0 && errno != ENOENT)
        throw usage_error("cannot replace " + path + ": " + std::strerror(errno));
}

void check_outputs(const report_options& o) {
    const std::pair<const char*, const std::string*> files[] = {
        {"--json", &o.json}, {"--junit", &o.junit}, {"--markdown", &o.markdown}};
    for (std::size_t i = 0; i < std::size(files); ++i)
        for (std::size_t k = i + 1; k < std::size(files); ++k) {
            if (files[i].second->empty() || files[k].second->empty()) continue;
            std::error_code ea, eb;
            const auto a = std::filesystem::weakly_canonical(*files[i].second, ea);
            const auto b = std::filesystem::weakly_canonical(*files[k].second, eb);
            if (*files[i].second == *files[k].second || (!ea && !eb && a == b))
                throw usage_error(std::string(files[i].first) + " and " + files[k].first +
                                  " name one file, " + *files[i].second +
                                  ": each result file needs its own");
        }
    for (const auto& f : files) {
        // The report page's directory is replaced whole: no other result file goes in it.
        if (!o.html.empty() && !f.second->empty() &&
            (*f.second == o.html || f.second->rfind(o.html + "/", 0) == 0))
            throw usage_error(std::string(f.first) + " " + *f.second +
                              ": the --html directory is no place for another result file");
        check_writable(*f.second, true);
    }
    check_html_dir(o.html);
}

}  // namespace kverify::cli
