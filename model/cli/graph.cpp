// SPDX-License-Identifier: GPL-2.0-only
// `kverify run NAME --graph FILE`: the counterexample as an execution graph, drawn from the very
// text trace `run` prints (the same events, names and numbers): Graphviz's dot language, and for
// .svg and .png the `dot` program (Debian graphviz) renders it. Events are grouped by CPU, and
// inside a CPU by context: a task, and nested in it each interrupt (an NMI inside the IRQ it
// interrupted); program order runs down each column; reads-from (rf) and coherence (co) edges
// are labelled; a read of a write that is not the newest, and the violation, are marked.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <vector>

#include "model/cli/commands.hpp"

namespace kverify::cli {
namespace {

// One line of a trace: "[N] WHAT, in [CONTEXT] FUNC, FILE(LINE)" (dpor) or
// "[N] T: WHAT, in [CONTEXT] FUNC, FILE(LINE)" (Relacy).
struct trace_event {
    std::string id;    // "28"
    std::string what;  // "load stat[cpu1] -> 0 (reads [8], co 1/4, NOT THE NEWEST), relaxed"
    std::string cpu;   // "cpu1", "harness"
    std::string kind;  // task, irq, nmi, harness
    std::string task;  // "T1", "" for the harness
    std::string func, source;  // "inc", "impl/pcpu_stat.hpp:29"
    std::vector<int> nest;     // the interrupt episodes it runs in, outermost first
};

bool parse_line(const std::string& line, bool relacy, trace_event& e) {
    if (line.size() < 3 || line[0] != '[') return false;
    const std::size_t close = line.find("] ");
    if (close == std::string::npos) return false;
    e.id = line.substr(1, close - 1);
    std::size_t body = close + 2;
    if (relacy) {
        const std::size_t colon = line.find(": ", body);
        if (colon == std::string::npos) return false;
        body = colon + 2;
    }
    const std::size_t in = line.rfind(", in [");
    if (in == std::string::npos || in < body) {  // "task T0 finished", ...: no context
        e.what = line.substr(body);
        return true;
    }
    e.what = line.substr(body, in - body);
    const std::size_t ctx_end = line.find("] ", in);
    if (ctx_end == std::string::npos) return false;
    std::istringstream ctx(line.substr(in + 6, ctx_end - in - 6));
    std::string a, b, c;
    ctx >> a >> b >> c;
    if (a == "harness") {
        e.cpu = "harness";
        e.kind = "harness";
    } else {
        e.cpu = a;
        e.kind = b;
        e.task = c;
    }
    const std::string rest = line.substr(ctx_end + 2);
    const std::size_t comma = rest.rfind(", ");
    e.func = comma == std::string::npos ? rest : rest.substr(0, comma);
    if (comma != std::string::npos) {
        std::string src = rest.substr(comma + 2);
        const std::size_t paren = src.rfind('(');
        if (paren != std::string::npos && src.back() == ')')
            src = src.substr(0, paren) + ":" + src.substr(paren + 1, src.size() - paren - 2);
        e.source = src;
    }
    return true;
}

std::string dot_string(const std::string& s) {
    std::string r = "\"";
    for (char c : s) {
        if (c == '\n') {
            r += "\\n";
            continue;
        }
        if (c == '"' || c == '\\') r += '\\';
        r += c;
    }
    return r + "\"";
}

// "(reads [8], co 1/4" -> "8"; "" when the event reads nothing.
std::string reads_from(const std::string& what) {
    const std::size_t at = what.find("(reads [");
    if (at == std::string::npos) return "";
    return what.substr(at + 8, what.find(']', at) - at - 8);
}

// A write's location and place in coherence order: "store L := V (co 2/4)".
bool write_co(const std::string& what, std::string& loc, int& co) {
    std::size_t op = std::string::npos;
    for (const char* k : {"store ", "rmw write ", "init "})
        if (what.rfind(k, 0) == 0) op = std::string(k).size();
    if (op == std::string::npos) return false;
    const std::size_t assign = what.find(" := ", op);
    const std::size_t at = what.find("(co ", op);
    if (assign == std::string::npos || at == std::string::npos) return false;
    loc = what.substr(op, assign - op);
    co = std::atoi(what.c_str() + at + 4);
    return true;
}

}  // namespace

std::string trace_graph(const std::string& trace, const std::string& engine,
                        const std::string& title) {
    const bool relacy = engine == "relacy";
    std::vector<trace_event> events;
    std::string setup, head;
    std::map<std::string, std::vector<int>> stack;  // task -> open interrupt episodes
    int episodes = 0;
    std::map<int, std::pair<std::string, std::string>> episode_of;  // id -> (kind, task)
    std::istringstream in(trace);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("(setup", 0) == 0) {
            setup = line.substr(1, line.size() - 2);
            continue;
        }
        trace_event e;
        if (!parse_line(line, relacy, e)) {
            if (head.empty() && !line.empty()) head = line;
            continue;
        }
        if (!e.task.empty()) {
            // Episodes: "irq enter" opens one (ending an IRQ before it: back to back), an NMI
            // nests in what it interrupted, a task event closes them all, "... exit" its own.
            std::vector<int>& open = stack[e.task];
            const auto top_kind = [&] { return episode_of[open.back()].first; };
            const bool enter = e.what.rfind(e.kind + " enter", 0) == 0;
            if (e.kind == "task") open.clear();
            if (enter && e.kind == "irq") open.clear();
            if (!enter && e.kind != "task") {
                while (!open.empty() && top_kind() != e.kind) open.pop_back();
            }
            if (e.kind != "task" && (enter || open.empty())) {
                episode_of[++episodes] = {e.kind, e.task};
                open.push_back(episodes);
            }
            e.nest = open;
            if (e.what.rfind(e.kind + " exit", 0) == 0 && !open.empty()) open.pop_back();
        }
        events.push_back(e);
    }

    std::ostringstream dot;
    dot << "digraph counterexample {\n"
        << "  label=" << dot_string(title + (head.empty() ? "" : "\n" + head)) << ";\n"
        << "  labelloc=t; fontname=\"Helvetica\"; rankdir=TB; newrank=true;\n"
        << "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\","
           " fontsize=10];\n"
        << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
    if (!setup.empty())
        dot << "  setup [label=" << dot_string(setup) << ", shape=note, fillcolor=\"#eeeeee\"];\n";

    // Clusters: CPU, then task, then each interrupt episode nested as it ran.
    std::vector<std::string> cpus;
    for (const trace_event& e : events)
        if (!e.cpu.empty() && std::find(cpus.begin(), cpus.end(), e.cpu) == cpus.end())
            cpus.push_back(e.cpu);
    const auto node = [&](const trace_event& e) {
        const bool violation =
            e.what.rfind("violation: ", 0) == 0 || e.what.rfind("USER ASSERT FAILED", 0) == 0;
        const bool stale = e.what.find("NOT THE NEWEST") != std::string::npos ||
                           e.what.find("[NOT CURRENT]") != std::string::npos;
        std::string label = "[" + e.id + "] " + e.what;
        if (!e.source.empty()) label += "\n" + e.func + "  " + e.source;
        std::ostringstream n;
        n << "e" << e.id << " [label=" << dot_string(label);
        if (violation) n << ", fillcolor=\"#f4b6b6\", color=red, penwidth=2";
        // Relacy's [NOT CURRENT] is a stale read; dpor's NOT THE NEWEST only may be one.
        if (stale && e.what.find("[NOT CURRENT]") != std::string::npos)
            n << ", fillcolor=\"#ffe0a0\", color=\"#c07000\", penwidth=2";
        else if (stale)
            n << ", color=\"#c07000\", penwidth=2";
        n << "];\n";
        return n.str();
    };
    int cluster = 0;
    for (const std::string& cpu : cpus) {
        dot << "  subgraph cluster_" << ++cluster << " {\n    label=" << dot_string(cpu)
            << "; style=rounded; color=\"#4060a0\";\n";
        std::vector<std::string> tasks;
        for (const trace_event& e : events)
            if (e.cpu == cpu && std::find(tasks.begin(), tasks.end(), e.task) == tasks.end())
                tasks.push_back(e.task);
        for (const std::string& task : tasks) {
            const bool harness = task.empty();
            if (!harness)
                dot << "    subgraph cluster_" << ++cluster
                    << " {\n      label=" << dot_string("task " + task)
                    << "; style=dashed; color=gray40;\n";
            // Events at depth 0 here, then each episode's events in a nested cluster.
            std::map<int, std::vector<const trace_event*>> by_episode;
            for (const trace_event& e : events)
                if (e.cpu == cpu && e.task == task)
                    by_episode[e.nest.empty() ? 0 : e.nest.back()].push_back(&e);
            for (const trace_event* e : by_episode[0]) dot << "      " << node(*e);
            // Episodes in order, nested through their parents.
            std::vector<int> open;
            for (const auto& [ep, evs] : by_episode) {
                if (ep == 0) continue;
                const std::vector<int>& nest = evs.front()->nest;
                while (!open.empty() &&
                       std::find(nest.begin(), nest.end(), open.back()) == nest.end()) {
                    dot << "      }\n";
                    open.pop_back();
                }
                for (int p : nest) {
                    if (std::find(open.begin(), open.end(), p) != open.end()) continue;
                    dot << "      subgraph cluster_" << ++cluster
                        << " {\n        label=" << dot_string(episode_of[p].first)
                        << "; style=filled; color=\""
                        << (episode_of[p].first == "nmi" ? "#f0d8f0" : "#dde8f8") << "\";\n";
                    open.push_back(p);
                }
                for (const trace_event* e : evs) dot << "        " << node(*e);
            }
            for (; !open.empty(); open.pop_back()) dot << "      }\n";
            if (!harness) dot << "    }\n";
        }
        dot << "  }\n";
    }
    // Lines without a context (Relacy's "task T0 finished", ...).
    for (const trace_event& e : events)
        if (e.cpu.empty()) dot << "  " << node(e);

    // po: each task's events (with its interrupts) in trace order; the harness's as well.
    std::map<std::string, std::string> last;  // task -> previous event
    for (const trace_event& e : events) {
        if (e.cpu.empty()) continue;
        const std::string key = e.task.empty() ? "harness" : e.task;
        const auto it = last.find(key);
        if (it != last.end())
            dot << "  e" << it->second << " -> e" << e.id << " [color=gray50, weight=10];\n";
        else if (!setup.empty())
            dot << "  setup -> e" << e.id << " [style=invis];\n";
        last[key] = e.id;
    }
    // rf and co, where the trace names them (dpor).
    std::map<std::string, bool> shown;
    for (const trace_event& e : events) shown[e.id] = true;
    std::map<std::string, std::map<int, std::string>> writes;  // location -> co -> event
    for (const trace_event& e : events) {
        const std::string w = reads_from(e.what);
        if (!w.empty())
            dot << "  " << (shown.count(w) ? "e" + w : std::string("setup")) << " -> e" << e.id
                << " [label=" << dot_string(shown.count(w) ? "rf" : "rf [" + w + "]")
                << ", color=\"#2a8a2a\", fontcolor=\"#2a8a2a\", constraint=false];\n";
        std::string loc;
        int co = 0;
        if (write_co(e.what, loc, co)) writes[loc][co] = e.id;
    }
    for (const auto& [loc, chain] : writes) {
        const std::string* prev = nullptr;
        for (const auto& [co, id] : chain) {
            if (prev)
                dot << "  e" << *prev << " -> e" << id << " [label=" << dot_string("co " + loc)
                    << ", color=\"#a03030\", fontcolor=\"#a03030\", style=dashed, "
                       "constraint=false];\n";
            prev = &id;
        }
    }
    dot << "}\n";
    return dot.str();
}

