// Mode tokens of the vector builtins, under the global names A5 vector code passes. Each family of
// tokens is its own enum type, so overloads tell `vcvt(d, s, p, ROUND_R, RS_ENABLE, PART_EVEN)` from
// `vcvt(d, s, p, PART_EVEN)`; the enum types stay inside `pto::vsim`, only the tokens are global.
#pragma once

#include <cstdint>

namespace pto::vsim {

// What an inactive lane of the destination holds: zero, its old value, or (MODE_STORED, the
// compacting builtins) the lanes are packed and the count kept for the next store.
enum class mode : std::uint8_t { zeroing, merging, stored };
// Advance the pointer or scalar operand by what the call consumed.
enum class post : std::uint8_t { update };
// How a load spreads memory over lanes.
enum class load_dist : std::uint8_t {
    norm, brc_b8, brc_b16, brc_b32, us_b8, us_b16, ds_b8, ds_b16, unpk_b8, unpk_b16, unpk_b32, unpk4_b8,
    dintlv_b8, dintlv_b16, dintlv_b32, blk, e2b_b16, e2b_b32, brc_blk, splt4chn_b8, splt2chn_b8, splt2chn_b16
};
// How a store gathers lanes into memory.
enum class store_dist : std::uint8_t {
    norm_b8, norm_b16, norm_b32, onept_b8, onept_b16, onept_b32, pk_b16, pk_b32, intlv_b8, intlv_b16, pk_b64,
    intlv_b32, pk4_b32, mrg4chn_b8, mrg2chn_b8, mrg2chn_b16
};
// Predicate loads and stores: packed, unpacked, or as is.
enum class pred_dist : std::uint8_t { pk, us, ds };
// Predicate generation patterns (pset/pge): all, all false, the first n lanes, halves, quarters,
// multiples of 3 and 4.
enum class pattern : std::uint8_t {
    all, allf, vl1, vl2, vl3, vl4, vl8, vl16, vl32, vl64, vl128, m3, m4, h, q
};
// Rounding of a conversion: R to nearest even, A to nearest away from zero, F toward -inf, C toward
// +inf, Z toward zero, O to odd, H to nearest with ties up.
enum class round : std::uint8_t { r, a, f, c, z, o, h };
// Saturation of a narrowing conversion.
enum class sat : std::uint8_t { enable, disable };
// Which part of a wider register a narrowing or widening conversion reads or writes.
enum class part : std::uint8_t { even, odd, p0, p1, p2, p3 };
// Index order of vci.
enum class order : std::uint8_t { inc, dec };
// Which half a predicate pack or unpack moves.
enum class half_sel : std::uint8_t { lower, higher };

} // namespace pto::vsim

inline constexpr pto::vsim::mode MODE_ZEROING = pto::vsim::mode::zeroing;
inline constexpr pto::vsim::mode MODE_MERGING = pto::vsim::mode::merging;
inline constexpr pto::vsim::mode MODE_STORED = pto::vsim::mode::stored;
inline constexpr pto::vsim::post POST_UPDATE = pto::vsim::post::update;

// Each load distribution token is a type of its own that converts to `load_dist`: A5 code picks one
// by type (`using D = decltype(BRC_B8); constexpr D d{};`), and a value-initialised enum would be NORM.
namespace pto::vsim {
template <load_dist D>
struct load_token {
    static constexpr load_dist value = D;
    constexpr operator load_dist() const { return D; }
};
} // namespace pto::vsim

