// SPDX-License-Identifier: GPL-2.0-only
// Compile-time lists of variants (objpool, percpu_counter): one list names every variant once,
// and the sub-lists tests iterate (sound ones, known-bad ones, ...) are filters of it, so adding
// a variant is one line in one place. Not kernel code.
#pragma once

#include <cstddef>
#include <type_traits>

namespace kverify {

// Passed to for_each callbacks: `typename decltype(tag)::type` is the variant.
template <class V>
struct variant_tag {
    using type = V;
};

template <class... Vs>
struct variant_list {
    static constexpr std::size_t size = sizeof...(Vs);
    // Instantiates L<Vs...>, e.g. ::testing::Types for typed tests.
    template <template <class...> class L>
    using apply = L<Vs...>;
    // Calls f(variant_tag<V>{}) for each variant V, in list order.
    template <class F>
    static void for_each(F&& f) {
        (f(variant_tag<Vs>{}), ...);
    }
};

namespace detail {
template <class... Lists>
struct variant_concat;
template <>
struct variant_concat<> {
    using type = variant_list<>;
};
template <class... As>
struct variant_concat<variant_list<As...>> {
    using type = variant_list<As...>;
};
template <class... As, class... Bs, class... Rest>
struct variant_concat<variant_list<As...>, variant_list<Bs...>, Rest...> {
    using type = typename variant_concat<variant_list<As..., Bs...>, Rest...>::type;
};

template <template <class> class Pred, class List>
struct variant_filter;
template <template <class> class Pred, class... Vs>
struct variant_filter<Pred, variant_list<Vs...>> {
    using type = typename variant_concat<
        std::conditional_t<Pred<Vs>::value, variant_list<Vs>, variant_list<>>...>::type;
};

constexpr bool variant_same_name(const char* a, const char* b) {
    while (*a != '\0' && *a == *b) ++a, ++b;
    return *a == *b;
}
}  // namespace detail

// The variants of several lists, in order.
template <class... Lists>
using variant_concat_t = typename detail::variant_concat<Lists...>::type;

// The variants V of List for which Pred<V>::value holds, in list order.
template <template <class> class Pred, class List>
using variant_filter_t = typename detail::variant_filter<Pred, List>::type;

template <class V>
struct variant_is_known_bad : std::bool_constant<V::known_bad> {};
template <class V>
struct variant_is_sound : std::bool_constant<!V::known_bad> {};

// True iff no two variants of the list share a `name` (names are part of check names).
template <class... Vs>
constexpr bool variant_names_distinct(variant_list<Vs...>) {
    const char* names[] = {Vs::name..., ""};
    for (std::size_t i = 0; i < sizeof...(Vs); ++i)
        for (std::size_t j = i + 1; j < sizeof...(Vs); ++j)
            if (detail::variant_same_name(names[i], names[j])) return false;
    return true;
}

}  // namespace kverify
