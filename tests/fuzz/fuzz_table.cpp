// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target: the expected-verdict table as `verify` reads it (load_table, then selecting
// and sharding its rows), on any bytes. Two checks are registered so that rows get past the
// name: a table's faults must be usage errors, never a crash, a hang or a sanitizer report.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "model/cli/cli.hpp"

namespace {

using namespace kverify;

bool registered = [] {
    for (const char* name : {"kernel/a", "objpool/v6.7/c2-o1"}) {
        model::check c;
        c.name = name;
        c.algorithm = "fuzz";
        c.variant = "v6.7";
        c.config = "none";
        c.engines = {{"relacy", nullptr, {"data-race", "loss"}}, {"dpor-sc", nullptr, {"loss"}}};
        model::register_check(c);
    }
    return true;
}();

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = "/tmp/kverify-fuzz-table-" + std::to_string(::getpid());
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    try {
        const cli::table t = cli::load_table(path);
        for (const char* filter : {"", "^kernel/", "(a|o)+"}) {
            cli::selection s;
            s.tier = "all";
            s.filter = filter;
            const std::vector<cli::table_row> rows = cli::select_rows(t, s);
            std::size_t n = 0;
            for (unsigned i = 0; i < 3; ++i) n += cli::shard_rows(rows, i, 3).size();
            if (n != rows.size()) __builtin_trap();  // the shards cover the selection once
        }
    } catch (const cli::usage_error&) {
    }
    return 0;
}
