// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target: result rows and replay files as merge and replay read them (JSON, then
// row_from_json / verdict_from_json and the fingerprint), on any bytes. A row read back from
// what row_to_json wrote must be the same row: the round trip is the oracle.
#include <cstdint>
#include <string>

#include "model/cli/cli.hpp"

namespace {

using namespace kverify;

const model::check& fuzz_check() {
    static const model::check c = [] {
        model::check k;
        k.name = "kernel/a";
        k.algorithm = "fuzz";
        k.variant = "v";
        k.config = "none";
        k.engines = {{"relacy", nullptr}};
        return k;
    }();
    return c;
}

void one_row(const cli::json& j) {
    try {
        const model::verdict v = cli::verdict_from_json(j);
        (void)cli::replay_fingerprint(fuzz_check(), v.engine, v.search, v.replay);
    } catch (const cli::usage_error&) {
    }
    try {
        const cli::row_result r = cli::row_from_json(j);
        const cli::row_result again = cli::row_from_json(cli::row_to_json(r));
        if (again.row.check != r.row.check || again.v.replay != r.v.replay ||
            again.v.search.str() != r.v.search.str() || again.v.executions != r.v.executions ||
            again.fingerprint != r.fingerprint || again.v.outcome != r.v.outcome)
            __builtin_trap();
    } catch (const cli::usage_error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const cli::json j = cli::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded()) return 0;
    one_row(j);
    if (j.is_object() && j.contains("rows") && j["rows"].is_array())
        for (const cli::json& r : j["rows"]) one_row(r);
    return 0;
}
