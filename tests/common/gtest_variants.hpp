// SPDX-License-Identifier: GPL-2.0-only
// Typed GoogleTest suites over a list of variants (impl/variant_list.hpp): the list as
// ::testing::Types, and the name each variant's tests carry, its own `name` with every character
// a GoogleTest name cannot hold turned into '_' (v6.7 -> v6_7, local-cas -> local_cas).
//   TYPED_TEST_SUITE(Suite, gtest_types<pcc_sound_variants>, variant_names);
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace kverify {

template <class List>
using gtest_types = typename List::template apply<::testing::Types>;

inline std::string gtest_name(const char* variant) {
    std::string s(variant);
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    return s;
}

// The NameGenerator of TYPED_TEST_SUITE.
struct variant_names {
    template <class V>
    static std::string GetName(int) {
        return gtest_name(V::name);
    }
};

}  // namespace kverify
