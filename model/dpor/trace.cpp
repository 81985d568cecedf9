// SPDX-License-Identifier: GPL-2.0-only
// Traces of violations in kernel terms (the kernel layer names the contexts) and replay strings:
// per thread, one token per event, enough to run exactly one execution again.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

#include "model/dpor/explorer.hpp"

namespace kverify::dpor::detail {

std::string explorer::ctx_label(unsigned t) const {
    if (opt_.context) {
        std::string s = opt_.context(t);
        if (!s.empty()) return s;
    }
    return t == 0 ? "harness" : "task " + std::to_string(t - 1);
}

// While tracing, names are markers (\x01 L|P hex \x02) that resolve_names replaces at the end of
// the run: memory is named (rt::name_memory) after it is constructed, and a name must also
// reach the events before that.
std::string explorer::loc_name(std::uintptr_t a) const {
    const loc_rt* l = locs_.find(a);
    if (!l) return "?";
    if (!tracing_) return "loc" + std::to_string(l->name);
    char buf[32];
    std::snprintf(buf, sizeof buf, "\x01L%llx\x02", static_cast<unsigned long long>(a));
    return buf;
}

std::string explorer::pointer_text(value_t v) const {
    if (v == 0) return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "\x01P%llx\x02", static_cast<unsigned long long>(v));
    return buf;
}

std::string explorer::value_text(std::uintptr_t loc, value_t v) const {
    return tracing_ && pointer_locs_.count(loc) ? pointer_text(v) : std::to_string(v);
}

void explorer::name_memory(const void* p, std::size_t bytes, const std::string& name) {
    if (tracing_) names_.push_back(named_range{reinterpret_cast<std::uintptr_t>(p), bytes, name});
}

void explorer::pointer_values(const void* loc) {
    if (tracing_) pointer_locs_.insert(reinterpret_cast<std::uintptr_t>(loc));
    if (opt_.model == memory_model::lkmm || opt_.hidden)  // (fingerprint.cpp, projection)
        pointer_names_.add_location(reinterpret_cast<std::uintptr_t>(loc));
}

// A message's addresses as %p prints them (0x and at least 6 hex digits) become pointer names.
std::string explorer::name_pointers_in(const std::string& msg) const {
    if (!tracing_) return msg;
    std::string r;
    for (std::size_t i = 0; i < msg.size();) {
        std::size_t j = i + 2;
        if (msg.compare(i, 2, "0x") == 0)
            while (j < msg.size() && std::isxdigit(static_cast<unsigned char>(msg[j]))) ++j;
        if (j - i >= 8) {
            r += pointer_text(std::strtoull(msg.substr(i + 2, j - i - 2).c_str(), nullptr, 16));
            i = j;
        } else {
            r += msg[i++];
        }
    }
    return r;
}

// Markers to names: a location by the smallest named range holding it (else locN), a pointer by
// the largest named range starting at it, the smallest holding it (name+offset), the location it
// points to (&name), or else @N in order of first appearance.
std::string explorer::resolve_names(const std::string& text) const {
    std::map<value_t, unsigned> anon;
    const auto in_range = [this](std::uintptr_t a, bool starting) -> const named_range* {
        const named_range* best = nullptr;
        for (const named_range& n : names_) {
            if (starting ? a != n.base : (a < n.base || a >= n.base + n.bytes)) continue;
            // ties: a pointer names the object (named first), a location its field (named after)
            if (!best || (starting ? n.bytes > best->bytes : n.bytes <= best->bytes)) best = &n;
        }
        return best;
    };
    const auto range_name = [](const named_range& n, std::uintptr_t a) {
        return a == n.base ? n.name : n.name + "+" + std::to_string(a - n.base);
    };
    const auto loc_text = [&](std::uintptr_t a) -> std::string {
        if (const named_range* n = in_range(a, false)) return range_name(*n, a);
        const loc_rt* l = locs_.find(a);
        return !l ? "?" : "loc" + std::to_string(l->name);
    };
    std::string r;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t end = text[i] == '\x01' ? text.find('\x02', i) : std::string::npos;
        if (end == std::string::npos || end < i + 3) {
            r += text[i++];
            continue;
        }
        const auto a =
            std::uintptr_t(std::strtoull(text.substr(i + 2, end - i - 2).c_str(), nullptr, 16));
        if (text[i + 1] == 'L') {
            r += loc_text(a);
        } else if (const named_range* n = in_range(a, true)) {
            r += n->name;
        } else if (const named_range* m = in_range(a, false)) {
            r += range_name(*m, a);
        } else if (locs_.count(a)) {
            r += "&" + loc_text(a);
        } else {
            auto it = anon.emplace(a, unsigned(anon.size()) + 1).first;
            r += "@" + std::to_string(it->second);
        }
        i = end + 1;
    }
    return r;
}

void explorer::trace_text(const std::string& s, src_loc where) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "[%u] ", ++trace_n_);
    trace_ += buf;
    trace_ += s;
    trace_ += ", in [" + ctx_label(cur_) + "] " + where.func + ", " + where.file + "(" +
              std::to_string(where.line) + ")\n";
}

