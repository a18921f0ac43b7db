// Compare, select and broadcast builtins, as A5 vector code calls them:
//   vcmp_<op>(p, a, b, mask)          p lane i = a[i] <op> b[i] on active lanes, cleared elsewhere
//   vcmps_<op>(p, a, s, mask)         the same against a scalar
//   vsel(d, a, b, mask)               d[i] = mask lane i ? a[i] : b[i], every lane
//   vselr(d, src, idx)                d[i] = src[idx[i]] (a lane gather; see below)
//   vselrv2(d, src, idx)              the same gather, vselr's other encoding
//   vdup(d, s, mask, MODE)            d[i] = s on active lanes, the mode decides the others
//   vdup(d, v, mask, POS_LOWEST, MODE)  the same with lane 0 (POS_HIGHEST: the last lane) of v
//   vbr(d, s)                         every lane of d = s
// Lanes have the width of the register's element kind; compares run in the kind's calc type, so a
// NaN compares unequal to everything (eq, lt, le, gt, ge false; ne true), as IEEE orders it.
#pragma once

#include <cstdint>
#include <type_traits>

#include <pto/vsim/lanes.hpp>
#include <pto/vsim/modes.hpp>
#include <pto/vsim/register.hpp>

namespace pto::vsim {

// Which source lane the register form of vdup repeats.
enum class position : std::uint8_t { lowest, highest };

namespace select_ops {

template <typename A, typename B>
inline constexpr bool same_kind = std::is_same_v<kind_of<A>, kind_of<B>>;

template <typename Cmp, typename A_a, typename A_b>
inline void compare(vector_bool& dst, const A_a& a, const A_b& b, const vector_bool& mask, Cmp cmp) {
    static_assert(same_kind<A_a, A_b>, "vcmp: both sources must hold one element type");
    using K = kind_of<A_a>;
    const auto a_r = image(a);
    const auto b_r = image(b);
    const pred mask_p = mask;
    each_flag<K>(dst, mask_p, mode::zeroing, [&](int i) { return cmp(a_r.read(i), b_r.read(i)); });
}

template <typename Cmp, typename A_a, typename S>
inline void compare_scalar(vector_bool& dst, const A_a& a, const S& s, const vector_bool& mask, Cmp cmp) {
    using K = kind_of<A_a>;
    const auto a_r = image(a);
    const typename K::calc s_v = scalar<K>(s);
    const pred mask_p = mask;
    each_flag<K>(dst, mask_p, mode::zeroing, [&](int i) { return cmp(a_r.read(i), s_v); });
}

} // namespace select_ops
} // namespace pto::vsim

inline constexpr pto::vsim::position POS_LOWEST = pto::vsim::position::lowest;
inline constexpr pto::vsim::position POS_HIGHEST = pto::vsim::position::highest;

#define PTO_VSIM_COMPARE(NAME, OP)                                                                        \
    template <typename A_a, typename A_b>                                                                 \
    inline void vcmp_##NAME(vector_bool& dst, const A_a& a, const A_b& b, const vector_bool& mask) {     \
        pto::vsim::select_ops::compare(dst, a, b, mask, [](auto x, auto y) { return x OP y; });          \
    }                                                                                                     \
    template <typename A_a, typename S>                                                                   \
    inline void vcmps_##NAME(vector_bool& dst, const A_a& a, const S& s, const vector_bool& mask) {      \
        pto::vsim::select_ops::compare_scalar(dst, a, s, mask, [](auto x, auto y) { return x OP y; });   \
    }
PTO_VSIM_COMPARE(eq, ==)
PTO_VSIM_COMPARE(ne, !=)
PTO_VSIM_COMPARE(lt, <)
PTO_VSIM_COMPARE(le, <=)
PTO_VSIM_COMPARE(gt, >)
PTO_VSIM_COMPARE(ge, >=)
#undef PTO_VSIM_COMPARE

