// Vector quantisation of the cube's fix-pipe as the CPU simulator computes it (TMOV and TMOV_FP with
// a parameter tile, TSTORE_FP; TEXTRACT and TINSERT with one may share it). Written for ptogen; the
// arithmetic follows upstream's CPU simulator so that both give the same bytes.
//
// A 64-bit parameter holds, per destination column:
//   bits 13..31  the scale, a 19-bit float: sign (bit 18 of the field), 8-bit exponent (bias 127),
//                10-bit fraction; a zero exponent and fraction mean 0;
//   bits 32..35  (int32_t -> int16_t) the right shift minus one;
//   bits 37..45  the offset added before rounding to 8 bits;
//   bit  46      whether the 8-bit result is signed ([-128, 127]) or not ([0, 255]).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <pto/common/element_types.hpp>

namespace pto::sim {

enum class VectorQuant { None, ToByte, Int32ToByte, Int32ToHalf, Int32ToInt16 };

// Which pairs of element types the vector path quantises.
template <typename S, typename D>
constexpr VectorQuant vector_quant() {
    constexpr bool byte = std::is_same_v<D, int8_t> || std::is_same_v<D, uint8_t>;
    if constexpr (std::is_same_v<S, float>)
        return byte ? VectorQuant::ToByte : VectorQuant::None;
    else if constexpr (std::is_same_v<S, int32_t>) {
        if constexpr (byte)
            return VectorQuant::Int32ToByte;
        else if constexpr (std::is_same_v<D, half>)
            return VectorQuant::Int32ToHalf;
        else if constexpr (std::is_same_v<D, int16_t>)
            return VectorQuant::Int32ToInt16;
        else
            return VectorQuant::None;
    } else
        return VectorQuant::None;
}

// The scale a vector parameter encodes.
inline float vector_scale(std::uint64_t q) {
    const auto field = static_cast<std::uint32_t>((q >> 13) & 0x7FFFFu);
    const std::uint32_t negative = (field >> 18) & 1u;
    const std::uint32_t exponent = (field >> 10) & 0xFFu;
    const std::uint32_t fraction = field & 0x3FFu;
    if (exponent == 0 && fraction == 0)
        return 0.0f;
    const float significand = 1.0f + static_cast<float>(fraction) / 1024.0f;
    const float power = std::pow(2.0f, static_cast<float>(exponent) - 127.0f);
    return (negative ? -1.0f : 1.0f) * significand * power;
}

// The float an element quantises to with parameter q, before any ReLU and the conversion to the
// destination type (TSTORE_FP applies its store modes to this value, as the scalar store does).
template <typename S, VectorQuant mode>
float vector_quantised(S x, std::uint64_t q) {
    float y = static_cast<float>(x) * vector_scale(q);
    if constexpr (mode == VectorQuant::ToByte || mode == VectorQuant::Int32ToByte) {
        const auto offset = static_cast<std::uint32_t>((q >> 37) & 0x1FFu);
        const bool is_signed = ((q >> 46) & 1u) == 1u;
        const float rounded = std::nearbyint(y + offset);
        y = std::clamp(rounded, is_signed ? -128.0f : 0.0f, is_signed ? 127.0f : 255.0f);
    } else if constexpr (mode == VectorQuant::Int32ToHalf) {
        y = std::clamp(y, -65504.0f, 65504.0f);
    } else if constexpr (mode == VectorQuant::Int32ToInt16) {
        const int shift = static_cast<int>((q >> 32) & 0xFu) + 1;
        const auto shifted = static_cast<int32_t>(x) >> shift;
        y = static_cast<float>(static_cast<int16_t>(shifted));
    }
    return y;
}

template <typename D, typename S, VectorQuant mode>
D vector_quantise(S x, std::uint64_t q, bool relu) {
    float y = vector_quantised<S, mode>(x, q);
    if (relu)
        y = y > 0 ? y : 0;
    return static_cast<D>(y);
}

}  // namespace pto::sim
