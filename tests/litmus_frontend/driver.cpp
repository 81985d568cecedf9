// SPDX-License-Identifier: GPL-2.0-only
// A stand-in for `kverify litmus` until the command line wires it:
//   litmus_driver [--model lkmm|rc11|sc] [--judge] [--max-executions N] [--budget S] FILE...
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "model/litmus/litmus.hpp"

int main(int argc, char** argv) {
    using namespace kverify::litmus;
    litmus_options opt;
    std::vector<std::string> files;
    auto usage = [](const std::string& why) {
        std::cerr << "litmus_driver: " << why
                  << " (usage: litmus_driver [--model lkmm|rc11|sc] [--judge] "
                     "[--max-executions N] [--budget S] FILE...)\n";
        return 2;
    };
    for (int k = 1; k < argc; ++k) {
        const std::string a = argv[k];
        if (a == "--judge") {
            opt.judge = true;
        } else if (a == "--model" || a == "--max-executions" || a == "--budget") {
            if (k + 1 == argc) return usage(a + " needs a value");
            const std::string v = argv[++k];
            char* end = nullptr;
            if (a == "--model") {
                if (!parse_litmus_model(v, opt.model)) return usage("unknown model '" + v + "'");
            } else if (a == "--max-executions") {
                opt.max_executions = std::strtoull(v.c_str(), &end, 10);
                if (v.empty() || *end != '\0') return usage("bad --max-executions '" + v + "'");
            } else {
                opt.budget_s = std::strtod(v.c_str(), &end);
                if (v.empty() || *end != '\0' || opt.budget_s < 0)
                    return usage("bad --budget '" + v + "'");
            }
        } else if (a.size() > 1 && a[0] == '-') {
            return usage("unknown option '" + a + "'");
        } else {
            files.push_back(a);
        }
    }
    return litmus_main(files, opt, std::cout, std::cerr);
}
