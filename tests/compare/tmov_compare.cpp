// A comparison kernel for TMOV, TMOV_FP and TTRANS: built once against upstream's CPU simulator
//   clang++-19 -std=c++20 -D__CPU_SIM -I UPSTREAM/include -include cstdint tmov_compare.cpp
// and once against ptogen's generated headers (generated/include and ptogen/runtime/include). Each
// run prints one line per case: its name and an FNV-1a hash of the destination's bytes, with the
// first bytes in hex; tests/opkinds/test_move.py demands the two outputs be identical.
#include <pto/pto-inst.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace pto;

namespace {

std::uint64_t state = 0x9e3779b97f4a7c15ull;
std::uint64_t next() {  // xorshift64*
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545f4914f6cdd1dull;
}

// Floats over many magnitudes and signs, with the special values first.
float float_value(int i) {
    const float special[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                             65504.0f, 65520.0f, 1e-8f, -1e-8f, 3.0e38f, -5.5f, 1.0f / 3.0f};
    if (i < static_cast<int>(sizeof(special) / sizeof(special[0])))
        return special[i];
    const std::uint64_t r = next();
    const float mant = static_cast<float>(r & 0xffffff) / static_cast<float>(0x1000000);
    const int exp = static_cast<int>((r >> 24) % 40) - 20;
    return ((r >> 40) & 1 ? -1.0f : 1.0f) * std::ldexp(1.0f + mant, exp);
}

std::int32_t int_value(int) {
    return static_cast<std::int32_t>(next() % 400001) - 200000;
}

template <typename T>
void report(const char* name, T& tile) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(tile.data());
    const std::size_t n = sizeof(typename T::DType) * T::Rows * T::Cols;
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < n; ++i)
        h = (h ^ bytes[i]) * 1099511628211ull;
    std::printf("%-44s %016llx", name, static_cast<unsigned long long>(h));
    for (std::size_t i = 0; i < 8 && i < n; ++i)
        std::printf(" %02x", bytes[i]);
    std::printf("\n");
}

template <typename T, typename F>
void fill(T& tile, F value) {
    for (int r = 0; r < T::Rows; ++r)
        for (int c = 0; c < T::Cols; ++c)
            tile.data()[GetTileElementOffset<T>(r, c)] = static_cast<typename T::DType>(value(r * T::Cols + c));
}

template <typename T>
void clear(T& tile) {
    std::memset(static_cast<void*>(tile.data()), 0x5a, sizeof(typename T::DType) * T::Rows * T::Cols);
}

// A vector-quantisation parameter: scale `significand * 2^(exponent - 127)` (10-bit fraction),
// an offset and the signedness of an 8-bit result, or a shift for int32_t -> int16_t.
std::uint64_t parameter(unsigned exponent, unsigned fraction, bool negative, unsigned offset, bool is_signed,
                        unsigned shift) {
    const std::uint64_t field = (static_cast<std::uint64_t>(negative) << 18) | (exponent << 10) | fraction;
    return (field << 13) | (static_cast<std::uint64_t>(shift & 0xf) << 32) |
           (static_cast<std::uint64_t>(offset & 0x1ff) << 37) | (static_cast<std::uint64_t>(is_signed) << 46);
}

template <typename T>
void fill_parameters(T& fp, int variant) {
    for (int c = 0; c < T::Cols; ++c) {
        const unsigned k = static_cast<unsigned>(c + variant);
        fp.data()[GetTileElementOffset<T>(0, c)] =
            parameter(110 + k % 24, (k * 37) % 1024, k % 5 == 0, (k * 11) % 300, k % 2 == 0, k % 16);
    }
}

using VecF32 = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor>;
using VecF32Col = Tile<TileType::Vec, float, 16, 32, BLayout::ColMajor>;
using VecI32 = Tile<TileType::Vec, int32_t, 16, 32, BLayout::RowMajor>;
using VecF16Col = Tile<TileType::Vec, half, 16, 32, BLayout::ColMajor>;
using VecBF16 = Tile<TileType::Vec, bfloat16_t, 16, 32, BLayout::RowMajor>;
using VecI8 = Tile<TileType::Vec, int8_t, 16, 32, BLayout::RowMajor>;
using VecU8 = Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor>;
using VecI16 = Tile<TileType::Vec, int16_t, 16, 32, BLayout::RowMajor>;
using VecF16 = Tile<TileType::Vec, half, 16, 32, BLayout::RowMajor>;
using Params = Tile<TileType::Vec, uint64_t, 1, 32, BLayout::RowMajor>;
using AccF32 = TileAcc<float, 32, 32>;
using AccI32 = TileAcc<int32_t, 32, 32>;
using VecF32x32 = Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor>;
using VecF16x32 = Tile<TileType::Vec, half, 32, 32, BLayout::RowMajor>;
using VecNZ = Tile<TileType::Vec, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
using VecZN = Tile<TileType::Vec, half, 32, 32, BLayout::RowMajor, 32, 32, SLayout::ColMajor>;
using VecPartial = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, -1>;
using VecPartialCol = Tile<TileType::Vec, half, 16, 32, BLayout::ColMajor, -1, -1>;

}  // namespace

