// The lane loop the generated builtins share: a result per active lane, and what an inactive lane of
// the destination holds under the call's mode.
#pragma once

#include <type_traits>

#include <pto/vsim/modes.hpp>
#include <pto/vsim/register.hpp>

namespace pto::vsim {

template <typename K, typename... Admitted>
inline constexpr bool admits = (std::is_same_v<K, Admitted> || ...);

// dst lane i = f(i) where the predicate is set at lane i's first byte (lanes of dst's width); an
// inactive lane is zeroed (MODE_ZEROING) or keeps its value (MODE_MERGING). f reads its sources at
// lane i before lane i is written, so a destination may also be a source. With `Pattern`, f gives the
// lane's bit pattern (K::pattern) rather than its value.
template <bool Pattern = false, typename R, typename F>
inline void each_lane(R& dst, const pred& mask, mode m, F&& f) {
    using K = typename R::kind;
    for (int i = 0; i < R::lanes; ++i) {
        if (!mask.lane(i, K::width)) {
            if (m != mode::merging)
                dst.set(i, typename K::bits{});
        } else if constexpr (Pattern) {
            dst.write_pattern(i, f(i));
        } else {
            dst.write(i, f(i));
        }
    }
}

// The same for a predicate result (compares, carries): bit lane i = f(i) on active lanes; an inactive
// lane's bits are cleared, or kept under MODE_MERGING.
template <typename K, typename F>
inline void each_flag(pred& dst, const pred& mask, mode m, F&& f) {
    for (int i = 0; i < VL / K::width; ++i) {
        if (mask.lane(i, K::width))
            dst.set_lane(i, K::width, f(i));
        else if (m != mode::merging)
            dst.set_lane(i, K::width, false);
    }
}

} // namespace pto::vsim
