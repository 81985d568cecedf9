// SPDX-License-Identifier: GPL-2.0-only
// Tests of the report page, `verify --html DIR` and `merge --html DIR`, read as text (the browser
// test, tests/browser, renders it): the matrix, the rows that differ first, a violation's cell
// and its details, every text escaped, the directory written whole or refused.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/cli/cli_helpers.hpp"

namespace {

using namespace kverify_cli_test;

using cli_html = cli;

// Every row of the real table for the given checks, in its order.
std::string rows_of_checks(const std::vector<std::string>& checks) {
    std::istringstream in(slurp(KVERIFY_TABLE));
    std::string text = "# SPDX-License-Identifier: GPL-2.0-only\n# a test table\n", line;
    while (std::getline(in, line))
        for (const std::string& c : checks)
            if (line.rfind(c + "\t", 0) == 0) text += line + "\n";
    return text;
}

const std::vector<std::string> four = {"kernel/smp-cas-two-cpus", "kernel/spinlock-irqsave",
                                       "kernel/local-cas-two-cpus", "litmus/mp/relaxed"};

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

// The text between `from` and the next `to` after it, "" when `from` is not there.
std::string between(const std::string& s, const std::string& from, const std::string& to) {
    const std::size_t a = s.find(from);
    if (a == std::string::npos) return "";
    const std::size_t b = s.find(to, a + from.size());
    return s.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

bool valid_utf8(const std::string& s) {
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const std::size_t n = c < 0x80                 ? 1
                              : c >= 0xc2 && c <= 0xdf ? 2
                              : c >= 0xe0 && c <= 0xef ? 3
                              : c >= 0xf0 && c <= 0xf4 ? 4
                                                       : 0;
        if (n == 0 || i + n > s.size()) return false;
        for (std::size_t k = 1; k < n; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
        i += n;
    }
    return true;
}

TEST_F(cli_html, the_page_shows_the_rows_that_differ_first_then_the_matrix_and_each_cells_rows) {
    std::string text = rows_of_checks(four);
    const std::string row = "kernel/spinlock-irqsave\trelacy\texhaustive\tpass\t";
    text.replace(text.find(row), row.size(),
                 "kernel/spinlock-irqsave\trelacy\texhaustive\tdeadlock\t");
    spit(path("t.tsv"), text);
    const result r = kverify({"verify", "--expected", path("t.tsv"), "--html", path("report")});
    ASSERT_EQ(r.status, 1) << r.out << r.err;
    const std::string page = slurp(path("report/index.html"));
    EXPECT_EQ(
        page.rfind("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">", 0), 0u);
    EXPECT_NE(page.find("</body>\n</html>\n"), std::string::npos);
    for (const char* f : {"report.css", "report.js", ".kverify-report"})
        EXPECT_TRUE(exists(path("report/") + f)) << f;
    // Nothing is fetched from elsewhere when the page is viewed.
    for (const std::string& file : {page, slurp(path("report/report.css"))})
        for (const char* external : {"http:", "https:", "src=\"//", "href=\"//", "url("})
            EXPECT_EQ(file.find(external), std::string::npos) << external;
    // The totals, then the rows that differ, before the first matrix.
    EXPECT_NE(page.find("<p class=\"totals\" id=\"totals\">14 checks: 13 as expected, 1 differ, 0 "
                        "count changed, 0 inconclusive</p>"),
              std::string::npos)
        << page;
    const std::size_t differ = page.find("<h2>Rows that differ from the table (1)</h2>");
    const std::size_t mismatch = page.find(
        "\">kernel/spinlock-irqsave relacy exhaustive</a>: MISMATCH, expected deadlock, got pass");
    const std::size_t matrix = page.find("<section class=\"algorithm\"");
    EXPECT_LT(differ, mismatch);
    EXPECT_LT(mismatch, matrix);
    EXPECT_NE(matrix, std::string::npos);
    // A matrix per algorithm, a line per model of a variant (LKMM where rows exist).
    for (const char* part :
         {"<table class=\"matrix\" data-algorithm=\"kernel-model\">",
          "<table class=\"matrix\" data-algorithm=\"litmus\">", "<th class=\"model\">SC</th>",
          "<th class=\"model\">RC11</th>", "<th class=\"model\">LKMM</th>",
          "<th class=\"model\">Relacy</th>", "<td class=\"differs\"><a href=\"#c",
          "<td class=\"pass\"><a href=\"#c"})
        EXPECT_NE(page.find(part), std::string::npos) << part;

    // A known violation: local-cas-two-cpus on Relacy, its cell and its details.
    const std::string cell = between(
        page, "\" title=\"kernel/local-cas-two-cpus on Relacy: exhaustive single-owner\"", "</td>");
    ASSERT_NE(cell, "") << page;
    const std::size_t open = page.rfind("<td ", page.find(cell));
    const std::string td = page.substr(open, page.find(cell) - open);
    EXPECT_EQ(td.rfind("<td class=\"violation\"><a href=\"#c", 0), 0u) << td;
    const std::string id = td.substr(td.find("#") + 1, td.rfind('"') - td.find("#") - 1);
    const std::string details =
        between(page, "<section class=\"cell\" id=\"" + id + "\">", "</section>");
    ASSERT_NE(details, "") << id;
    for (const char* part :
         {"<h3>kernel/local-cas-two-cpus on Relacy (relacy)</h3>",
          "<dt>verdict</dt><dd "
          "class=\"verdict\">single-owner</dd><dt>expected</dt><dd>single-owner",
          "<dt>search</dt><dd>exhaustive</dd>", "<dt>executions</dt><dd>1 (pinned 1)</dd>",
          "<dt>time</dt>", "<h4>trace</h4>\n<pre class=\"trace\">", "<img src=\"graphs/r",
          "./kverify check kernel/local-cas-two-cpus exhaustive --engine relacy\n"
          "./kverify run kernel/local-cas-two-cpus --engine relacy --search exhaustive"})
        EXPECT_NE(details.find(part), std::string::npos) << part << " not in\n" << details;
    const std::string svg = between(details, "<img src=\"", ".svg\"").substr(10) + ".svg";
    EXPECT_NE(slurp(path("report/") + svg).find("<svg"), std::string::npos) << svg;

    // The twin of "differs first": the table as it is, nothing differs.
    spit(path("t.tsv"), rows_of_checks(four));
    const result ok = kverify({"verify", "--expected", path("t.tsv"), "--html", path("report")});
    ASSERT_EQ(ok.status, 0) << ok.out << ok.err;
    const std::string calm = slurp(path("report/index.html"));
    EXPECT_NE(calm.find("<h2>Rows that differ from the table (0)</h2>\n<p>none"),
              std::string::npos);
    EXPECT_EQ(calm.find("<td class=\"differs\">"), std::string::npos);
    EXPECT_EQ(calm.find("MISMATCH"), std::string::npos);

    // Without Graphviz the page carries the dot text instead of a picture.
    const std::string saved = std::getenv("PATH");
    ::setenv("PATH", "/nonexistent", 1);
    const result no_dot = kverify({"verify", "--expected", path("t.tsv"), "--html", path("nodot")});
    ::setenv("PATH", saved.c_str(), 1);
    ASSERT_EQ(no_dot.status, 0) << no_dot.err;
    const std::string plain = slurp(path("nodot/index.html"));
    EXPECT_NE(plain.find("Graphviz's dot is not installed"), std::string::npos);
    EXPECT_NE(plain.find("<pre class=\"dot\">digraph"), std::string::npos);
    EXPECT_EQ(plain.find("<img src="), std::string::npos);
}

TEST_F(cli_html, every_text_on_the_page_is_escaped) {
    // A table whose name is markup, quotes and a byte that is no UTF-8.
    const std::string hostile = path("t<script>alert(\"t\")'&\xff.tsv");
    spit(hostile, rows_of_checks({"kernel/local-cas-two-cpus", "kernel/spinlock-irqsave"}));
    const result r = kverify(
        {"verify", "--expected", hostile, "--json", path("v.json"), "--html", path("report")});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const std::string page = slurp(path("report/index.html"));
    EXPECT_TRUE(valid_utf8(page));
    EXPECT_EQ(page.find("<script>alert"), std::string::npos);
    EXPECT_NE(page.find("t&lt;script&gt;alert(&quot;t&quot;)&#39;&amp;\xef\xbf\xbd.tsv"),
              std::string::npos)
        << page;

    // Rows whose trace and message are markup, merged into a page.
    json j = json::parse(slurp(path("v.json")));
    for (json& row : j["rows"]) {
        row["trace"] = "[1] </pre><script>alert('x')</script>\x01\n";
        row["detail"] = "\" onmouseover=\"alert(1)";
    }
    spit(path("edited.json"), j.dump());
    const result m = kverify({"merge", path("edited.json"), "--html", path("merged")});
    ASSERT_EQ(m.status, 0) << m.out << m.err;
    const std::string merged = slurp(path("merged/index.html"));
    EXPECT_TRUE(valid_utf8(merged));
    EXPECT_NE(merged.find("[1] &lt;/pre&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;?\n"),
              std::string::npos)
        << merged;
    EXPECT_NE(merged.find("&quot; onmouseover=&quot;alert(1)"), std::string::npos);
    EXPECT_EQ(merged.find("\" onmouseover"), std::string::npos);
    // The one script is the page's own.
    const std::string::size_type first = merged.find("<script");
    EXPECT_EQ(merged.substr(first, 35), "<script src=\"report.js\"></script>\n<");
    EXPECT_EQ(merged.find("<script", first + 1), std::string::npos);
}

TEST_F(cli_html, the_directory_is_written_whole_or_refused) {
    spit(path("t.tsv"), rows_of_checks({"kernel/spinlock-irqsave"}));
    // A directory that is no report of ours is left alone, and so is a file.
    ASSERT_EQ(::mkdir(path("mine").c_str(), 0755), 0);
    spit(path("mine/keep"), "mine");
    expect_usage_error(kverify({"verify", "--expected", path("t.tsv"), "--html", path("mine")}),
                       "exists and is no kverify report");
    EXPECT_EQ(slurp(path("mine/keep")), "mine");
    spit(path("file"), "a file");
    expect_usage_error(kverify({"verify", "--expected", path("t.tsv"), "--html", path("file")}),
                       "exists and is not a directory");
    expect_usage_error(kverify({"verify", "--expected", path("t.tsv"), "--html", path("r"),
                                "--json", path("r/rows.json")}),
                       "the --html directory is no place for another result file");

    // An earlier report is replaced whole; an empty directory taken; nothing left beside it.
    ASSERT_EQ(::mkdir(path("empty").c_str(), 0755), 0);
    ASSERT_EQ(kverify({"verify", "--expected", path("t.tsv"), "--html", path("empty")}).status, 0);
    EXPECT_TRUE(exists(path("empty/index.html")));
    spit(path("empty/stale"), "from before");
    ASSERT_EQ(kverify({"verify", "--expected", path("t.tsv"), "--html", path("empty/")}).status, 0);
    EXPECT_TRUE(exists(path("empty/index.html")));
    EXPECT_FALSE(exists(path("empty/stale")));
    const result ls = [&] {
        result l;
        FILE* p = ::popen(("ls -A '" + dir_ + "'").c_str(), "r");
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) l.out.append(buf, n);
        ::pclose(p);
        return l;
    }();
    EXPECT_EQ(ls.out, "empty\nfile\nmine\nt.tsv\n");
    // A run that fails leaves no report that could pass for its own.
    expect_usage_error(
        kverify({"verify", "--expected", path("missing.tsv"), "--html", path("empty")}),
        "cannot read the expected-verdict table");
    EXPECT_FALSE(exists(path("empty")));
}

}  // namespace