// Every lane is written: the mask picks the source, it never leaves a lane alone.
template <typename A_d, typename A_a, typename A_b>
inline void vsel(A_d& dst, const A_a& a, const A_b& b, const vector_bool& mask) {
    using pto::vsim::select_ops::same_kind;
    static_assert(same_kind<A_d, A_a> && same_kind<A_d, A_b>, "vsel: sources and result must hold one element type");
    using K = pto::vsim::kind_of<A_d>;
    auto& d_r = pto::vsim::image(dst);
    const auto a_r = pto::vsim::image(a);
    const auto b_r = pto::vsim::image(b);
    for (int i = 0; i < d_r.lanes; ++i)
        d_r.set(i, mask.lane(i, K::width) ? a_r.get(i) : b_r.get(i));
}

namespace pto::vsim::select_ops {
template <typename A_d, typename A_s, typename A_i>
inline void gather(A_d& dst, const A_s& src, const A_i& idx) {
    auto& d_r = pto::vsim::image(dst);
    const auto s_r = pto::vsim::image(src);
    const auto i_r = pto::vsim::image(idx);
    for (int i = 0; i < d_r.lanes; ++i)
        d_r.set(i, s_r.get(static_cast<int>(static_cast<unsigned long long>(i_r.get(i)) % d_r.lanes)));
}
template <typename A_d, typename A_i>
inline constexpr bool index_fits =
    pto::vsim::kind_of<A_i>::width == pto::vsim::kind_of<A_d>::width && !pto::vsim::kind_of<A_i>::is_float;
} // namespace pto::vsim::select_ops

// The A5 backend calls vselr as a table lookup (byte shuffles through `RegTensor<uint8_t>` casts):
// an index past the last lane wraps, as only its low bits address a lane.
template <typename A_d, typename A_s, typename A_i>
inline void vselr(A_d& dst, const A_s& src, const A_i& idx) {
    using namespace pto::vsim::select_ops;
    static_assert(same_kind<A_d, A_s>, "vselr: source and result must hold one element type");
    static_assert(index_fits<A_d, A_i>, "vselr: the index register must hold unsigned lanes of the result's width");
    gather(dst, src, idx);
}

// vselrv2 keeps vselr's visible result under another encoding (its page): the same gather.
template <typename A_d, typename A_s, typename A_i>
inline void vselrv2(A_d& dst, const A_s& src, const A_i& idx) {
    namespace ops = pto::vsim::select_ops;
    static_assert(ops::same_kind<A_d, A_s> && ops::index_fits<A_d, A_i>,
                  "vselrv2: source and result must hold one element type, the index unsigned lanes of its width");
    ops::gather(dst, src, idx);
}

template <typename A_d, typename S>
inline void vdup(A_d& dst, const S& s, const vector_bool& mask, pto::vsim::mode m = MODE_ZEROING) {
    using K = pto::vsim::kind_of<A_d>;
    const typename K::calc v = pto::vsim::scalar<K>(s);
    pto::vsim::each_lane(pto::vsim::image(dst), mask, m, [&](int) { return v; });
}

template <typename A_d, typename A_s>
inline void vdup(A_d& dst, const A_s& src, const vector_bool& mask, pto::vsim::position pos,
                 pto::vsim::mode m = MODE_ZEROING) {
    using pto::vsim::select_ops::same_kind;
    static_assert(same_kind<A_d, A_s>, "vdup: source and result must hold one element type");
    auto& d_r = pto::vsim::image(dst);
    const auto s_r = pto::vsim::image(src);
    const auto v = s_r.read(pos == pto::vsim::position::lowest ? 0 : s_r.lanes - 1);
    pto::vsim::each_lane(d_r, mask, m, [&](int) { return v; });
}

template <typename A_d, typename S>
inline void vbr(A_d& dst, const S& s) {
    using K = pto::vsim::kind_of<A_d>;
    auto& d_r = pto::vsim::image(dst);
    const typename K::calc v = pto::vsim::scalar<K>(s);
    for (int i = 0; i < d_r.lanes; ++i)
        d_r.write(i, v);
}
