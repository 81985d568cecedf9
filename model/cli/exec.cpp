// SPDX-License-Identifier: GPL-2.0-only
// Running checks: each row of a table run in a child process of its own (Relacy keeps global
// state, so searches never share a process), at most -j at once, none outliving the parent or
// its own budget; a progress line on stderr when it is a terminal; shrinking a counterexample
// by re-running smaller searches.
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>
#include <stdexcept>

#include "model/cli/cli.hpp"

namespace kverify::cli {
namespace {

using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t) {
    return std::chrono::duration<double>(clock_type::now() - t).count();
}

void write_all(int fd, const char* p, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= std::size_t(w);
    }
}

unsigned terminal_width() {
    winsize ws{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
    return 80;
}

// One status line on stderr, redrawn in place; cleared before anything else is printed.
class status_line {
public:
    void show(std::string s) {
        const unsigned w = terminal_width() - 1;
        if (s.size() > w) s.resize(w);
        s = "\r" + s + "\033[K";
        write_all(STDERR_FILENO, s.data(), s.size());
        shown_ = true;
    }
    void clear() {
        if (!shown_) return;
        write_all(STDERR_FILENO, "\r\033[K", 4);
        shown_ = false;
    }

private:
    bool shown_ = false;
};

// "12345 executions, 4.1k/s"
std::string rate_text(std::uint64_t executions, double seconds) {
    char buf[64];
    const double rate = seconds > 0 ? double(executions) / seconds : 0;
    if (rate >= 1000)
        std::snprintf(buf, sizeof buf, "%llu executions, %.1fk/s",
                      static_cast<unsigned long long>(executions), rate / 1000);
    else
        std::snprintf(buf, sizeof buf, "%llu executions, %.0f/s",
                      static_cast<unsigned long long>(executions), rate);
    return buf;
}

std::string job_title(const job& j) {
    std::string s = j.c->name + " " + j.engine + " " + j.spec.str();
    if (j.spec.limits.any()) s += " " + j.spec.limits.str();
    return s;
}

// ----- in a child process: progress messages to the parent -----

struct child_progress {
    int fd = -1;
    clock_type::time_point last{};
};

void child_tick(void* arg, std::uint64_t executions) {
    // Runs inside the search: no allocation, only a stack buffer and write(2).
    auto* p = static_cast<child_progress*>(arg);
    const auto now = clock_type::now();
    if (now - p->last < std::chrono::milliseconds(200)) return;
    p->last = now;
    char buf[32];
    const int n =
        std::snprintf(buf, sizeof buf, "p %llu\n", static_cast<unsigned long long>(executions));
    write_all(p->fd, buf, std::size_t(n));
}

// The signals that stop a run: the parent stops its children on each, then dies of it.
constexpr int stop_signals[] = {SIGTERM, SIGINT, SIGHUP};

[[noreturn]] void child_main(const job& j, int fd, pid_t parent) {
    // Never outlive the parent: killed when it dies, and gone at once if it died before this.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    for (int sig : stop_signals) std::signal(sig, SIG_DFL);
    std::signal(SIGPIPE, SIG_IGN);
    // A test hook (model/cli/MANUAL.md): a child that makes no progress at all.
    if (std::getenv("KVERIFY_TEST_HANG_CHILD") != nullptr)
        for (;;) ::pause();
    child_progress cp;
    cp.fd = fd;
    model::progress() = {&child_tick, &cp};
    verdict v;
    try {
        v = j.c->run(j.engine, j.spec);
    } catch (const std::exception& e) {
        v.engine = j.engine;
        v.search = j.spec;
        v.outcome = "error";
        v.detail = e.what();
    }
    const std::string msg =
        "v " + verdict_to_json(v).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    write_all(fd, msg.data(), msg.size());
    ::_exit(0);  // no atexit handlers, no stdio flush: the parent owns those
}

struct running {
    std::size_t index = 0;
    pid_t pid = -1;
    int fd = -1;
    std::string buf;
    std::uint64_t executions = 0;
    clock_type::time_point start;
    std::optional<verdict> v;
};

// The parent's own limit on a child: its row's budget plus a grace as long again (a dpor
// violation is searched once more under SC within the same budget) and a second; 0 = none.
double child_deadline(const job& j) { return j.spec.budget_s > 0 ? 2 * j.spec.budget_s + 1 : 0; }

volatile std::sig_atomic_t stop_signal = 0;
extern "C" void on_stop_signal(int sig) { stop_signal = sig; }

// Catches the stop signals while children run (no SA_RESTART: poll returns early), and puts
// the previous handlers back.
class stop_handlers {
public:
    stop_handlers() {
        stop_signal = 0;
        struct sigaction sa {};
        sa.sa_handler = &on_stop_signal;
        sigemptyset(&sa.sa_mask);
        for (std::size_t i = 0; i < std::size(stop_signals); ++i)
            ::sigaction(stop_signals[i], &sa, &old_[i]);
    }
    ~stop_handlers() {
        for (std::size_t i = 0; i < std::size(stop_signals); ++i)
            ::sigaction(stop_signals[i], &old_[i], nullptr);
    }

private:
    struct sigaction old_[std::size(stop_signals)]{};
};

verdict error_verdict(const job& j, const std::string& what) {
    verdict v;
    v.engine = j.engine;
    v.search = j.spec;
    v.outcome = "error";
    v.detail = what;
    return v;
}

// Consumes complete lines of the child's messages.
void take_messages(running& r) {
    for (std::size_t nl; (nl = r.buf.find('\n')) != std::string::npos;) {
        const std::string line = r.buf.substr(0, nl);
        r.buf.erase(0, nl + 1);
        if (line.rfind("p ", 0) == 0) {
            r.executions = std::strtoull(line.c_str() + 2, nullptr, 10);
        } else if (line.rfind("v ", 0) == 0) {
            const json j = json::parse(line.substr(2), nullptr, false);
            if (!j.is_discarded()) r.v = verdict_from_json(j);
        }
    }
}

// ----- in this process: a progress line -----

struct here_progress {
    const char* label = "";
    clock_type::time_point start{}, last{};
    bool shown = false;
};

void here_tick(void* arg, std::uint64_t executions) {
    auto* p = static_cast<here_progress*>(arg);
    const auto now = clock_type::now();
    if (now - p->last < std::chrono::milliseconds(250)) return;
    p->last = now;
    const double s = std::chrono::duration<double>(now - p->start).count();
    char buf[512];
    const int n = std::snprintf(buf, sizeof buf, "\r%.*s: %llu executions, %.0f/s, %.1f s\033[K",
                                int(terminal_width()) - 40, p->label,
                                static_cast<unsigned long long>(executions),
                                s > 0 ? double(executions) / s : 0.0, s);
    write_all(STDERR_FILENO, buf, std::size_t(std::min(n, int(sizeof buf) - 1)));
    p->shown = true;
}

}  // namespace

