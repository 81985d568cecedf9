// SPDX-License-Identifier: GPL-2.0-only
// What the tests of the kverify command line share: running the binary and collecting its
// output, files in a fresh directory per test, small tables cut from the real one, and the
// shape of a usage error (exit 2, one line on stderr).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace kverify_cli_test {

using json = nlohmann::json;

inline const char* const small_rows = "^(kernel|litmus)/";

struct result {
    int status = -1;
    std::string out, err;
};

// Runs kverify with `args`, stdin closed, and collects stdout, stderr and the exit status.
inline result kverify(const std::vector<std::string>& args) {
    int out[2], err[2];
    if (::pipe(out) != 0 || ::pipe(err) != 0) std::abort();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
        const int null = ::open("/dev/null", O_RDONLY);
        ::dup2(null, 0);
        ::close(out[0]);
        ::close(err[0]);
        std::vector<char*> argv{const_cast<char*>(KVERIFY_BIN)};
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(KVERIFY_BIN, argv.data());
        ::_exit(127);
    }
    ::close(out[1]);
    ::close(err[1]);
    result r;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
        ::poll(fds, 2, -1);
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
            char buf[65536];
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                (i == 0 ? r.out : r.err).append(buf, std::size_t(n));
            } else {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    int ws = 0;
    ::waitpid(pid, &ws, 0);
    r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    return r;
}

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void spit(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

class cli : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/kverify-cli-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
    }
    void TearDown() override {
        if (!HasFailure()) std::system(("rm -rf '" + dir_ + "'").c_str());
    }
    std::string path(const std::string& name) const { return dir_ + "/" + name; }

    // A table of the given rows of the real one (check \t engine \t search ... as there),
    // with a comment on top; `edit` may change a row's fields.
    std::string small_table(const std::string& name, const std::vector<std::string>& checks) {
        std::istringstream in(slurp(KVERIFY_TABLE));
        std::string text = "# SPDX-License-Identifier: GPL-2.0-only\n# a test table\n\n", line;
        for (const std::string& c : checks) {
            std::istringstream again(slurp(KVERIFY_TABLE));
            bool found = false;
            while (std::getline(again, line))
                if (line.rfind(c + "\t", 0) == 0) {
                    text += line + "\n";
                    found = true;
                    break;
                }
            EXPECT_TRUE(found) << c;
        }
        text += "# trailing comment\n";
        spit(path(name), text);
        return path(name);
    }

    // A table of the real one's rows of these checks on these engines.
    std::string rows_table(const std::vector<std::pair<std::string, std::string>>& rows) {
        std::string text = "# SPDX-License-Identifier: GPL-2.0-only\n# rows of the real table\n";
        for (const auto& [check, engine] : rows) {
            std::istringstream in(slurp(KVERIFY_TABLE));
            std::string line;
            bool found = false;
            while (std::getline(in, line))
                if (line.rfind(check + "\t" + engine + "\t", 0) == 0) {
                    text += line + "\n";
                    found = true;
                    break;
                }
            EXPECT_TRUE(found) << check << " on " << engine;
        }
        spit(path("t.tsv"), text);
        return path("t.tsv");
    }

    // A table (file `name`) of the real one's quick rows whose check `keep` accepts, as they are
    // there; `rows` gets their number.
    std::string quick_rows_table(const std::string& name,
                                 const std::function<bool(const std::string& check)>& keep,
                                 unsigned& rows) {
        std::string text =
            "# SPDX-License-Identifier: GPL-2.0-only\n# quick rows of the real table\n";
        std::istringstream table(slurp(KVERIFY_TABLE));
        rows = 0;
        for (std::string line; std::getline(table, line);) {
            if (line.empty() || line[0] == '#') continue;
            if (line.substr(line.rfind('\t') + 1) != "quick") continue;
            if (!keep(line.substr(0, line.find('\t')))) continue;
            text += line + "\n";
            ++rows;
        }
        spit(path(name), text);
        return path(name);
    }

    // small_table with two rows pinned otherwise than the checker finds them:
    // kernel/smp-cas-two-cpus's count (495 pinned as 490: count-changed) and
    // kernel/spinlock-irqsave's verdict (pass pinned as deadlock: MISMATCH). `checks` holds both.
    std::string drifted_table(const std::string& name, const std::vector<std::string>& checks) {
        const std::string t = small_table(name, checks);
        std::string text = slurp(t);
        text.replace(text.find("\t495\t"), 5, "\t490\t");
        text.replace(text.find("\tpass\t3\t"), 8, "\tdeadlock\t3\t");
        spit(t, text);
        return t;
    }

    std::string dir_;
};

inline json rows_of(const std::string& json_path) {
    const json j = json::parse(slurp(json_path));
    EXPECT_EQ(j.at("kverify_results"), 1);
    return j.at("rows");
}

inline std::string key_of(const json& row) {
    return row.at("check").get<std::string>() + " " + row.at("engine").get<std::string>() + " " +
           row.at("search").get<std::string>();
}

// ----- bad input: exit 2 and one line naming what was wrong -----

struct bad_input {
    std::vector<std::string> args;
    std::string message;  // a part of the one-line message
};

inline void expect_usage_error(const result& r, const std::string& message) {
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << "stderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "not one line: " << r.err;
    EXPECT_EQ(r.err.rfind("kverify: ", 0), 0u) << r.err;
}

}  // namespace kverify_cli_test
