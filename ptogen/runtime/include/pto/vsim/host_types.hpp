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
