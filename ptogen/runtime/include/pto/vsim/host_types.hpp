// The first force-included header of a client build (`ptogen cflags --builtins`), ahead of the other
// tree's host prelude. That prelude makes `bfloat16_t` an alias of `_Float16` (so half and bfloat16
// overloads collide) unless C++23 `std::bfloat16_t` is available, which it detects by
// `__STDCPP_BFLOAT16_T__`. Clang has an arithmetic `__bf16` but does not define that macro; with it
// defined here, the library's <stdfloat> (or pto/vsim/host/stdfloat where the library has none) gives
// `std::bfloat16_t` a type of its own. Other compilers are left as they are: g++ 13 and later define
// the macro themselves, and g++ 12 has no arithmetic bfloat16 type at all.
#pragma once

#if defined(__clang__) && __clang_major__ >= 17 && __cplusplus >= 202302L && !defined(__STDCPP_BFLOAT16_T__)
#define __STDCPP_BFLOAT16_T__ 1
#endif

// Clang lowers a float -> __bf16 conversion to a call of `__truncsfbf2`, which libgcc provides only
// from GCC 13 on. A weak definition (round to nearest even, NaN kept quiet) links where the library
// has none and yields to the library's where it has one.
#if defined(__clang__) && defined(__x86_64__) && __clang_major__ >= 17
#include <cstdint>
#include <cstring>
extern "C" __attribute__((weak)) __bf16 __truncsfbf2(float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    std::uint16_t half_bits;
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        half_bits = static_cast<std::uint16_t>((bits >> 16) | 0x40u);
    else
        half_bits = static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
    __bf16 out;
    std::memcpy(&out, &half_bits, sizeof out);
    return out;
}
#endif
