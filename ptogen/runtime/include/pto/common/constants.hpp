// Hardware constants PTO kernels size their tiles and repeats with, and the helpers that encode a
// custom pad value into PadValue.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include <pto/common/type.hpp>

namespace pto {

inline constexpr int BLOCK_BYTE_SIZE = 32; // one data block: the unit of on-chip alignment
inline constexpr int REPEAT_BYTE = 256;    // bytes one vector repeat processes
inline constexpr std::uint64_t BLOCK_MAX_PER_REPEAT = REPEAT_BYTE / BLOCK_BYTE_SIZE;
inline constexpr int REPEAT_MAX = 255;
inline constexpr int REPEAT_STRIDE_MAX = 255;
inline constexpr int C0_SIZE_BYTE = 32;    // bytes of the innermost (C0) axis of a fractal
inline constexpr int FRACTAL_NZ_ROW = 16;  // rows of one NZ fractal box
inline constexpr int CUBE_BLOCK_SIZE = 512; // bytes of one cube fractal box (16 x 32 bytes)
inline constexpr std::uint64_t MASK_LEN = 64;

// Named small integers that kernels and their tests use for shapes and counts.
inline constexpr int NUM_1 = 1;
inline constexpr int NUM_4 = 4;
inline constexpr int NUM_8 = 8;
inline constexpr int NUM_12 = 12;
inline constexpr int NUM_16 = 16;
inline constexpr int NUM_32 = 32;
inline constexpr int NUM_64 = 64;
inline constexpr int NUM_77 = 77;
inline constexpr int NUM_96 = 96;
inline constexpr int NUM_128 = 128;
inline constexpr int NUM_256 = 256;
inline constexpr int NUM_512 = 512;

// A custom pad value is CustomBase with the value's bit pattern in the low 32 bits: a 32-bit value
// as is, a narrower one zero-extended from its own width.
constexpr bool isCustomPadValue(PadValue pv) {
    return static_cast<std::uint64_t>(pv) >= static_cast<std::uint64_t>(PadValue::CustomBase);
}

constexpr std::uint32_t getCustomPadBits(PadValue pv) {
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(pv) & 0xffffffffULL);
}

namespace detail {
constexpr PadValue custom_pad(std::uint32_t bits) {
    return static_cast<PadValue>(static_cast<std::uint64_t>(PadValue::CustomBase) | bits);
}
} // namespace detail

constexpr PadValue PadValueCustom(float value) {
    return detail::custom_pad(std::bit_cast<std::uint32_t>(value));
}
constexpr PadValue PadValueCustom(std::int32_t value) {
    return detail::custom_pad(static_cast<std::uint32_t>(value));
}
constexpr PadValue PadValueCustom(std::uint32_t value) {
    return detail::custom_pad(value);
}
constexpr PadValue PadValueCustom(std::int16_t value) {
    return detail::custom_pad(static_cast<std::uint16_t>(value));
}
constexpr PadValue PadValueCustom(std::int8_t value) {
    return detail::custom_pad(static_cast<std::uint8_t>(value));
}
constexpr PadValue PadValueCustom(std::uint8_t value) {
    return detail::custom_pad(value);
}
// 16-bit floats are passed as their raw bits.
constexpr PadValue PadValueCustom16(std::uint16_t bits16) {
    return detail::custom_pad(bits16);
}

// PadCustom<V>: the custom pad value of a compile-time constant. A floating-point V is stored as
// a float; an integer V as its value converted to 32 bits.
template <auto V>
constexpr PadValue pad_custom_of() {
    if constexpr (std::is_floating_point_v<decltype(V)>)
        return PadValueCustom(static_cast<float>(V));
    else
        return detail::custom_pad(static_cast<std::uint32_t>(V));
}

template <auto V>
inline constexpr PadValue PadCustom = pad_custom_of<V>();

} // namespace pto
