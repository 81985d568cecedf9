// SPDX-License-Identifier: GPL-2.0-only
// Traces of violations in kernel terms (the kernel layer names the contexts) and replay strings:
// per thread, one token per event, enough to run exactly one execution again.
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

std::string explorer::loc_name(std::uintptr_t a) const {
    auto it = locs_.find(a);
    if (it == locs_.end()) return "?";
    return "loc" + std::to_string(it->second.name);
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
            s << (e.rmw == rmw_op::none  ? "load "
                  : e.rmw == rmw_op::cas ? "cas read "
                                         : "rmw read ")
              << loc_name(e.loc) << " -> " << e.val << " (reads " << write_ref(e.rf) << ", co "
              << co_pos(e.rf) << (newest ? "" : ", NOT THE NEWEST") << "), "
              << to_string(e.read_order());
            if (e.full) s << " (fully ordered)";
            if (e.rmw == rmw_op::cas)
                s << (e.rmw_succeeds() ? ", succeeds"
                                       : ", fails: expected " + std::to_string(e.arg));
            break;
        }
        case ek::write:
            s << (e.init                  ? "init "
                  : e.rmw != rmw_op::none ? "rmw write "
                                          : "store ")
              << loc_name(e.loc) << " := " << e.val << " (co " << co_pos(id) << "), "
              << to_string(e.order);
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
