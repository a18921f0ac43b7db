// The folds the generated reduction builtins share (vcadd, vcmax, vcgadd, vcpadd, ...): each result
// lane folds the active lanes of one span of the source, left to right from the first active lane,
// and the result lanes no span lands in are zeroed, or kept under MODE_MERGING.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <pto/vsim/modes.hpp>
#include <pto/vsim/register.hpp>

namespace pto::vsim {

// A 16-bit integer sum may land in the 32-bit integer of its signedness (A5's TROWSUM of int16_t).
template <typename K, typename R>
inline constexpr bool sum_widens =
    (std::is_same_v<K, i16> && std::is_same_v<R, i32>) || (std::is_same_v<K, u16> && std::is_same_v<R, u32>);

// Whether a lane holds the folded value bit for bit (any NaN matches a NaN).
template <typename C>
inline bool same_value(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) {
        if (a != a)
            return b != b;
        return a == b && std::signbit(a) == std::signbit(b);
    } else {
        return a == b;
    }
}

// The span's fold: its active lanes (lanes of the source's width `w`) from `first` to `first + count`,
// `term(i)` of each, folded with `step`; zero when no lane is active. `picked` receives the index of
// the first active lane whose term equals the result (0 when none is active).
template <typename C, typename Term, typename Step>
inline C fold_span(const pred& mask, int w, int first, int count, Term&& term, Step&& step, int* picked) {
    bool any = false;
    C acc{};
    for (int i = first; i < first + count; ++i) {
        if (!mask.lane(i, w))
            continue;
        const C v = term(i);
        acc = any ? step(acc, v) : v;
        any = true;
    }
    if (picked != nullptr) {
        *picked = 0;
        for (int i = first; any && i < first + count; ++i) {
            if (mask.lane(i, w) && same_value<C>(term(i), acc)) {
                *picked = i;
                break;
            }
        }
    }
    return any ? acc : C{};
}

// Lane `i` of a register set to an unsigned integer of the lane's width (a picked index).
template <typename R>
inline void set_index(R& dst, int i, int index) {
    using K = typename R::kind;
    using U = std::conditional_t<K::width == 1, std::uint8_t,
                                 std::conditional_t<K::width == 2, std::uint16_t,
                                                    std::conditional_t<K::width == 4, std::uint32_t, std::uint64_t>>>;
    const U u = static_cast<U>(index);
    std::memcpy(dst.bytes + i * K::width, &u, sizeof u);
}

// Result lanes from `from` up: zeroed, or kept under MODE_MERGING.
template <typename R>
inline void clear_from(R& dst, int from, mode m) {
    if (m == mode::merging)
        return;
    for (int i = from; i < R::lanes; ++i)
        dst.set(i, typename R::kind::bits{});
}

// The whole register (source lanes of width w, `n` of them) into lane 0; with `pick`, the picked
// lane's index into lane 1.
template <typename C, typename R, typename Term, typename Step>
inline void fold_vector(R& dst, const pred& mask, int w, int n, mode m, bool pick, Term&& term, Step&& step) {
    int picked = 0;
    const C v = fold_span<C>(mask, w, 0, n, term, step, pick ? &picked : nullptr);
    clear_from(dst, pick ? 2 : 1, m);
    dst.write(0, v);
    if (pick)
        set_index(dst, 1, picked);
}

// Each 32-byte group g of the register into lane g.
template <typename C, typename R, typename Term, typename Step>
inline void fold_groups(R& dst, const pred& mask, int w, int n, mode m, bool, Term&& term, Step&& step) {
    constexpr int groups = VL / 32;
    const int per = n / groups;
    C v[groups];
    for (int g = 0; g < groups; ++g)
        v[g] = fold_span<C>(mask, w, g * per, per, term, step, nullptr);
    clear_from(dst, groups, m);
    for (int g = 0; g < groups; ++g)
        dst.write(g, v[g]);
}

// Each pair of lanes 2k, 2k + 1 into lane k.
template <typename C, typename R, typename Term, typename Step>
inline void fold_pairs(R& dst, const pred& mask, int w, int n, mode m, bool, Term&& term, Step&& step) {
    C v[VL / 2];
    for (int k = 0; k < n / 2; ++k)
        v[k] = fold_span<C>(mask, w, 2 * k, 2, term, step, nullptr);
    clear_from(dst, n / 2, m);
    for (int k = 0; k < n / 2; ++k)
        dst.write(k, v[k]);
}

} // namespace pto::vsim
