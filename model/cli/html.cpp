// SPDX-License-Identifier: GPL-2.0-only
// `verify --html DIR` (and merge's): a static report page, index.html with its style sheet,
// script and counterexample pictures beside it. Nothing is fetched when it is viewed: no server,
// no external address. The page shows the totals, the rows that differ first, then per algorithm
// the matrix of variants by memory model and configuration, each cell a link to its details
// (verdict, expected, search, executions, time, trace, the graph, the commands that run it
// again). Every text from a row is escaped; the directory is written whole or not at all.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "model/cli/commands.hpp"

namespace kverify::cli {
namespace {

namespace fs = std::filesystem;

// The file that marks a directory as a report of ours: only such a directory is replaced.
constexpr const char* marker = ".kverify-report";

// Text for HTML, in an element or a quoted attribute: valid UTF-8 (xml_safe) with the five
// characters that could end or open markup replaced by references.
std::string esc(const std::string& s) {
    std::string r;
    for (const char c : xml_safe(s)) switch (c) {
            case '&':
                r += "&amp;";
                break;
            case '<':
                r += "&lt;";
                break;
            case '>':
                r += "&gt;";
                break;
            case '"':
                r += "&quot;";
                break;
            case '\'':
                r += "&#39;";
                break;
            default:
                r += c;
        }
    return r;
}

// A word for a POSIX shell: single-quoted unless it is plainly safe.
std::string shell_word(const std::string& s) {
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789-_./:=") == std::string::npos)
        return s;
    std::string r = "'";
    for (const char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return r + "'";
}

std::string search_text(const search_spec& s) {
    switch (s.kind) {
        case model::search_kind::exhaustive:
            return "exhaustive";
        case model::search_kind::bounded:
            return "bounded, at most " + std::to_string(s.bound) + " preemptive context switches";
        case model::search_kind::sampled:
            return "sampled, " + std::to_string(s.samples) + " random executions";
    }
    return "?";
}

// A cell's class: what its colour says.
std::string cell_class(const std::vector<const row_result*>& rows) {
    bool differ = false, unknown = false, violation = false;
    for (const row_result* r : rows) {
        differ = differ || r->status == "MISMATCH" || r->status == "error" ||
                 r->status == "count-changed";
        unknown = unknown || r->status == "inconclusive";
        violation = violation || r->v.found_violation();
    }
    return differ ? "differs" : unknown ? "unknown" : violation ? "violation" : "pass";
}

// What a cell shows: a tick for a pass, else the first two letters of each violation class.
std::string cell_mark(const std::vector<const row_result*>& rows, const std::string& cls) {
    if (cls == "unknown") return "?";
    std::vector<std::string> classes;
    for (const row_result* r : rows)
        if (r->v.found_violation() &&
            std::find(classes.begin(), classes.end(), r->v.outcome) == classes.end())
            classes.push_back(r->v.outcome);
    if (classes.empty()) return cls == "differs" ? "!" : "\xe2\x9c\x93";  // U+2713
    std::string m;
    for (const std::string& c : classes) m += (m.empty() ? "" : " ") + c.substr(0, 2);
    return m + (cls == "differs" ? "!" : "");
}

// The page's pieces, filled while the matrix is laid out.
struct html_page {
    std::ostringstream matrix, details;
    std::map<const row_result*, std::string> cell_of;         // row -> its cell's id
    std::vector<std::pair<std::size_t, std::string>> graphs;  // row index -> dot text
    std::size_t cells = 0;
};

struct variant_rows {
    std::string name;
    std::map<std::string, std::map<std::string, std::vector<const row_result*>>> by_model;
};

void algorithm_matrix(html_page& p, const std::string& algorithm,
                      const std::vector<const row_result*>& rows,
                      const std::map<const row_result*, std::size_t>& index) {
    // Configurations and variants in the registry's order (where the rows do not say better).
    std::map<std::string, std::size_t> position;
    for (const check& c : model::registry().all())
        if (c.algorithm == algorithm) {
            position.emplace("c\t" + config_of(c.name, c.variant), position.size());
            position.emplace("v\t" + c.variant, position.size());
        }
    const auto pos = [&](const std::string& k) {
        const auto it = position.find(k);
        return it == position.end() ? SIZE_MAX : it->second;
    };
    std::vector<std::string> configs;
    std::vector<variant_rows> variants;
    for (const row_result* r : rows) {
        const std::string config = config_of(r->row.check, r->variant);
        if (std::find(configs.begin(), configs.end(), config) == configs.end())
            configs.push_back(config);
        auto v = std::find_if(variants.begin(), variants.end(),
                              [&](const variant_rows& x) { return x.name == r->variant; });
        if (v == variants.end()) v = variants.insert(variants.end(), {r->variant, {}});
        v->by_model[r->row.engine][config].push_back(r);
    }
    std::stable_sort(configs.begin(), configs.end(),
                     [&](const auto& a, const auto& b) { return pos("c\t" + a) < pos("c\t" + b); });
    std::stable_sort(variants.begin(), variants.end(), [&](const auto& a, const auto& b) {
        return pos("v\t" + a.name) < pos("v\t" + b.name);
    });

    std::ostringstream& m = p.matrix;
    m << "<section class=\"algorithm\" id=\"alg-" << esc(algorithm) << "\">\n<h2>" << esc(algorithm)
      << "</h2>\n<div class=\"scroll\"><table class=\"matrix\" data-algorithm=\"" << esc(algorithm)
      << "\">\n<thead><tr><th>variant</th><th>model</th>";
    for (const std::string& c : configs)
        m << "<th class=\"config\"><span>" << esc(c.empty() ? "(none)" : c) << "</span></th>";
    m << "</tr></thead>\n<tbody>\n";
    for (const variant_rows& v : variants) {
        std::size_t n_models = 0;
        bool bad = false, differs = false;
        for (const auto& [engine, by_config] : v.by_model) {
            ++n_models;
            for (const auto& [config, rs] : by_config) {
                differs = differs || cell_class(rs) == "differs";
                for (const row_result* r : rs) bad = bad || r->v.found_violation();
            }
        }
        bool first = true;
        for (const auto& [engine, model] : models()) {
            const auto e = v.by_model.find(engine);
            if (e == v.by_model.end()) continue;
            m << "<tr data-variant=\"" << esc(v.name) << "\">";
            if (first)
                m << "<th class=\"variant\" rowspan=\"" << n_models << "\">" << esc(v.name)
                  << " <span class=\""
                  << (differs ? "differs"
                      : bad   ? "violation"
                              : "pass")
                  << "\">" << (bad ? "bad" : "sound") << "</span></th>";
            first = false;
            m << "<th class=\"model\">" << model << "</th>";
            for (const std::string& c : configs) {
                const auto cell = e->second.find(c);
                if (cell == e->second.end()) {
                    m << "<td class=\"none\"></td>";
                    continue;
                }
                const std::vector<const row_result*>& rs = cell->second;
                const std::string id = "c" + std::to_string(++p.cells);
                const std::string cls = cell_class(rs);
                std::string title = rs.front()->row.check + " on " + model + ":";
                for (const row_result* r : rs) {
                    title += " " + r->row.search.str() + " " + r->v.outcome;
                    p.cell_of[r] = id;
                }
                m << "<td class=\"" << cls << "\"><a href=\"#" << id << "\" title=\"" << esc(title)
                  << "\">" << esc(cell_mark(rs, cls)) << "</a></td>";

                // The cell's details: each of its rows.
                p.details << "<section class=\"cell\" id=\"" << id << "\">\n<h3>"
                          << esc(rs.front()->row.check) << " on " << model << " (" << esc(engine)
                          << ")</h3>\n";
                for (const row_result* r : rs) {
                    const std::size_t i = index.at(r);
                    p.details << "<div class=\"row " << cell_class({r}) << "\" id=\"r" << i
                              << "\">\n<dl>"
                              << "<dt>verdict</dt><dd class=\"verdict\">" << esc(r->v.outcome)
                              << "</dd><dt>expected</dt><dd>" << esc(r->row.expected)
                              << "</dd><dt>status</dt><dd class=\"status\">" << esc(r->status)
                              << (r->mismatch.empty() ? "" : ": " + esc(r->mismatch))
                              << "</dd><dt>search</dt><dd>" << esc(search_text(r->row.search))
                              << "</dd><dt>executions</dt><dd>" << r->v.executions << " (pinned "
                              << esc(r->row.executions) << ")</dd>";
                    if (r->v.blocked)
                        p.details << "<dt>blocked</dt><dd>" << r->v.blocked << "</dd>";
                    if (!r->v.also_sc.empty())
                        p.details << "<dt>also under SC</dt><dd>" << esc(r->v.also_sc) << "</dd>";
                    p.details << "<dt>time</dt><dd>" << esc(format_seconds(r->v.seconds))
                              << "</dd><dt>table line</dt><dd>" << r->row.line << "</dd></dl>\n";
                    if (!r->v.detail.empty())
                        p.details << "<p class=\"detail\">" << esc(r->v.detail) << "</p>\n";
                    if (!r->v.trace.empty()) {
                        p.details << "<h4>trace</h4>\n<pre class=\"trace\">" << esc(r->v.trace)
                                  << "</pre>\n<h4>graph</h4>\n<!--graph " << i << "-->\n";
                        p.graphs.emplace_back(
                            i, trace_graph(r->v.trace, r->row.engine,
                                           r->row.check + " " + r->row.engine + " " +
                                               r->row.search.str() + ": " + r->v.outcome));
                    }
                    const std::string name = shell_word(r->row.check);
                    p.details << "<h4>run it again</h4>\n<pre class=\"replay\">./kverify check "
                              << esc(name) << " " << esc(r->row.search.str()) << " --engine "
                              << esc(r->row.engine);
                    if (r->v.found_violation())
                        p.details << "\n./kverify run " << esc(name) << " --engine "
                                  << esc(r->row.engine) << " --search " << esc(r->row.search.str())
                                  << " --graph cex.svg";
                    p.details << "</pre>\n</div>\n";
                }
                p.details << "</section>\n";
            }
            m << "</tr>\n";
        }
    }
    m << "</tbody></table></div>\n</section>\n";
}

// Graphviz's dot, if it can be run: the pictures are SVG then, else the page shows dot text.
bool have_dot() {
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "");
    for (std::string d; std::getline(dirs, d, ':');)
        if (!d.empty() && ::access((d + "/dot").c_str(), X_OK) == 0) return true;
    return false;
}

// Renders graphs/rN.svg from graphs/rN.dot, `parallel` dot processes at once; returns the rows
// whose picture was made.
std::vector<bool> render_graphs(const std::string& dir, const std::vector<std::size_t>& rows,
                                unsigned parallel) {
    std::vector<bool> ok(rows.size(), false);
    std::map<pid_t, std::size_t> running;
    const auto reap = [&] {
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, 0);
        if (pid < 0 && errno != EINTR) running.clear();  // no child left to wait for
        const auto it = running.find(pid);
        if (it == running.end()) return;
        ok[it->second] = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        running.erase(it);
    };
    for (std::size_t k = 0; k < rows.size(); ++k) {
        while (running.size() >= std::max(1u, parallel)) reap();
        const std::string base = dir + "/graphs/r" + std::to_string(rows[k]);
        const std::string out = "-o" + base + ".svg", in = base + ".dot";
        const char* argv[] = {"dot", "-Tsvg", out.c_str(), in.c_str(), nullptr};
        const pid_t pid = ::fork();
        if (pid == 0) {
            // dot's warnings are no part of verify's output
            const int null = ::open("/dev/null", O_WRONLY);
            if (null >= 0) ::dup2(null, 2);
            ::execvp("dot", const_cast<char**>(argv));
            ::_exit(127);
        }
        if (pid > 0) running.emplace(pid, k);
    }
    while (!running.empty()) reap();
    return ok;
}

void put(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw usage_error("--html: cannot write " + path);
}

const char* const style = R"(/* SPDX-License-Identifier: GPL-2.0-only */
body { font: 14px/1.4 sans-serif; margin: 1em 2em; color: #222; }
h1 { font-size: 1.5em; margin: 0 0 .3em; }
.totals { font-weight: bold; }
pre { background: #f6f6f6; padding: .5em; overflow-x: auto; font-size: 12px; }
table.matrix { border-collapse: collapse; margin-bottom: 1em; }
.matrix th, .matrix td { border: 1px solid #ccc; padding: 1px 3px; font-size: 12px; }
.matrix th.config { vertical-align: bottom; height: 9em; white-space: nowrap; }
.matrix th.config span { writing-mode: vertical-rl; transform: rotate(180deg); }
.matrix th.variant { text-align: left; white-space: nowrap; }
.matrix td { text-align: center; min-width: 1.6em; }
.matrix td a { color: inherit; text-decoration: none; display: block; }
.matrix td.none { background: #fafafa; }
.scroll { overflow-x: auto; }
.pass { background: #c8e6c9; }
.violation { background: #ffe0a0; }
.differs { background: #ef5350; color: #fff; font-weight: bold; }
.differs a { color: #fff; }
.unknown { background: #d1c4e9; }
span.pass, span.violation, span.differs { padding: 0 .3em; border-radius: 3px; }
.legend span { padding: 0 .5em; margin-right: .5em; border: 1px solid #ccc; }
#differ li { margin: .2em 0; }
section.cell { display: none; border: 2px solid #888; padding: .5em 1em; margin: 1em 0; }
section.cell:target, body.all section.cell { display: block; }
.row { margin: .5em 0; padding: .3em .6em; border-radius: 4px; }
.row dl { display: grid; grid-template-columns: max-content auto; gap: 0 1em; margin: 0; }
.row dt { font-weight: bold; }
.row dd { margin: 0; }
.graph img { max-width: 100%; background: #fff; }
#filter { margin: .5em 0; }
)";

const char* const script = R"(// SPDX-License-Identifier: GPL-2.0-only
// The page reads without this script; it adds a filter of the matrix by variant name and a
// switch that shows every cell's details at once.
(function () {
  'use strict';
  var box = document.createElement('p');
  box.id = 'filter';
  var input = document.createElement('input');
  input.type = 'search';
  input.placeholder = 'variant name';
  var all = document.createElement('input');
  all.type = 'checkbox';
  all.id = 'show-all';
  var label = document.createElement('label');
  label.htmlFor = 'show-all';
  label.textContent = ' every cell\u2019s details';
  box.appendChild(document.createTextNode('Show variants matching '));
  box.appendChild(input);
  box.appendChild(document.createTextNode(' '));
  box.appendChild(all);
  box.appendChild(label);
  var first = document.querySelector('section.algorithm');
  if (first) first.parentNode.insertBefore(box, first);
  input.addEventListener('input', function () {
    var want = input.value.toLowerCase();
    document.querySelectorAll('table.matrix tr[data-variant]').forEach(function (tr) {
      tr.hidden = want !== '' && tr.dataset.variant.toLowerCase().indexOf(want) < 0;
    });
  });
  all.addEventListener('change', function () {
    document.body.classList.toggle('all', all.checked);
  });
  document.body.dataset.script = 'ran';
})();
)";

}  // namespace

void check_html_dir(const std::string& given) {
    if (given.empty()) return;
    std::string dir = given;  // "report/" names the directory "report"
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            throw usage_error("--html " + dir + ": exists and is not a directory");
        std::error_code ec;
        const bool ours = fs::exists(fs::path(dir) / marker, ec);
        if (!ours && !fs::is_empty(dir, ec))
            throw usage_error("--html " + dir +
                              ": exists and is no kverify report; name a new or empty directory");
        // A report of an earlier run must not pass for this one's if this one fails.
        fs::remove_all(dir, ec);
        if (ec) throw usage_error("cannot replace " + dir + ": " + ec.message());
    }
    check_writable(dir);  // its parent directory must take the new one
}

void write_html(const std::string& dir, const run_info& info,
                const std::vector<row_result>& results, const std::string& totals) {
    // Built in a hidden directory beside DIR, renamed to DIR when complete.
    fs::path target(dir);
    while (target.has_parent_path() && !target.has_filename()) target = target.parent_path();
    const fs::path tmp = target.parent_path() / ("." + target.filename().string() +
                                                 ".kverify-partial-" + std::to_string(::getpid()));
    std::error_code ec;
    fs::remove_all(tmp, ec);
    if (!fs::create_directories(tmp / "graphs", ec) || ec)
        throw usage_error("--html " + dir + ": cannot create " + tmp.string());
    try {
        // The rows by algorithm, in table order; the rows that differ.
        std::vector<std::pair<std::string, std::vector<const row_result*>>> algorithms;
        std::map<const row_result*, std::size_t> index;
        for (const row_result& r : results) {
            const std::size_t n = index.size();
            index[&r] = n;
            auto a = std::find_if(algorithms.begin(), algorithms.end(),
                                  [&](const auto& x) { return x.first == r.algorithm; });
            if (a == algorithms.end()) a = algorithms.insert(algorithms.end(), {r.algorithm, {}});
            a->second.push_back(&r);
        }
        html_page p;
        for (const auto& [algorithm, rows] : algorithms)
            algorithm_matrix(p, algorithm, rows, index);

        // The pictures: SVG when dot runs, else the dot text on the page. A graph too large is
        // not drawn (dot takes minutes on the few of thousands of events); its text is linked.
        // Drawn: every row that differs from the table, and per variant, engine and verdict
        // class the first row of the table (the smallest configuration the summary names);
        // the others link their dot text (a quick tier has over a thousand violations, and
        // drawing them all cost more than the run).
        constexpr std::size_t max_drawn = 32 * 1024;  // bytes of dot text
        const bool dot = have_dot();
        std::vector<std::size_t> to_draw;
        std::set<std::string> drawn_kinds;
        std::vector<bool> skipped_of(results.size(), false);
        for (const auto& [i, text] : p.graphs) {
            put((tmp / "graphs" / ("r" + std::to_string(i) + ".dot")).string(), text);
            const row_result& r = results[i];
            const bool first =
                drawn_kinds
                    .insert(r.algorithm + "/" + r.variant + " " + r.row.engine + " " + r.v.outcome)
                    .second;
            if (!first && r.status == "ok") {
                skipped_of[i] = true;
                continue;
            }
            if (dot && text.size() <= max_drawn) to_draw.push_back(i);
        }
        std::vector<bool> drawn_of(results.size(), false);
        if (!to_draw.empty()) {
            const std::vector<bool> ok =
                render_graphs(tmp.string(), to_draw, std::max(1u, info.jobs));
            for (std::size_t k = 0; k < to_draw.size(); ++k) drawn_of[to_draw[k]] = ok[k];
        }
        // Each graph's mark in the details, in the order the graphs were taken, replaced.
        const std::string text = p.details.str();
        std::string details;
        details.reserve(text.size());
        std::size_t from = 0;
        for (const auto& [row, dot_text] : p.graphs) {
            const std::string i = std::to_string(row);
            const std::string mark = "<!--graph " + i + "-->";
            const std::size_t at = text.find(mark, from);
            details.append(text, from, at - from);
            from = at + mark.size();
            const std::string file = "<a href=\"graphs/r" + i + ".dot\">graphs/r" + i + ".dot</a>";
            if (drawn_of[row]) {
                details += "<p class=\"graph\"><img src=\"graphs/r" + i +
                           ".svg\" alt=\"execution graph of the counterexample\"></p>";
            } else if (skipped_of[row]) {
                details +=
                    "<p>Drawn for the first row of this variant, engine and verdict "
                    "only; this one's dot text: " +
                    file + " (or <code>--graph</code> below)</p>";
            } else if (dot_text.size() > max_drawn) {
                details += "<p>Too large to draw here (" + std::to_string(dot_text.size() / 1024) +
                           " KiB of dot text): " + file + "</p>";
            } else {
                details +=
                    std::string("<p>") +
                    (dot ? "Graphviz's dot could not draw it" : "Graphviz's dot is not installed") +
                    "; its dot text (" + file + "):</p>\n<pre class=\"dot\">" + esc(dot_text) +
                    "</pre>";
            }
        }
        details.append(text, from, std::string::npos);

        std::ostringstream page;
        std::size_t n_differ = 0;
        for (const row_result& r : results) n_differ += r.status != "ok";
        page << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
             << "<meta name=\"generator\" content=\"kverify\">\n<title>kverify: " << esc(totals)
             << "</title>\n<link rel=\"stylesheet\" href=\"report.css\">\n</head>\n<body>\n"
             << "<header>\n<h1>kverify report</h1>\n<p class=\"totals\" id=\"totals\">"
             << esc(totals) << "</p>\n<p>table <code>" << esc(info.table_path) << "</code>, tier "
             << esc(info.sel.tier);
        if (!info.sel.filter.empty())
            page << ", filter <code>" << esc(info.sel.filter) << "</code>";
        if (!info.sel.engine.empty()) page << ", engine " << esc(info.sel.engine);
        if (!info.shard.empty()) page << ", shard " << esc(info.shard);
        page << "; wall time " << esc(format_seconds(info.wall_seconds)) << ", -j " << info.jobs
             << "</p>\n</header>\n<section id=\"differ\">\n<h2>Rows that differ from the table ("
             << n_differ << ")</h2>\n";
        if (n_differ == 0)
            page << "<p>none: every verdict and count is as pinned.</p>\n";
        else {
            page << "<ul>\n";
            for (const row_result& r : results) {
                if (r.status == "ok") continue;
                page << "<li class=\"" << cell_class({&r}) << "\"><a href=\"#" << p.cell_of.at(&r)
                     << "\">" << esc(r.row.check + " " + r.row.engine + " " + r.row.search.str())
                     << "</a>: " << esc(r.status) << ", " << esc(r.mismatch) << "</li>\n";
            }
            page << "</ul>\n";
        }
        page << "</section>\n<section id=\"summary\">\n<h2>Verdicts per variant</h2>\n"
             << "<p class=\"legend\"><span class=\"pass\">\xe2\x9c\x93 pass</span>"
             << "<span class=\"violation\">lo: a violation (its class's first letters), as "
                "expected</span><span class=\"differs\">! differs from the table</span>"
             << "<span class=\"unknown\">? inconclusive</span> A cell is a configuration on a "
                "memory model; click it for its rows.</p>\n</section>\n"
             << p.matrix.str() << "<section id=\"details\">\n<h2>Details</h2>\n"
             << "<p>The cell clicked shows here.</p>\n"
             << details << "</section>\n<script src=\"report.js\"></script>\n</body>\n</html>\n";

        put((tmp / "index.html").string(), page.str());
        put((tmp / "report.css").string(), style);
        put((tmp / "report.js").string(), script);
        put((tmp / marker).string(), "a kverify --html report: verify replaces it whole\n");

        // In place of an earlier report (one left there since the run began), else new.
        const fs::path old = target.parent_path() / ("." + target.filename().string() +
                                                     ".kverify-old-" + std::to_string(::getpid()));
        if (fs::exists(target / marker, ec)) fs::rename(target, old, ec);
        fs::rename(tmp, target, ec);
        if (ec) throw usage_error("cannot write " + dir + ": " + ec.message());
        fs::remove_all(old, ec);
    } catch (...) {
        fs::remove_all(tmp, ec);
        throw;
    }
}

}  // namespace kverify::cli