inline constexpr pto::vsim::load_token<pto::vsim::load_dist::norm> NORM{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::brc_b8> BRC_B8{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::brc_b16> BRC_B16{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::brc_b32> BRC_B32{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::us_b8> US_B8{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::us_b16> US_B16{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::ds_b8> DS_B8{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::ds_b16> DS_B16{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::unpk_b8> UNPK_B8{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::unpk_b16> UNPK_B16{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::unpk_b32> UNPK_B32{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::unpk4_b8> UNPK4_B8{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::dintlv_b8> DINTLV_B8{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::dintlv_b16> DINTLV_B16{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::dintlv_b32> DINTLV_B32{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::blk> BLK{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::e2b_b16> E2B_B16{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::e2b_b32> E2B_B32{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::brc_blk> BRC_BLK{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::splt4chn_b8> SPLT4CHN_B8{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::splt2chn_b8> SPLT2CHN_B8{};
inline constexpr pto::vsim::load_token<pto::vsim::load_dist::splt2chn_b16> SPLT2CHN_B16{};

inline constexpr pto::vsim::store_dist NORM_B8 = pto::vsim::store_dist::norm_b8;
inline constexpr pto::vsim::store_dist NORM_B16 = pto::vsim::store_dist::norm_b16;
inline constexpr pto::vsim::store_dist NORM_B32 = pto::vsim::store_dist::norm_b32;
inline constexpr pto::vsim::store_dist ONEPT_B8 = pto::vsim::store_dist::onept_b8;
inline constexpr pto::vsim::store_dist ONEPT_B16 = pto::vsim::store_dist::onept_b16;
inline constexpr pto::vsim::store_dist ONEPT_B32 = pto::vsim::store_dist::onept_b32;
inline constexpr pto::vsim::store_dist PK_B16 = pto::vsim::store_dist::pk_b16;
inline constexpr pto::vsim::store_dist PK_B32 = pto::vsim::store_dist::pk_b32;
inline constexpr pto::vsim::store_dist PK_B64 = pto::vsim::store_dist::pk_b64;
inline constexpr pto::vsim::store_dist PK4_B32 = pto::vsim::store_dist::pk4_b32;
inline constexpr pto::vsim::store_dist INTLV_B8 = pto::vsim::store_dist::intlv_b8;
inline constexpr pto::vsim::store_dist INTLV_B16 = pto::vsim::store_dist::intlv_b16;
inline constexpr pto::vsim::store_dist INTLV_B32 = pto::vsim::store_dist::intlv_b32;
inline constexpr pto::vsim::store_dist MRG4CHN_B8 = pto::vsim::store_dist::mrg4chn_b8;
inline constexpr pto::vsim::store_dist MRG2CHN_B8 = pto::vsim::store_dist::mrg2chn_b8;
inline constexpr pto::vsim::store_dist MRG2CHN_B16 = pto::vsim::store_dist::mrg2chn_b16;

// The store distribution as A5 code names it in `std::integral_constant<::DistVST, ...>`, enumerators
// in the order of upstream's `pto::DistVST`, which that code casts from.
enum class DistVST : std::uint8_t {
    DIST_NORM_B8, DIST_NORM_B16, DIST_NORM_B32, DIST_ONEPT_B8, DIST_ONEPT_B16, DIST_ONEPT_B32, DIST_PK_B16,
    DIST_PK_B32, DIST_INTLV_B8, DIST_INTLV_B16, DIST_PK_B64, DIST_INTLV_B32, DIST_PK4_B32, DIST_MRG4CHN_B8,
    DIST_MRG2CHN_B8, DIST_MRG2CHN_B16, DIST_NORM, DIST_ONEPT
};

inline constexpr pto::vsim::pred_dist PK = pto::vsim::pred_dist::pk;
inline constexpr pto::vsim::pred_dist US = pto::vsim::pred_dist::us;
inline constexpr pto::vsim::pred_dist DS = pto::vsim::pred_dist::ds;

inline constexpr pto::vsim::pattern PAT_ALL = pto::vsim::pattern::all;
inline constexpr pto::vsim::pattern PAT_ALLF = pto::vsim::pattern::allf;
inline constexpr pto::vsim::pattern PAT_VL1 = pto::vsim::pattern::vl1;
inline constexpr pto::vsim::pattern PAT_VL2 = pto::vsim::pattern::vl2;
inline constexpr pto::vsim::pattern PAT_VL3 = pto::vsim::pattern::vl3;
inline constexpr pto::vsim::pattern PAT_VL4 = pto::vsim::pattern::vl4;
inline constexpr pto::vsim::pattern PAT_VL8 = pto::vsim::pattern::vl8;
inline constexpr pto::vsim::pattern PAT_VL16 = pto::vsim::pattern::vl16;
inline constexpr pto::vsim::pattern PAT_VL32 = pto::vsim::pattern::vl32;
inline constexpr pto::vsim::pattern PAT_VL64 = pto::vsim::pattern::vl64;
inline constexpr pto::vsim::pattern PAT_VL128 = pto::vsim::pattern::vl128;
inline constexpr pto::vsim::pattern PAT_M3 = pto::vsim::pattern::m3;
inline constexpr pto::vsim::pattern PAT_M4 = pto::vsim::pattern::m4;
inline constexpr pto::vsim::pattern PAT_H = pto::vsim::pattern::h;
inline constexpr pto::vsim::pattern PAT_Q = pto::vsim::pattern::q;

inline constexpr pto::vsim::round ROUND_R = pto::vsim::round::r;
inline constexpr pto::vsim::round ROUND_A = pto::vsim::round::a;
inline constexpr pto::vsim::round ROUND_F = pto::vsim::round::f;
inline constexpr pto::vsim::round ROUND_C = pto::vsim::round::c;
inline constexpr pto::vsim::round ROUND_Z = pto::vsim::round::z;
inline constexpr pto::vsim::round ROUND_O = pto::vsim::round::o;
inline constexpr pto::vsim::round ROUND_H = pto::vsim::round::h;
inline constexpr pto::vsim::sat RS_ENABLE = pto::vsim::sat::enable;
inline constexpr pto::vsim::sat RS_DISABLE = pto::vsim::sat::disable;

inline constexpr pto::vsim::part PART_EVEN = pto::vsim::part::even;
inline constexpr pto::vsim::part PART_ODD = pto::vsim::part::odd;
inline constexpr pto::vsim::part PART_P0 = pto::vsim::part::p0;
inline constexpr pto::vsim::part PART_P1 = pto::vsim::part::p1;
inline constexpr pto::vsim::part PART_P2 = pto::vsim::part::p2;
inline constexpr pto::vsim::part PART_P3 = pto::vsim::part::p3;

inline constexpr pto::vsim::order INC_ORDER = pto::vsim::order::inc;
inline constexpr pto::vsim::order DEC_ORDER = pto::vsim::order::dec;
inline constexpr pto::vsim::half_sel LOWER = pto::vsim::half_sel::lower;
inline constexpr pto::vsim::half_sel HIGHER = pto::vsim::half_sel::higher;

// Fixed-stride loads and stores (vsld, vsst): STRIDE_Sk_Bw moves every k-th w-bit element.
namespace pto::vsim {
enum class stride : std::uint8_t { s3_b16, s4_b64, s8_b32, s2_b64 };
// The unaligned store's address register left as it was (vstu); POST_UPDATE moves it on.
enum class no_post : std::uint8_t { keep };
} // namespace pto::vsim

inline constexpr pto::vsim::stride STRIDE_S3_B16 = pto::vsim::stride::s3_b16;
inline constexpr pto::vsim::stride STRIDE_S4_B64 = pto::vsim::stride::s4_b64;
inline constexpr pto::vsim::stride STRIDE_S8_B32 = pto::vsim::stride::s8_b32;
inline constexpr pto::vsim::stride STRIDE_S2_B64 = pto::vsim::stride::s2_b64;
inline constexpr pto::vsim::no_post NO_POST_UPDATE = pto::vsim::no_post::keep;
