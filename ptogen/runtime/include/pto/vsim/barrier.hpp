// mem_bar(type) orders one class of aliased UB accesses of the vector unit: VST_VLD a store before a
// later load, VLD_VST a load before a later store, VST_VST two stores, VV_ALL every pair (the tokens
// are the register model's, scope.hpp). The simulation performs each access when its builtin runs, so
// every class is already in program order; the barrier checks its class and counts itself per class.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <pto/vsim/scope.hpp>

using mem_bar_t = pto::vsim::barrier;

namespace pto::vsim {

inline constexpr int barrier_classes = 5;

inline int& mem_bar_count(barrier type) {
    static int counts[barrier_classes] = {};
    return counts[static_cast<int>(type)];
}

} // namespace pto::vsim

inline void mem_bar(mem_bar_t type) {
    if (static_cast<int>(type) >= pto::vsim::barrier_classes) {
        std::fprintf(stderr, "PTO runtime error: mem_bar: the barrier type must be VST_VLD, VLD_VST, VST_VST, "
                             "VV_ALL or SPR_AR\n");
        std::abort();
    }
    ++pto::vsim::mem_bar_count(type);
}
