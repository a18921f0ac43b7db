// The cube's fix-pipe configuration a cube-to-vector TPUSH takes as `TConfig` (upstream's
// include/pto/common/fixpipe.hpp names and values): the layout it writes, the quantisation mode and
// the ReLU before it. The element type a mode produces is FixpipeConsDType_t.
#pragma once

#include <cstdint>
#include <type_traits>

#include <pto/common/element_types.hpp>
#include <pto/common/pto_enums.hpp>

namespace pto {

// Quantisation modes of the fix-pipe, with upstream's CPU simulator's values; a `V` mode reads one
// parameter per column (SET_QUANT_VECTOR), the others one scalar (SET_QUANT_SCALAR).
enum QuantMode_t {
    NoQuant = 0,
    F322F16 = 1,
    F322BF16 = 16,
    DEQF16 = 5,
    VDEQF16 = 4,
    QF322B8_PRE = 24,
    QF322F16_PRE = 32,
    QF322BF16_PRE = 34,
    VQF322B8_PRE = 23,
    QS322BF16_PRE = 35,
    VQS322BF16_PRE = 36,
    REQ8 = 3,
    VREQ8 = 2,
    VSHIFTS322S16 = 12,
    SHIFTS322S16 = 13,
};

template <QuantMode_t Mode>
inline constexpr bool is_vector_quant_v =
    Mode == QuantMode_t::VQF322B8_PRE || Mode == QuantMode_t::VREQ8 || Mode == QuantMode_t::VDEQF16;

typedef enum { NOCLIP_RELU = 0, CLIP_RELU = 1 } ClipReluMode_t;

enum class LayoutMode_t : std::uint8_t { NZ2NZ = 0, NZ2ND = 1, NZ2DN = 2 };

enum class DequantType { SCALAR = 0, TENSOR = 1 };

template <LayoutMode_t layoutMode = LayoutMode_t::NZ2ND, QuantMode_t quantMode = QuantMode_t::NoQuant,
          ReluPreMode reluMode = ReluPreMode::NoRelu, STPhase phase = STPhase::Unspecified,
          std::uint8_t subBlockId = 0, AtomicType atomicT = AtomicType::AtomicNone,
          ClipReluMode_t clipReluMode = ClipReluMode_t::NOCLIP_RELU, bool isChannelSplit = false>
struct FixpipeParams {
    FixpipeParams() = default;
    static constexpr LayoutMode_t LayoutMode = layoutMode;
    static constexpr QuantMode_t QuantPre = quantMode;
    static constexpr ReluPreMode ReluMode = reluMode;
    static constexpr STPhase Phase = phase;
    static constexpr std::uint8_t SubBlockId = subBlockId;
    static constexpr AtomicType AtomicT = atomicT;
    static constexpr ClipReluMode_t ClipReluMode = clipReluMode;
    static constexpr bool IsChannelSplit = isChannelSplit;
};

// The element type a quantisation mode writes; a mode that keeps the type keeps SrcType.
template <QuantMode_t quantPre, typename SrcType>
struct FixpipeConsDType {
    static constexpr bool isHalf = quantPre == QuantMode_t::F322F16 || quantPre == QuantMode_t::QF322F16_PRE ||
                                   quantPre == QuantMode_t::DEQF16 || quantPre == QuantMode_t::VDEQF16;
    static constexpr bool isBfloat16 = quantPre == QuantMode_t::F322BF16 || quantPre == QuantMode_t::QF322BF16_PRE ||
                                       quantPre == QuantMode_t::QS322BF16_PRE ||
                                       quantPre == QuantMode_t::VQS322BF16_PRE;
    static constexpr bool isInt8 = quantPre == QuantMode_t::QF322B8_PRE || quantPre == QuantMode_t::REQ8 ||
                                   quantPre == QuantMode_t::VQF322B8_PRE || quantPre == QuantMode_t::VREQ8;
    using type = std::conditional_t<isHalf, half,
                                    std::conditional_t<isBfloat16, bfloat16_t, std::conditional_t<isInt8, int8_t, SrcType>>>;
};

template <QuantMode_t quantPre, typename SrcType>
using FixpipeConsDType_t = typename FixpipeConsDType<quantPre, SrcType>::type;

}  // namespace pto
