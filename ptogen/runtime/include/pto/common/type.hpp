// Upstream-compatible home of the PTO type vocabulary: code written for the upstream CPU simulator
// includes <pto/common/type.hpp> (its test helpers do so before anything else) and expects the
// element types, the tile enums, the op enums (CmpMode, RoundMode, ...; generated from the specs)
// and the 16-bit float spellings below.
#pragma once

#include <pto/common/pto_core.hpp>
// The op enums are generated; the runtime's core also builds on its own (its tests do).
#if __has_include(<pto/common/pto_enums.hpp>)
#include <pto/common/pto_enums.hpp>
#endif
// The pipe vocabulary the pipe intrinsics' declarations name (TileSplitAxis, Direction, ...).
#include <pto/common/fifo.hpp>

// Host code names the 16-bit floats outside namespace pto: aclFloat16 is the host API's spelling of
// binary16, and kernels say half/bfloat16_t without qualification. All of them are the simulator's
// own types, so a buffer of aclFloat16 is a buffer of pto::half.
using aclFloat16 = pto::half;
using pto::bfloat16_t;
using pto::half;
using pto::hifloat8_t;  // an 8-bit float the simulator moves as bytes (pto/common/hifloat8.hpp)
using pto::float8_e4m3_t;  // the 8-bit MX floats (pto/common/fp8_types.hpp)
using pto::float8_e5m2_t;
using pto::float8_e8m0_t;

namespace pto {

// Dimension numbers of a GlobalTensor's Shape and Stride.
namespace GlobalTensorDim {
inline constexpr int DIM_0 = 0;
inline constexpr int DIM_1 = 1;
inline constexpr int DIM_2 = 2;
inline constexpr int DIM_3 = 3;
inline constexpr int DIM_4 = 4;
inline constexpr int TOTAL_DIM = 5;
} // namespace GlobalTensorDim

} // namespace pto
