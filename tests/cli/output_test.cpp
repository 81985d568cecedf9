// SPDX-License-Identifier: GPL-2.0-only
// Tests of the result files as their readers see them: whole or absent (never a stale or
// partial file that passes for a result); JUnit as Jenkins reads it (plain decimal times, a
// classname with one dot, valid UTF-8); the table's path relative to the repository.
#include <dirent.h>

#include <fstream>
#include <regex>
#include <set>

#include <tinyxml2.h>

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

// Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool valid_utf8(const std::string& s) {
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const std::size_t n = c < 0x80         ? 1
                              : (c >> 5) == 6  ? 2
                              : (c >> 4) == 14 ? 3
                              : (c >> 3) == 30 ? 4
                                               : 0;
        if (n == 0 || i + n > s.size() || (n == 2 && c < 0xc2)) return false;
        std::uint32_t cp = n == 1 ? c : c & (0x7f >> n);
        for (std::size_t k = 1; k < n; ++k) {
            if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
            cp = cp << 6 | (static_cast<unsigned char>(s[i + k]) & 0x3f);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += n;
    }
    return true;
}

TEST_F(cli, junit_is_as_jenkins_reads_it) {
    const std::string t = small_table(
        "t.tsv", {"kernel/smp-cas-two-cpus", "objpool/v6.7/c2-o1", "litmus/mp/relaxed"});
    // An expected verdict that is not UTF-8 (a Latin-1 byte) was the way table text that is no
    // UTF-8 reached the XML; the table now refuses any verdict that is no class of its check, so
    // it never gets that far. A row that differs (data-race for a pass) gives the failure.
    std::string text = slurp(t);
    const std::size_t pass = text.find("\tpass\t", text.find("kernel/smp-cas-two-cpus"));
    std::string latin1 = text;
    spit(t, latin1.replace(pass, 6, "\tpas\xe9\t"));
    expect_usage_error(kverify({"verify", "--expected", t, "--junit", path("r.xml")}),
                       "has no verdict class 'pas\xe9'");
    EXPECT_FALSE(std::ifstream(path("r.xml")).good()) << "no result file from a refused table";
    spit(t, text.replace(pass, 6, "\tdata-race\t"));
    const result r = kverify({"verify", "--expected", t, "--junit", path("r.xml")});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    const std::string xml = slurp(path("r.xml"));
    EXPECT_TRUE(valid_utf8(xml)) << xml;
    tinyxml2::XMLDocument doc;
    ASSERT_EQ(doc.Parse(xml.c_str()), tinyxml2::XML_SUCCESS);
    const std::regex decimal("[0-9]+\\.[0-9]{6}");
    std::set<std::string> classnames;
    int cases = 0;
    for (auto* s = doc.FirstChildElement("testsuites")->FirstChildElement("testsuite"); s;
         s = s->NextSiblingElement("testsuite")) {
        EXPECT_TRUE(std::regex_match(s->Attribute("time"), decimal)) << s->Attribute("time");
        for (auto* c = s->FirstChildElement("testcase"); c; c = c->NextSiblingElement("testcase")) {
            ++cases;
            EXPECT_TRUE(std::regex_match(c->Attribute("time"), decimal)) << c->Attribute("time");
            const std::string cls = c->Attribute("classname");
            EXPECT_EQ(std::count(cls.begin(), cls.end(), '.'), 1) << cls;
            classnames.insert(cls);
        }
    }
    EXPECT_EQ(cases, 3);
    EXPECT_EQ(classnames.count("objpool.v6_7"), 1u) << "the variant's dots become '_'";
    EXPECT_NE(xml.find("expected data-race, got pass"), std::string::npos) << xml;
}

TEST_F(cli, the_table_path_is_relative_to_the_repository) {
    const result r = kverify({"verify", "--filter", "^kernel/smp-cas-two-cpus$", "--json",
                              path("r.json"), "--markdown", path("r.md")});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(json::parse(slurp(path("r.json"))).at("table"), "proofs/expected/verdicts.tsv");
    const std::string md = slurp(path("r.md"));
    EXPECT_NE(md.find("Table `proofs/expected/verdicts.tsv`"), std::string::npos) << md;
    // the twin: a table outside the repository is shown as given
    const std::string t = small_table("t.tsv", {"kernel/smp-cas-two-cpus"});
    ASSERT_EQ(kverify({"verify", "--expected", t, "--json", path("r.json")}).status, 0);
    EXPECT_EQ(json::parse(slurp(path("r.json"))).at("table"), t);
}

}  // namespace
