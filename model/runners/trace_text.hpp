// SPDX-License-Identifier: GPL-2.0-only
// Turns Relacy's output for a failing execution into the trace a reviewer reads: the global
// history only (not its per-thread repetition), without Relacy's construction and bookkeeping
// events or the scheduler's run-queue words, with source paths relative to the repository,
// template arguments dropped from function names, and addresses named @1, @2, ... in order of
// first appearance so that two runs of one execution print the same text.
// Pure text processing: no Relacy header needed.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace kverify::model::detail {

struct history_line {
    std::string index;   // "[12]"
    std::string thread;  // "0"
    std::string body;    // everything after "N: "
};

inline bool split_history_line(const std::string& line, history_line& out) {
    if (line.empty() || line[0] != '[') return false;
    const std::size_t close = line.find("] ");
    if (close == std::string::npos) return false;
    const std::size_t colon = line.find(": ", close + 2);
    if (colon == std::string::npos) return false;
    out.index = line.substr(0, close + 1);
    out.thread = line.substr(close + 2, colon - close - 2);
    out.body = line.substr(colon + 2);
    return true;
}

// "<0x55d3...>" at the start of an event: the location it touches.
inline std::string event_address(const std::string& body) {
    if (body.rfind("<0x", 0) != 0) return {};
    const std::size_t end = body.find('>');
    return end == std::string::npos ? std::string() : body.substr(1, end - 1);
}

inline bool is_hex_digit(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Names every hex number of 6 or more digits (addresses, and pointer values) @1, @2, ...
inline std::string name_addresses(const std::string& s, std::map<std::string, int>& names) {
    std::string r;
    for (std::size_t i = 0; i < s.size();) {
        if (s.compare(i, 2, "0x") == 0) {
            std::size_t j = i + 2;
            while (j < s.size() && is_hex_digit(s[j])) ++j;
            if (j - i - 2 >= 6) {
                const std::string hex = s.substr(i, j - i);
                auto it = names.find(hex);
                if (it == names.end()) it = names.emplace(hex, int(names.size()) + 1).first;
                r += "@" + std::to_string(it->second);
                i = j;
                continue;
            }
        }
        r += s[i++];
    }
    return r;
}

// ", in FUNC, FILE(LINE)" at the end of an event: drops template arguments from FUNC and the
// repository prefix from FILE.
inline std::string clean_location(const std::string& body, const std::string& source_dir) {
    const std::size_t in = body.rfind(", in ");
    if (in == std::string::npos) return body;
    std::string tail = body.substr(in);
    std::string untemplated;
    int depth = 0;
    const std::size_t file_start = tail.rfind(", ");
    for (std::size_t i = 0; i < tail.size(); ++i) {
        const char c = tail[i];
        // operator<< and friends keep their angle brackets: only balanced <...> after a name go
        if (i < file_start && c == '<' && i > 0 && tail[i - 1] != ' ' && tail[i - 1] != '<') {
            ++depth;
            continue;
        }
        if (depth > 0) {
            if (c == '<') ++depth;
            if (c == '>') --depth;
            continue;
        }
        untemplated += c;
    }
    if (!source_dir.empty()) {
        const std::string prefix = source_dir + "/";
        for (std::size_t p; (p = untemplated.find(prefix)) != std::string::npos;)
            untemplated.erase(p, prefix.size());
    }
    return body.substr(0, in) + untemplated;
}

// Relacy prints a failing execution as a header (the failure line, "iteration: N"), then
// "execution history (N):" with one line per event, a blank line, and the same events once
// more per thread. `raw` keeps the global history as Relacy printed it.
inline std::string clean_relacy_trace(const std::string& out, const std::string& source_dir,
                                      bool raw = false) {
    std::istringstream in(out);
    std::string line, header;
    std::vector<std::string> events;
    bool in_history = false;
    while (std::getline(in, line)) {
        if (!in_history) {
            if (line.rfind("execution history", 0) == 0)
                in_history = true;
            else if (!line.empty() && line.find_first_of(" :") != std::string::npos &&
                     line.rfind("iteration:", 0) != 0)
                header += line + "\n";  // the failure line
            continue;
        }
        if (line.empty()) break;
        events.push_back(line);
    }
    if (raw) {
        std::string r = header;
        for (const std::string& e : events) r += e + "\n";
        return r;
    }

    // The scheduler's per-CPU run-queue words are constructed in harness::runqueues (relacy.cpp):
    // their addresses identify the run-queue RMWs of CPU handoffs later on.
    std::set<std::string> runqueue_words;
    for (const std::string& e : events) {
        history_line h;
        if (split_history_line(e, h) && h.body.find(", in runqueues, ") != std::string::npos)
            runqueue_words.insert(event_address(h.body));
    }

    std::map<std::string, int> names;
    std::string r = name_addresses(header, names);
    unsigned n = 0, hidden = 0;
    bool in_ctor = false;
    const auto emit = [&](const history_line& h, const std::string& body) {
        r += "[" + std::to_string(++n) + "] " + h.thread + ": " +
             name_addresses(clean_location(body, source_dir), names) + "\n";
    };
    for (const std::string& e : events) {
        history_line h;
        if (!split_history_line(e, h)) continue;
        const std::string& b = h.body;
        if (b.rfind("[CTOR BEGIN]", 0) == 0) {
            in_ctor = true;
            continue;
        }
        if (b.rfind("[CTOR END]", 0) == 0) {
            in_ctor = false;
            r += "(setup: the scenario and its objects constructed, " + std::to_string(hidden) +
                 " events not shown)\n";
            continue;
        }
        if (in_ctor) {
            ++hidden;
            continue;
        }
        if (b.rfind("[BEFORE ", 0) == 0 || b.rfind("[AFTER END]", 0) == 0 ||
            b.rfind("[DTOR ", 0) == 0)
            continue;
        if (runqueue_words.count(event_address(b))) continue;
        if (b.rfind("[THREAD FINISHED]", 0) == 0) {
            emit(h, "task T" + h.thread + " finished");
            continue;
        }
        if (b.rfind("[AFTER BEGIN]", 0) == 0) {
            emit(h, "all tasks done: quiescence checks (after)");
            continue;
        }
        emit(h, b);
    }
    return r;
}

}  // namespace kverify::model::detail