unsigned default_jobs() {
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return unsigned(CPU_COUNT(&set));
    const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? unsigned(n) : 1;
}

void run_jobs(const std::vector<job>& jobs, unsigned parallel, bool progress,
              const std::function<void(std::size_t, const verdict&)>& done) {
    const auto t0 = clock_type::now();
    std::vector<running> active;
    std::vector<std::optional<verdict>> finished(jobs.size());
    std::size_t next = 0, next_done = 0, completed = 0;
    status_line status;
    auto last_draw = clock_type::now() - std::chrono::seconds(1);
    const pid_t parent = ::getpid();
    stop_handlers handlers;

    const auto draw = [&](bool force) {
        if (!progress || (!force && since(last_draw) < 0.25)) return;
        last_draw = clock_type::now();
        char head[64];
        std::snprintf(head, sizeof head, "[%zu/%zu %.0f s]", completed, jobs.size(), since(t0));
        std::string s = head;
        for (const running& r : active)
            s += "  " + job_title(jobs[r.index]) + ": " + rate_text(r.executions, since(r.start));
        status.show(s);
    };

    while (completed < jobs.size()) {
        if (stop_signal != 0) {
            // Stopped (kill, a CI cancel, ^C): no child may go on searching.
            for (const running& r : active) ::kill(r.pid, SIGKILL);
            for (const running& r : active)
                while (::waitpid(r.pid, nullptr, 0) < 0 && errno == EINTR) {
                }
            status.clear();
            const int sig = stop_signal;
            std::fflush(stdout);
            std::signal(sig, SIG_DFL);
            ::raise(sig);
            ::_exit(128 + sig);
        }
        while (active.size() < parallel && next < jobs.size()) {
            int fds[2];
            if (::pipe2(fds, O_CLOEXEC) != 0) throw usage_error("cannot create a pipe");
            std::fflush(stdout);
            std::fflush(stderr);
            const pid_t pid = ::fork();
            if (pid < 0) throw usage_error("cannot fork a process for a check");
            if (pid == 0) {
                ::close(fds[0]);
                child_main(jobs[next], fds[1], parent);
            }
            ::close(fds[1]);
            running r;
            r.index = next++;
            r.pid = pid;
            r.fd = fds[0];
            r.start = clock_type::now();
            active.push_back(std::move(r));
        }

        std::vector<pollfd> pfds;
        for (const running& r : active) pfds.push_back({r.fd, POLLIN, 0});
        // Woken often enough to see a stop signal or a child past its deadline.
        const int n = ::poll(pfds.data(), pfds.size(), 100);
        if (n < 0 && errno != EINTR) throw usage_error("poll failed");
        for (running& r : active) {
            const double limit = child_deadline(jobs[r.index]);
            if (limit <= 0 || r.v || since(r.start) < limit) continue;
            // Past its budget and the grace: the parent stops waiting for it.
            ::kill(r.pid, SIGKILL);
            char buf[160];
            std::snprintf(buf, sizeof buf,
                          "no progress / budget exceeded in child: killed after %.1f s (budget "
                          "%g s plus grace)",
                          since(r.start), jobs[r.index].spec.budget_s);
            r.v = error_verdict(jobs[r.index], buf);
            r.v->outcome = "inconclusive";
            r.v->seconds = since(r.start);
        }
        for (std::size_t i = 0; n > 0 && i < active.size(); ++i) {
            if (!(pfds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            running& r = active[i];
            char buf[65536];
            const ssize_t got = ::read(r.fd, buf, sizeof buf);
            if (got > 0) {
                r.buf.append(buf, std::size_t(got));
                take_messages(r);
                continue;
            }
            if (got < 0 && errno == EINTR) continue;
            // End of the child's messages: collect it.
            ::close(r.fd);
            r.fd = -1;
            int ws = 0;
            while (::waitpid(r.pid, &ws, 0) < 0 && errno == EINTR) {
            }
            const job& j = jobs[r.index];
            if (r.v) {
                finished[r.index] = *r.v;
            } else if (WIFSIGNALED(ws)) {
                finished[r.index] =
                    error_verdict(j, std::string("the check's process was killed by signal ") +
                                         ::strsignal(WTERMSIG(ws)));
            } else {
                finished[r.index] =
                    error_verdict(j, "the check's process exited with status " +
                                         std::to_string(WEXITSTATUS(ws)) + " without a verdict");
            }
            ++completed;
        }
        for (std::size_t i = active.size(); i-- > 0;)
            if (active[i].fd < 0) active.erase(active.begin() + long(i));

        // Hand results over in job order.
        bool printed = false;
        while (next_done < jobs.size() && finished[next_done]) {
            if (!printed) status.clear();
            printed = true;
            done(next_done, *finished[next_done]);
            ++next_done;
        }
        draw(printed);
    }
    status.clear();
}

verdict run_here(const job& j, bool progress, const std::string& label) {
    here_progress hp;
    hp.label = label.c_str();
    hp.start = hp.last = clock_type::now();
    if (progress) model::progress() = {&here_tick, &hp};
    verdict v;
    try {
        v = j.c->run(j.engine, j.spec);
    } catch (...) {
        model::progress() = {};
        if (hp.shown) write_all(STDERR_FILENO, "\r\033[K", 4);
        throw;
    }
    model::progress() = {};
    if (hp.shown) write_all(STDERR_FILENO, "\r\033[K", 4);
    return v;
}

shrink_result shrink(const job& j, const verdict& found, bool progress) {
    shrink_result r;
    r.v = found;
    if (!found.found_violation()) return r;
    // All trials together explore at most twice the executions of the original search, and at
    // least 20000: shrinking is done when it is cheap, and skipped in effect when it is not.
    const std::uint64_t effort = std::max<std::uint64_t>(2 * found.executions, 20000);
    job best = j;
    best.spec.replay.clear();

    const auto attempt = [&](const search_spec& s) {
        if (r.executions >= effort) return false;
        job t = best;
        t.spec = s;
        t.spec.execution_cap = effort - r.executions;
        verdict v;
        try {
            v = run_here(t, progress, "shrinking: " + job_title(t));
        } catch (const std::invalid_argument&) {
            return false;  // a search this engine does not offer (dpor: exhaustive only)
        }
        ++r.searches;
        r.executions += v.executions;
        if (v.outcome != found.outcome) return false;
        best.spec = s;
        r.v = v;
        r.shrunk = true;
        return true;
    };

    // Fewer preemptive context switches first: bounded:0, 1, ... below the original.
    const unsigned top = j.spec.kind == model::search_kind::bounded ? j.spec.bound : 3;
    for (unsigned k = 0; k < top; ++k) {
        search_spec s = best.spec;
        s.kind = model::search_kind::bounded;
        s.bound = k;
        s.samples = 0;
        if (attempt(s)) break;
    }
    // Then smaller interrupt and migration budgets, one kind at a time.
    const model::check_budgets& b = j.c->budgets;
    const std::pair<int model::search_limits::*, unsigned> dims[] = {
        {&model::search_limits::migrations, b.migrations},
        {&model::search_limits::nmi, b.nmi},
        {&model::search_limits::irq, b.irq}};
    for (const auto& [field, budget] : dims)
        for (unsigned cap = 0; cap < budget; ++cap) {
            search_spec s = best.spec;
            s.limits.*field = int(cap);
            if (attempt(s)) break;
        }
    r.v.search.execution_cap = 0;
    return r;
}

}  // namespace kverify::cli