int main() {
    {  // plain conversions between Vec tiles, layouts changing
        VecF32 src;
        VecF16Col h;
        VecBF16 b;
        VecF32Col f;
        TASSIGN(src, 0x0);
        TASSIGN(h, 0x8000);
        TASSIGN(b, 0x10000);
        TASSIGN(f, 0x18000);
        fill(src, float_value);
        clear(h), clear(b), clear(f);
        TMOV(h, src);
        report("float->half colmajor", h);
        TMOV(b, src);
        report("float->bfloat16", b);
        TMOV(f, src);
        report("float->float colmajor", f);
        clear(h);
        TMOV<VecF16Col, VecF32, ReluPreMode::NormalRelu>(h, src);
        report("float->half relu", h);
        clear(b);
        TMOV<STPhase::Final, VecBF16, VecF32, ReluPreMode::NormalRelu>(b, src);
        report("float->bfloat16 phase relu", b);
        clear(h);
        TMOV<VecF16Col, VecF32, AccToVecMode::DualModeSplitN, ReluPreMode::NormalRelu>(h, src);
        report("float->half acc-to-vec relu", h);
        clear(h);
        TMOV<VecF16Col, VecF32, ReluPreMode::NormalRelu>(h, src, 0x3f800000ull);
        report("float->half scalar quant relu", h);
        clear(b);
        TMOV<STPhase::Final, VecBF16, VecF32, AccToVecMode::SingleModeVec1>(b, src, 0x40000000ull);
        report("float->bfloat16 phase mode scalar quant", b);
    }
    {  // the vector path: quantising pairs read one parameter per column
        VecF32 src;
        VecI32 isrc;
        VecI8 i8;
        VecU8 u8;
        VecI16 i16;
        VecF16 f16;
        Params fp;
        TASSIGN(src, 0x0);
        TASSIGN(isrc, 0x8000);
        TASSIGN(i8, 0x10000);
        TASSIGN(u8, 0x14000);
        TASSIGN(i16, 0x18000);
        TASSIGN(f16, 0x20000);
        TASSIGN(fp, 0x28000);
        fill(src, float_value);
        fill(isrc, int_value);
        fill_parameters(fp, 0);
        clear(i8);
        TMOV_FP(i8, src, fp);
        report("fp float->int8", i8);
        clear(u8);
        TMOV_FP<VecU8, VecF32, Params, ReluPreMode::NormalRelu>(u8, src, fp);
        report("fp float->uint8 relu", u8);
        clear(i8);
        TMOV_FP<STPhase::Final, VecI8, VecI32, Params>(i8, isrc, fp);
        report("fp phase int32->int8", i8);
        clear(f16);
        TMOV<VecF16, VecI32, Params, AccToVecMode::SingleModeVec0>(f16, isrc, fp);
        report("fp mode int32->half", f16);
        clear(i16);
        TMOV<STPhase::Partial, VecI16, VecI32, Params, AccToVecMode::DualModeSplitM, ReluPreMode::NormalRelu>(i16, isrc,
                                                                                                            fp);
        report("fp phase mode int32->int16 relu", i16);
        clear(f16);
        TMOV_FP<VecF16, VecF32, Params, ReluPreMode::NormalRelu>(f16, src, fp);
        report("fp float->half relu (no quantisation)", f16);
        clear(i8);
        TMOV(i8, src, fp);
        report("tmp float->int8 (tmp read as fp)", i8);
    }
    {  // accumulators (16x16 boxes of 1 KiB) and boxed Vec layouts
        AccF32 acc;
        AccI32 iacc;
        VecF32x32 out;
        VecF16x32 hout;
        VecNZ nz;
        VecZN zn;
        TASSIGN(acc, 0x0);
        TASSIGN(iacc, 0x10000);
        TASSIGN(out, 0x0);
        TASSIGN(hout, 0x8000);
        TASSIGN(nz, 0x10000);
        TASSIGN(zn, 0x18000);
        fill(acc, float_value);
        fill(iacc, int_value);
        clear(out);
        TMOV(out, acc);
        report("acc float->vec float", out);
        clear(hout);
        TMOV<VecF16x32, AccF32, AccToVecMode::SingleModeVec0, ReluPreMode::NormalRelu>(hout, acc);
        report("acc float->vec half relu", hout);
        clear(nz);
        TMOV(nz, hout);
        report("vec half -> NZ", nz);
        clear(zn);
        TMOV(zn, nz);
        report("NZ -> ZN", zn);
        clear(out);
        TMOV(out, iacc);
        report("acc int32->vec float", out);
    }
    {  // run-time valid shapes: only the valid region moves
        VecPartial src(11, 19);
        VecPartialCol dst(11, 19);
        TASSIGN(src, 0x0);
        TASSIGN(dst, 0x8000);
        fill(src, float_value);
        clear(dst);
        TMOV(dst, src);
        report("valid 11x19 float->half colmajor", dst);
    }
    {  // TTRANS
        using Src = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor>;
        using Dst = Tile<TileType::Vec, float, 32, 16, BLayout::RowMajor>;
        using HSrc = Tile<TileType::Vec, half, 32, 64, BLayout::RowMajor, 29, 45>;
        using HDst = Tile<TileType::Vec, half, 64, 32, BLayout::RowMajor, 45, 29>;
        Src src;
        Dst dst, tmp;
        HSrc hsrc;
        HDst hdst, htmp;
        TASSIGN(src, 0x0);
        TASSIGN(dst, 0x4000);
        TASSIGN(tmp, 0x8000);
        TASSIGN(hsrc, 0xc000);
        TASSIGN(hdst, 0x10000);
        TASSIGN(htmp, 0x14000);
        fill(src, float_value);
        fill(hsrc, float_value);
        clear(dst);
        clear(hdst);
        TTRANS(dst, src, tmp);
        report("ttrans float 16x32", dst);
        TTRANS(hdst, hsrc, htmp);
        report("ttrans half valid 29x45", hdst);
    }
    return 0;
}
