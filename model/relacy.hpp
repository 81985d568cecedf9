// SPDX-License-Identifier: GPL-2.0-only
// The one place that includes Relacy. Standard headers come first; Relacy's convenience macros
// (new, delete, malloc, free, assert, errno, memory_order_*) are removed again afterwards so the
// rest of the code keeps standard meanings and uses the rl:: names directly.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cassert>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#pragma push_macro("errno")
#pragma push_macro("assert")
#include <relacy/relacy.hpp>
#undef new
#undef delete
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef memory_order_relaxed
#undef memory_order_consume
#undef memory_order_acquire
#undef memory_order_release
#undef memory_order_acq_rel
#undef memory_order_seq_cst
#undef errno
#undef assert
#pragma pop_macro("assert")
#pragma pop_macro("errno")