void explorer::trace_event(eid id) {
    const event& e = ev(id);
    std::ostringstream s;
    auto write_ref = [&](eid w) {
        auto it = trace_no_.find({w.t, w.i});
        std::string r = it == trace_no_.end() ? "?" : "[" + std::to_string(it->second) + "]";
        return r;
    };
    auto co_pos = [&](eid w) {
        return std::to_string(g().co_index(w) + 1) + "/" +
               std::to_string(g().co.at(ev(w).loc).size());
    };
    switch (e.kind) {
        case ek::read: {
            const bool newest = g().co_max(e.loc) == e.rf;
            s << (e.rmw == rmw_op::none    ? "load "
                  : e.rmw == rmw_op::cas   ? "cas read "
                  : e.rmw == rmw_op::claim ? "claim read "
                                           : "rmw read ")
              << loc_name(e.loc) << " -> " << value_text(e.loc, e.val) << " (reads "
              << write_ref(e.rf) << ", co " << co_pos(e.rf) << (newest ? "" : ", NOT THE NEWEST")
              << "), " << to_string(e.read_order());
            if (e.full) s << " (fully ordered)";
            if (e.rmw == rmw_op::cas)
                s << (e.rmw_succeeds() ? ", succeeds"
                                       : ", fails: expected " + value_text(e.loc, e.arg));
            if (e.rmw == rmw_op::claim) s << (e.rmw_succeeds() ? ", succeeds" : ", fails: held");
            break;
        }
        case ek::write:
            s << (e.init                  ? "init "
                  : e.rmw != rmw_op::none ? "rmw write "
                                          : "store ")
              << loc_name(e.loc) << " := " << value_text(e.loc, e.val) << " (co " << co_pos(id)
              << "), " << to_string(e.order);
            break;
        case ek::fence:
            s << "fence " << to_string(e.order);
            break;
        case ek::choice:
            s << "choice " << e.val << " of " << e.arg;
            break;
        case ek::block:
            s << "blocked (" << e.reason << ")";
            break;
        case ek::hole:
            s << "hole";
            break;
    }
    trace_no_[{id.t, id.i}] = trace_n_ + 1;
    trace_text(s.str(), e.where);
}

// A replay string: per thread, one token per event (r<t>.<i> a read and the write it reads,
// w<k> a write and its place in coherence order, f a fence, c<v> a choice, b a block).
std::string explorer::encode_replay(const graph& gr) const {
    std::string s = "dpor1";
    for (unsigned t = 0; t < gr.th.size(); ++t) {
        s += t == 0 ? ":" : "|";
        for (std::uint32_t i = 0; i < gr.th[t].size(); ++i) {
            const event& e = gr.th[t][i];
            if (i) s += ",";
            switch (e.kind) {
                case ek::read:
                    s += "r" + std::to_string(e.rf.t) + "." + std::to_string(e.rf.i);
                    break;
                case ek::write:
                    s += "w" + std::to_string(gr.co_index(eid{std::uint16_t(t), i}));
                    break;
                case ek::fence:
                    s += "f";
                    break;
                case ek::choice:
                    s += "c" + std::to_string(e.val);
                    break;
                case ek::block:
                    s += "b";
                    break;
                case ek::hole:
                    s += "h";
                    break;
            }
        }
    }
    return s;
}

bool explorer::decode_replay(const std::string& s, graph& gr) const {
    if (s.compare(0, 6, "dpor1:") != 0) return false;
    std::vector<std::string> threads;
    std::string cur;
    for (std::size_t k = 6; k <= s.size(); ++k) {
        if (k == s.size() || s[k] == '|') {
            threads.push_back(cur);
            cur.clear();
        } else {
            cur += s[k];
        }
    }
    if (threads.size() != gr.th.size()) return false;
    std::uint32_t stamp = 1;
    for (unsigned t = 0; t < threads.size(); ++t) {
        std::istringstream in(threads[t]);
        std::string tok;
        while (std::getline(in, tok, ',')) {
            if (tok.empty()) return false;
            event e;
            e.stamp = stamp++;
            switch (tok[0]) {
                case 'r': {
                    e.kind = ek::read;
                    unsigned a = 0, b = 0;
                    if (std::sscanf(tok.c_str() + 1, "%u.%u", &a, &b) != 2 || a >= gr.th.size())
                        return false;
                    e.rf = eid{std::uint16_t(a), b};
                    break;
                }
                case 'w':
                    e.kind = ek::write;
                    e.arg = std::strtoull(tok.c_str() + 1, nullptr, 10);
                    break;
                case 'f':
                    e.kind = ek::fence;
                    break;
                case 'c':
                    e.kind = ek::choice;
                    e.val = std::strtoull(tok.c_str() + 1, nullptr, 10);
                    break;
                case 'b':
                    e.kind = ek::block;
                    break;
                case 'h':
                    e.kind = ek::hole;
                    e.stamp = UINT32_MAX;
                    break;
                default:
                    return false;
            }
            gr.th[t].push_back(e);
        }
    }
    for (unsigned t = 0; t < gr.th.size(); ++t)
        for (const event& e : gr.th[t])
            if (e.is_read() && e.rf.i >= gr.th[e.rf.t].size()) return false;
    gr.next_stamp = stamp;
    gr.partial = true;
    return true;
}

}  // namespace kverify::dpor::detail