namespace {
std::string extension(const std::string& path) {
    const std::size_t at = path.rfind('.');
    return at == std::string::npos ? "" : path.substr(at + 1);
}
}  // namespace

void check_graph_file(const std::string& path) {
    const std::string ext = extension(path);
    if (ext != "dot" && ext != "svg" && ext != "png")
        throw usage_error("--graph " + path + ": the file must end in .dot, .svg or .png");
    check_writable(path);
}

void write_graph(const std::string& path, const std::string& dot) {
    const std::string ext = extension(path);
    if (ext == "dot") {
        write_file(path, dot);
        return;
    }
    // svg, png: dot renders the text it reads from a temporary file next to the output.
    const std::string tmp = path + ".tmp.dot";
    write_file(tmp, dot);
    const std::string format = "-T" + ext;
    const std::string out = "-o" + path;
    const char* argv[] = {"dot", format.c_str(), out.c_str(), tmp.c_str(), nullptr};
    int ready[2];  // closed on exec; a byte in it says exec failed
    if (::pipe(ready) != 0) throw usage_error("--graph " + path + ": cannot start dot");
    ::fcntl(ready[1], F_SETFD, FD_CLOEXEC);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(ready[0]);
        ::execvp("dot", const_cast<char**>(argv));
        const char failed = 1;
        [[maybe_unused]] const ssize_t n = ::write(ready[1], &failed, 1);
        ::_exit(127);
    }
    ::close(ready[1]);
    char failed = 0;
    const bool started = pid > 0 && ::read(ready[0], &failed, 1) == 0;
    ::close(ready[0]);
    int status = 0;
    if (pid > 0) ::waitpid(pid, &status, 0);
    std::remove(tmp.c_str());
    const bool rendered = started && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!rendered) std::remove(path.c_str());  // no picture that looks complete
    if (!started)
        throw usage_error("--graph " + path +
                          ": cannot run Graphviz's dot (Debian package graphviz); a .dot file "
                          "needs no Graphviz");
    if (!rendered) throw usage_error("--graph " + path + ": Graphviz's dot failed to render it");
}

}  // namespace kverify::cli
