// Scalar quantisation of the cube's fix-pipe as the CPU simulator computes it (TEXTRACT and TINSERT
// with `preQuantScalar`). Written for ptogen; the arithmetic follows upstream's CPU simulator so
// that both give the same bytes.
//
// The 64-bit parameter holds:
//   bits 0..31   the scale, an IEEE float;
//   bits 32..35  (int32_t -> int16_t) the right shift minus one;
//   bits 37..45  the offset added before rounding to 8 bits;
//   bit  46      whether the 8-bit result is signed ([-128, 127]) or not ([0, 255]).
// The fix-pipe's control word of the running task (upstream's CPU simulator calls it the task
// cookie; `pto::cpu_sim::set_task_cookie` sets it per thread, zero by default): with bit 48 set, a
// float -> half or float -> bfloat16_t result saturates (a NaN becomes 0, an infinity the largest
// finite value); with it clear only finite results are clamped to the finite range.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <pto/common/element_types.hpp>

namespace pto::cpu_sim {

inline std::uint64_t& task_cookie() {
    static thread_local std::uint64_t word = 0;
    return word;
}

inline void set_task_cookie(std::uint64_t word) {
    task_cookie() = word;
}

}  // namespace pto::cpu_sim

namespace pto::sim {

struct ScalarQuantParam {
    std::uint64_t bits;
};

enum class ScalarQuant { None, FloatToByte, FloatToHalf, FloatToBf16, Int32ToByte, Int32ToHalf, Int32ToInt16 };

// Which pairs of element types the scalar path quantises.
template <typename S, typename D>
constexpr ScalarQuant scalar_quant() {
    constexpr bool byte = std::is_same_v<D, int8_t> || std::is_same_v<D, uint8_t>;
    if constexpr (std::is_same_v<S, float>) {
        if constexpr (byte)
            return ScalarQuant::FloatToByte;
        else if constexpr (std::is_same_v<D, half>)
            return ScalarQuant::FloatToHalf;
        else if constexpr (std::is_same_v<D, bfloat16_t>)
            return ScalarQuant::FloatToBf16;
        else
            return ScalarQuant::None;
    } else if constexpr (std::is_same_v<S, int32_t>) {
        if constexpr (byte)
            return ScalarQuant::Int32ToByte;
        else if constexpr (std::is_same_v<D, half>)
            return ScalarQuant::Int32ToHalf;
        else if constexpr (std::is_same_v<D, int16_t>)
            return ScalarQuant::Int32ToInt16;
        else
            return ScalarQuant::None;
    } else
        return ScalarQuant::None;
}

template <typename D, typename S, ScalarQuant mode>
D scalar_quantise(S x, std::uint64_t q, bool relu) {
    const auto low = static_cast<std::uint32_t>(q & 0xFFFFFFFFu);
    float scale;
    std::memcpy(&scale, &low, sizeof scale);
    float y = static_cast<float>(x) * scale;
    if constexpr (mode == ScalarQuant::FloatToByte || mode == ScalarQuant::Int32ToByte) {
        const auto offset = static_cast<std::uint32_t>((q >> 37) & 0x1FFu);
        const bool is_signed = ((q >> 46) & 1u) == 1u;
        const float rounded = std::nearbyint(y + offset);
        y = std::clamp(rounded, is_signed ? -128.0f : 0.0f, is_signed ? 127.0f : 255.0f);
    } else if constexpr (mode == ScalarQuant::Int32ToHalf) {
        y = std::clamp(y, -65504.0f, 65504.0f);
    } else if constexpr (mode == ScalarQuant::FloatToHalf || mode == ScalarQuant::FloatToBf16) {
        constexpr float limit = mode == ScalarQuant::FloatToHalf ? 65504.0f : std::numeric_limits<float>::max();
        const bool saturate = ((cpu_sim::task_cookie() >> 48) & 1u) == 1u;
        if (std::isnan(y) && saturate)
            y = 0.0f;
        else if (std::isfinite(y) || saturate)
            y = std::clamp(y, -limit, limit);
    } else if constexpr (mode == ScalarQuant::Int32ToInt16) {
        const int shift = static_cast<int>((q >> 32) & 0xFu) + 1;
        y = static_cast<float>(static_cast<int16_t>(static_cast<int32_t>(x) >> shift));
    }
    if (relu)
        y = y > 0 ? y : 0;
    return static_cast<D>(y);
}

}  // namespace pto::sim
