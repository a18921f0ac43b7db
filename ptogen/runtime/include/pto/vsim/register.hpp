// Register model of the vector builtins, in the spelling A5 vector code uses: a vector register is a
// 256-byte image (`vector_f32`, `vector_s16`, ...) that code may reinterpret as another element type,
// a predicate (`vector_bool`) is a 256-bit image with one bit per register byte, so one image serves
// b8, b16 and b32 lanes alike. Nothing here names a tile-runtime type: the builtins compile both in
// front of upstream's own headers (where `half` is the compiler's) and under the tile runtime.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <pto/vsim/float16_codec.hpp>

namespace pto::vsim {

inline constexpr int VL = 256;     // bytes in a vector register
inline constexpr int PL = VL / 8;  // bytes in a predicate register: one bit per register byte

// Element kinds, named as the targets' `asm` spelling of each element type: `bits` is what a lane
// stores, `calc` the type its math runs in (16-bit floats widen to float, rounded back once per
// result, to nearest even).
template <typename Bits, typename Calc, bool Float, char Code, int Width>
struct kind_base {
    using bits = Bits;
    using calc = Calc;
    static constexpr bool is_float = Float;
    static constexpr char code = Code;  // 'u', 's', 'f' or 'b' (bfloat16)
    static constexpr int width = Width;  // bytes per lane
    // The unsigned integer of the lane's width: bitwise lane math runs on the stored bit pattern, so a
    // float lane's bits combine as they are stored (A5 code ORs half and float registers).
    using pattern = std::conditional_t<
        Width == 1, std::uint8_t,
        std::conditional_t<Width == 2, std::uint16_t, std::conditional_t<Width == 4, std::uint32_t, std::uint64_t>>>;
    static constexpr calc decode(bits b) {
        if constexpr (std::is_same_v<bits, calc>)
            return b;
        else
            return std::bit_cast<calc>(b);
    }
    static constexpr bits encode(calc v) {
        if constexpr (std::is_same_v<bits, calc>)
            return v;
        else
            return std::bit_cast<bits>(v);
    }
};

struct u8 : kind_base<std::uint8_t, std::uint8_t, false, 'u', 1> {};
struct i8 : kind_base<std::int8_t, std::int8_t, false, 's', 1> {};
struct u16 : kind_base<std::uint16_t, std::uint16_t, false, 'u', 2> {};
struct i16 : kind_base<std::int16_t, std::int16_t, false, 's', 2> {};
struct u32 : kind_base<std::uint32_t, std::uint32_t, false, 'u', 4> {};
struct i32 : kind_base<std::int32_t, std::int32_t, false, 's', 4> {};
struct u64 : kind_base<std::uint64_t, std::uint64_t, false, 'u', 8> {};
struct i64 : kind_base<std::int64_t, std::int64_t, false, 's', 8> {};
struct f32 : kind_base<float, float, true, 'f', 4> {};
struct f16 : kind_base<std::uint16_t, float, true, 'f', 2> {
    static constexpr float decode(std::uint16_t b) {
        return detail::half_bits_to_float(b);
    }
    static constexpr std::uint16_t encode(float v) {
        return detail::float_to_half_bits(v);
    }
};
struct bf16 : kind_base<std::uint16_t, float, true, 'b', 2> {
    static constexpr float decode(std::uint16_t b) {
        return detail::bfloat16_bits_to_float(b);
    }
    static constexpr std::uint16_t encode(float v) {
        return detail::float_to_bfloat16_bits(v);
    }
};

// The 8- and 4-bit float formats (a 4-bit register lane holds two elements): stored and moved as
// bytes; lane math on them is the conversions', which name the format themselves.
struct f8e4m3 : kind_base<std::uint8_t, std::uint8_t, true, 'e', 1> {};
struct f8e5m2 : kind_base<std::uint8_t, std::uint8_t, true, 'e', 1> {};
struct f8e8m0 : kind_base<std::uint8_t, std::uint8_t, true, 'e', 1> {};
struct hif8 : kind_base<std::uint8_t, std::uint8_t, true, 'e', 1> {};
struct f4e2m1 : kind_base<std::uint8_t, std::uint8_t, true, 'e', 1> {};
struct f4e1m2 : kind_base<std::uint8_t, std::uint8_t, true, 'e', 1> {};

struct reg_base {};  // marks register images, whatever their element kind

// A vector register: VL bytes, lane i of kind K at bytes [i * width, (i + 1) * width). A register
// that was never written reads as zero (the hardware leaves it undefined; zero keeps runs repeatable).
template <typename K>
struct reg : reg_base {
    using kind = K;
    using bits_t = typename K::bits;
    using calc_t = typename K::calc;
    static constexpr int lanes = VL / K::width;

    alignas(32) unsigned char bytes[VL]{};

    bits_t get(int i) const {
        bits_t b;
        std::memcpy(&b, bytes + i * K::width, sizeof b);
        return b;
    }
    void set(int i, bits_t b) {
        std::memcpy(bytes + i * K::width, &b, sizeof b);
    }
    calc_t read(int i) const {
        return K::decode(get(i));
    }
    void write(int i, calc_t v) {
        set(i, K::encode(v));
    }
    typename K::pattern read_pattern(int i) const {
        typename K::pattern p;
        std::memcpy(&p, bytes + i * K::width, sizeof p);
        return p;
    }
    void write_pattern(int i, typename K::pattern p) {
        std::memcpy(bytes + i * K::width, &p, sizeof p);
    }
};

// A predicate register: bit k governs register byte k. A lane of w bytes is active when the bit of its
// first byte is set; the predicate builtins set or clear all w bits of a lane together.
struct pred {
    unsigned char bits[PL]{};

