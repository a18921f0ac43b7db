// Upstream's name for its debugging header: kernels written for upstream include
// <pto/common/debug.h> for PTO_ASSERT. Here an assertion that fails stops the simulation with the
// message, as the simulator's run-time rules do, when _DEBUG is defined, and is compiled out otherwise.
#pragma once

#include <pto/common/pto_core.hpp>

#define DEBUG_CHECK(condition, message) ::pto::sim::check(static_cast<bool>(condition), "PTO_ASSERT", (message))

#ifdef _DEBUG
#define PTO_ASSERT(condition, message) DEBUG_CHECK(condition, message)
#else
#define PTO_ASSERT(condition, message) ((void)0)
#endif
