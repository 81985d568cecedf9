// SPDX-License-Identifier: GPL-2.0-only
// Which exploration engine this translation unit is built for.
//
// The simulated kernel (kernel.hpp), the Env (model_env.hpp) and every scenario are written once
// and compiled once per engine: with KVERIFY_ENGINE_DPOR defined they run on the project's own
// engine (model/dpor), otherwise on Relacy. Everything that touches an engine is in its adapter
// (model/engines/relacy.hpp, model/engines/dpor.hpp), behind the same small interface
// `model::engine`; a further engine is one more adapter and one more build of the same sources.
//
// Each build lives in its own inline namespace (kverify::model::eng_relacy, ...::eng_dpor), so
// both builds link into one kverify binary; the registry (registry.hpp) collects each check's
// runner from every build.
#pragma once

#if defined(KVERIFY_ENGINE_DPOR)
#define KVERIFY_ENGINE_NS eng_dpor
#else
#define KVERIFY_ENGINE_NS eng_relacy
#endif

#if defined(KVERIFY_ENGINE_DPOR)
#include "model/engines/dpor.hpp"
#else
#include "model/engines/relacy.hpp"
#endif