    bool bit(int k) const {
        return (bits[k >> 3] >> (k & 7)) & 1u;
    }
    void set_bit(int k, bool on) {
        const auto m = static_cast<unsigned char>(1u << (k & 7));
        bits[k >> 3] = static_cast<unsigned char>(on ? (bits[k >> 3] | m) : (bits[k >> 3] & ~m));
    }
    bool lane(int i, int width) const {
        return bit(i * width);
    }
    void set_lane(int i, int width, bool on) {
        for (int b = 0; b < width; ++b)
            set_bit(i * width + b, on);
    }
};

// Alignment state of the unaligned loads and stores (`UnalignReg`): bytes carried between calls.
struct align {
    alignas(32) unsigned char bytes[2 * VL]{};
    int count = 0;           // bytes held
    std::uintptr_t base = 0;  // address the held bytes belong at
    bool primed = false;      // a load stream was primed (vldas)
};

// Address register (`AddrReg`): an element offset the address-generating builtins advance.
struct address {
    std::int64_t offset = 0;
};

template <typename X>
inline constexpr bool is_reg = std::is_base_of_v<reg_base, std::remove_cvref_t<X>>;

// The register image behind an argument: a register itself, or a wrapper with a `RegType` and a
// conversion to it (A5's `RegTensor<T>`), which the builtins accept wherever a register goes.
template <typename X>
constexpr auto& image(X& x) {
    using Y = std::remove_cv_t<X>;
    if constexpr (std::is_base_of_v<reg_base, Y>)
        return x;
    else
        return static_cast<typename Y::RegType&>(const_cast<Y&>(x));
}
template <typename X>
using image_t = std::remove_cvref_t<decltype(image(std::declval<X&>()))>;
template <typename X>
using kind_of = typename image_t<X>::kind;

// A scalar operand as a lane value: host numbers convert by value; a 16-bit float object of the host
// (`_Float16`, the tile runtime's `half`, `std::bfloat16_t`) is taken by its bits.
template <typename K, typename S>
constexpr typename K::calc scalar(const S& s) {
    using C = typename K::calc;
    if constexpr (std::is_arithmetic_v<S> || std::is_enum_v<S>)
        return static_cast<C>(s);
    else if constexpr (sizeof(S) == sizeof(typename K::bits) && std::is_trivially_copyable_v<S>)
        return K::decode(std::bit_cast<typename K::bits>(s));
    else
        return static_cast<C>(static_cast<float>(s));
}

} // namespace pto::vsim

// The register types under their builtin names (global, as the compiler provides them).
struct vector_u8 : pto::vsim::reg<pto::vsim::u8> {};
struct vector_s8 : pto::vsim::reg<pto::vsim::i8> {};
struct vector_u16 : pto::vsim::reg<pto::vsim::u16> {};
struct vector_s16 : pto::vsim::reg<pto::vsim::i16> {};
struct vector_u32 : pto::vsim::reg<pto::vsim::u32> {};
struct vector_s32 : pto::vsim::reg<pto::vsim::i32> {};
struct vector_u64 : pto::vsim::reg<pto::vsim::u64> {};
struct vector_s64 : pto::vsim::reg<pto::vsim::i64> {};
struct vector_f16 : pto::vsim::reg<pto::vsim::f16> {};
struct vector_bf16 : pto::vsim::reg<pto::vsim::bf16> {};
struct vector_f32 : pto::vsim::reg<pto::vsim::f32> {};
struct vector_f8e4m3 : pto::vsim::reg<pto::vsim::f8e4m3> {};
struct vector_f8e5m2 : pto::vsim::reg<pto::vsim::f8e5m2> {};
struct vector_f8e8m0 : pto::vsim::reg<pto::vsim::f8e8m0> {};
struct vector_hif8 : pto::vsim::reg<pto::vsim::hif8> {};
struct vector_f4e2m1x2 : pto::vsim::reg<pto::vsim::f4e2m1> {};
struct vector_f4e1m2x2 : pto::vsim::reg<pto::vsim::f4e1m2> {};
struct vector_bool : pto::vsim::pred {};
struct vector_align : pto::vsim::align {};
struct vector_address : pto::vsim::address {};

namespace pto::vsim {
// The builtin register type of an element kind (vector_of<f32> is vector_f32).
template <typename K>
struct vector_for;
template <> struct vector_for<u8> { using type = vector_u8; };
template <> struct vector_for<i8> { using type = vector_s8; };
template <> struct vector_for<u16> { using type = vector_u16; };
template <> struct vector_for<i16> { using type = vector_s16; };
template <> struct vector_for<u32> { using type = vector_u32; };
template <> struct vector_for<i32> { using type = vector_s32; };
template <> struct vector_for<u64> { using type = vector_u64; };
template <> struct vector_for<i64> { using type = vector_s64; };
template <> struct vector_for<f16> { using type = vector_f16; };
template <> struct vector_for<bf16> { using type = vector_bf16; };
template <> struct vector_for<f32> { using type = vector_f32; };
template <> struct vector_for<f8e4m3> { using type = vector_f8e4m3; };
template <> struct vector_for<f8e5m2> { using type = vector_f8e5m2; };
template <> struct vector_for<f8e8m0> { using type = vector_f8e8m0; };
template <> struct vector_for<hif8> { using type = vector_hif8; };
template <> struct vector_for<f4e2m1> { using type = vector_f4e2m1x2; };
template <> struct vector_for<f4e1m2> { using type = vector_f4e1m2x2; };
template <typename K>
using vector_of = typename vector_for<K>::type;
} // namespace pto::vsim
