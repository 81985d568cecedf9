// SPDX-License-Identifier: GPL-2.0-only
// Tests of verify's child processes: none outlives a parent that is stopped or killed, and a
// child that makes no progress is stopped by the parent at its budget plus a grace. A child is
// made to hang with the documented test hook KVERIFY_TEST_HANG_CHILD.
#include <dirent.h>
#include <signal.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "tests/cli/cli_helpers.hpp"

namespace {

using namespace kverify_cli_test;

// Starts kverify with `args` and the hang hook, output to /dev/null; returns its pid.
pid_t start_hanging(const std::vector<std::string>& args) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setenv("KVERIFY_TEST_HANG_CHILD", "1", 1);
        const int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(null, 2);
        std::vector<char*> argv{const_cast<char*>(KVERIFY_BIN)};
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(KVERIFY_BIN, argv.data());
        ::_exit(127);
    }
    return pid;
}

// The fields of /proc/PID/stat after the command name: state, ppid, ...; "" when gone.
std::string stat_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t paren = s.rfind(')');
    return paren == std::string::npos ? "" : s.substr(paren + 2);
}

bool alive(pid_t pid) {
    const std::string s = stat_of(pid);
    return !s.empty() && s[0] != 'Z' && s[0] != 'X';
}

std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> r;
    DIR* d = ::opendir("/proc");
    if (!d) return r;
    while (const dirent* e = ::readdir(d)) {
        const pid_t pid = std::atoi(e->d_name);
        if (pid <= 0) continue;
        std::istringstream in(stat_of(pid));
        std::string state;
        pid_t ppid = 0;
        if (in >> state >> ppid && ppid == parent && state != "Z") r.push_back(pid);
    }
    ::closedir(d);
    return r;
}

// Waits until `parent` has `n` children running (at most 5 s).
std::vector<pid_t> wait_for_children(pid_t parent, std::size_t n) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    std::vector<pid_t> c;
    while ((c = children_of(parent)).size() < n && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return c;
}

// True when none of `pids` runs any more (waiting at most 3 s).
bool all_gone(const std::vector<pid_t>& pids) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    for (;;) {
        bool any = false;
        for (pid_t p : pids) any = any || alive(p);
        if (!any) return true;
        if (std::chrono::steady_clock::now() > until) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (pid_t p : pids) ::kill(p, SIGKILL);  // leave nothing behind for the next test
    return false;
}

class processes : public cli {
protected:
    std::vector<std::string> verify_args() {
        const std::string t = small_table(
            "t.tsv", {"kernel/smp-cas-two-cpus", "kernel/spinlock-irqsave", "litmus/mp/relaxed"});
        return {"verify", "--expected", t, "-j", "2", "--json", path("r.json")};
    }
};

TEST_F(processes, a_stopped_parent_stops_its_children_and_dies_of_the_signal) {
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
        SCOPED_TRACE(::strsignal(sig));
        const pid_t pid = start_hanging(verify_args());
        const std::vector<pid_t> kids = wait_for_children(pid, 2);
        ASSERT_EQ(kids.size(), 2u) << "verify -j 2 starts two children";
        ASSERT_EQ(::kill(pid, sig), 0);
        int ws = 0;
        ASSERT_EQ(::waitpid(pid, &ws, 0), pid);
        EXPECT_TRUE(WIFSIGNALED(ws) && WTERMSIG(ws) == sig) << "status " << ws;
        EXPECT_TRUE(all_gone(kids)) << "a child outlived its stopped parent";
        EXPECT_FALSE(std::ifstream(path("r.json")).good()) << "no result file from a stopped run";
    }
}

TEST_F(processes, a_child_does_not_outlive_a_parent_killed_outright) {
    // SIGKILL cannot be caught: the children's death signal must stop them.
    const pid_t pid = start_hanging(verify_args());
    const std::vector<pid_t> kids = wait_for_children(pid, 2);
    ASSERT_EQ(kids.size(), 2u);
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    ::waitpid(pid, nullptr, 0);
    EXPECT_TRUE(all_gone(kids)) << "a child outlived its killed parent";
}

TEST_F(processes, a_child_past_its_budget_is_stopped_and_its_row_inconclusive) {
    std::vector<std::string> args = verify_args();
    args.insert(args.end(), {"--budget", "0.2"});
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = start_hanging(args);
    int ws = 0;
    ASSERT_EQ(::waitpid(pid, &ws, 0), pid);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(WIFEXITED(ws)) << ws;
    EXPECT_EQ(WEXITSTATUS(ws), 3) << "inconclusive";
    EXPECT_LT(took, 6.0) << "the parent waited past budget and grace";
    const json rows = rows_of(path("r.json"));
    ASSERT_EQ(rows.size(), 3u);
    for (const json& row : rows) {
        EXPECT_EQ(row.at("status"), "inconclusive") << row.dump();
        EXPECT_NE(
            row.at("detail").get<std::string>().find("no progress / budget exceeded in child"),
            std::string::npos)
            << row.dump();
    }
    // the twin: the same rows and budget, children that do their work, are as pinned
    std::vector<std::string> plain = verify_args();
    plain.insert(plain.end(), {"--budget", "0.2"});
    const result r = kverify(plain);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
}

}  // namespace
