// SPDX-License-Identifier: GPL-2.0-only
// Tests of the result files as their readers see them: whole or absent (never a stale or
// partial file that passes for a result).
#include <dirent.h>

#include <set>

#include "tests/cli/cli_helpers.hpp"

namespace {

using namespace kverify_cli_test;

std::set<std::string> files_in(const std::string& dir) {
    std::set<std::string> r;
    DIR* d = ::opendir(dir.c_str());
    if (!d) return r;
    while (const dirent* e = ::readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") r.insert(e->d_name);
    ::closedir(d);
    return r;
}

TEST_F(cli, result_files_are_whole_or_absent) {
    const std::string t = small_table("t.tsv", {"kernel/smp-cas-two-cpus", "litmus/mp/relaxed"});
    const std::vector<std::string> outputs = {"--json",      path("r.json"), "--junit",
                                              path("r.xml"), "--markdown",   path("r.md")};
    const auto with_outputs = [&](std::vector<std::string> args) {
        args.insert(args.end(), outputs.begin(), outputs.end());
        return args;
    };

    // A first run that fails before its searches leaves no file at all.
    spit(path("bad.tsv"), "no tabs here\n");
    expect_usage_error(kverify(with_outputs({"verify", "--expected", path("bad.tsv")})),
                       "bad.tsv:1:");
    EXPECT_EQ(files_in(dir_), (std::set<std::string>{"bad.tsv", "t.tsv"}));

    // A run that completes leaves exactly its files, and no partial ones beside them.
    const result ok = kverify(with_outputs({"verify", "--expected", t}));
    ASSERT_EQ(ok.status, 0) << ok.out << ok.err;
    EXPECT_EQ(files_in(dir_),
              (std::set<std::string>{"bad.tsv", "t.tsv", "r.json", "r.xml", "r.md"}));
    ASSERT_FALSE(rows_of(path("r.json")).empty());

    // A merge that fails (exit 2) leaves none of the earlier run's green files behind.
    spit(path("junk.json"), "{not json");
    expect_usage_error(kverify(with_outputs({"merge", path("junk.json")})),
                       "not a kverify --json result file");
    EXPECT_EQ(files_in(dir_), (std::set<std::string>{"bad.tsv", "t.tsv", "junk.json"}));
}

TEST_F(cli, a_directory_where_a_file_is_due_is_one_line_and_exit_2) {
    expect_usage_error(kverify({"replay", dir_}), "is a directory");
    expect_usage_error(kverify({"merge", dir_}), "is a directory");
    expect_usage_error(kverify({"verify", "--expected", dir_}), "is a directory");
    expect_usage_error(kverify({"verify", "--json", dir_}), "is a directory");
    // the twin: a file that is there replays
    ASSERT_EQ(kverify({"run", "kernel/local-cas-two-cpus-unchecked", "--no-shrink", "--save-replay",
                       path("cex.json")})
                  .status,
              1);
    EXPECT_EQ(kverify({"replay", path("cex.json")}).status, 1);
}

}  // namespace
