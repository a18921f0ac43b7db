// pto/common/debug.h: the assertion macro of upstream's header of that name, which kernels include
// (upstream's ttrans_conv test does). PTO_ASSERT(condition, message) checks the condition only in
// a _DEBUG build, as upstream's does; here a failed check stops the simulation with the message.
#pragma once

#include "sim_support.hpp"

#ifndef PTO_ASSERT
#ifdef _DEBUG
#define PTO_ASSERT(condition, message) ::pto::sim::check(static_cast<bool>(condition), "PTO_ASSERT", (message))
#else
#define PTO_ASSERT(condition, message) ((void)0)
#endif
#endif
