// SPDX-License-Identifier: GPL-2.0-only
// lkmm_oracle: the LKMM oracle (oracle.hpp) on litmus files, for reading its results by hand.
//   lkmm_oracle [--keys] [--stats] [--no-prune] [--porf-acyclic] [--max-candidates N]
//               [--mutation NAME] FILE...
//       herd7's block for each file; --keys: the keys of its executions; --stats: how many
//       candidates were checked (on stderr); the other options are oracle_options'.
//   lkmm_oracle --generate SEED [COUNT]               COUNT random tests (generator.hpp)
// Exit status: 0 done, 2 a file is unreadable, malformed or unsupported, or bad usage.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "model/litmus/parser.hpp"
#include "tests/lkmm_oracle/generator.hpp"
#include "tests/lkmm_oracle/oracle.hpp"

int main(int argc, char** argv) {
    using namespace kverify;
    lkmm_oracle::oracle_options opt;
    bool keys = false;
    bool stats = false;
    int status = 0;
    auto usage = [](const std::string& why) {
        std::cerr << "lkmm_oracle: " << why
                  << " (usage: lkmm_oracle [--keys] [--stats] [--no-prune] [--porf-acyclic] "
                     "[--max-candidates N] "
                     "[--mutation NAME] FILE... | "
                     "lkmm_oracle --generate SEED [COUNT])\n";
        return 2;
    };
    for (int k = 1; k < argc; ++k) {
        const std::string a = argv[k];
        if (a == "--keys") {
            keys = true;
        } else if (a == "--porf-acyclic") {
            opt.porf_acyclic = true;
        } else if (a == "--no-prune") {
            opt.prune = false;
        } else if (a == "--stats") {
            stats = true;
        } else if (a == "--max-candidates") {
            if (k + 1 >= argc) return usage("--max-candidates needs a number");
            opt.max_candidates = std::stoull(argv[++k]);
        } else if (a == "--generate") {
            if (k + 1 >= argc) return usage("--generate needs a seed");
            const unsigned long long seed = std::stoull(argv[k + 1]);
            const unsigned long long count = k + 2 < argc ? std::stoull(argv[k + 2]) : 1;
            for (unsigned long long n = 0; n < count; ++n)
                std::cout << lkmm_oracle::generate_litmus(seed + n) << "\n";
            return 0;
        } else if (a == "--mutation") {
            if (k + 1 >= argc) return usage("--mutation needs a name");
            const std::string m = argv[++k];
            bool found = false;
            for (unsigned v = 0; v <= unsigned(lkmm_oracle::mutation::no_rmw_data); ++v)
                if (m == lkmm_oracle::to_string(lkmm_oracle::mutation(v))) {
                    opt.mut = lkmm_oracle::mutation(v);
                    found = true;
                }
            if (!found) return usage("unknown mutation '" + m + "'");
        } else if (a.size() > 1 && a[0] == '-') {
            return usage("unknown option '" + a + "'");
        } else {
            std::ifstream in(a, std::ios::binary);
            if (!in) {
                std::cerr << a << ": cannot read the file\n";
                status = 2;
                continue;
            }
            std::stringstream text;
            text << in.rdbuf();
            try {
                const litmus::test t = litmus::parse_test(a, text.str());
                const lkmm_oracle::oracle_result r = lkmm_oracle::run_oracle(t, opt);
                std::cout << r.herd_text << std::flush;  // (whole, if a later test dies)
                if (stats)
                    std::cerr << a << ": " << r.candidates << " candidates, " << r.executions.size()
                              << " consistent, " << r.porf_cyclic
                              << " left out with a po|rf cycle (" << r.porf_cyclic_unflagged
                              << " without a flag)\n";
                if (keys)
                    for (const lkmm_oracle::execution& x : r.executions) std::cout << x.key << "\n";
            } catch (const litmus::litmus_error& e) {
                std::cerr << a << ":" << e.pos.line << ":" << e.pos.col << ": " << e.what() << "\n";
                status = 2;
            }
        }
    }
    return status;
}
