// What the device compiler provides around the vector builtins: the address-space and kernel
// qualifiers (empty on the host: there is one address space), `__VEC_SCOPE__` (a vector function body,
// here a plain block, run at once), and the register-width constants. Each is defined only when the
// including code has not defined it already, with the same (empty) body where upstream defines it too.
#pragma once

#include <cstdint>

#include <pto/vsim/register.hpp>

#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __cbuf__
#define __cbuf__
#endif
#ifndef __ca__
#define __ca__
#endif
#ifndef __cb__
#define __cb__
#endif
#ifndef __cc__
#define __cc__
#endif
#ifndef __fbuf__
#define __fbuf__
#endif
#ifndef __ssbuf__
#define __ssbuf__
#endif
#ifndef __in__
#define __in__
#endif
#ifndef __out__
#define __out__
#endif
#ifndef __tf__
#define __tf__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __simt_vf__
#define __simt_vf__
#endif
#ifndef __simt_callee__
#define __simt_callee__
#endif
#ifndef __VEC_SCOPE__
#define __VEC_SCOPE__
#endif

// Bytes in a vector register, and lanes per register at each element width.
inline constexpr std::uint32_t CCE_VL = pto::vsim::VL;
inline constexpr std::uint32_t ELE_CNT_B8 = pto::vsim::VL / 1;
inline constexpr std::uint32_t ELE_CNT_B16 = pto::vsim::VL / 2;
inline constexpr std::uint32_t ELE_CNT_B32 = pto::vsim::VL / 4;
inline constexpr std::uint32_t ELE_CNT_B64 = pto::vsim::VL / 8;

namespace pto::vsim {
// Ordering points between vector loads and stores (`mem_bar`). The simulation runs every builtin to
// completion in program order, so each barrier is already satisfied.
enum class barrier : std::uint8_t { vst_vld, vld_vst, vst_vst, vv_all, spr_ar };
} // namespace pto::vsim

inline constexpr pto::vsim::barrier VST_VLD = pto::vsim::barrier::vst_vld;
inline constexpr pto::vsim::barrier VLD_VST = pto::vsim::barrier::vld_vst;
inline constexpr pto::vsim::barrier VST_VST = pto::vsim::barrier::vst_vst;
inline constexpr pto::vsim::barrier VV_ALL = pto::vsim::barrier::vv_all;
inline constexpr pto::vsim::barrier SPR_AR = pto::vsim::barrier::spr_ar;

// The fixpipe quantisation modes the device compiler declares and A5 headers name in their type
// tables (common.hpp). Fixpipe is not part of the vector simulation: the enum only has to exist. It
// is unscoped, as the device compiler's is: A5 code packs a mode into register fields with integer
// operators (`quantPre & 0x1f`, pto/common/arch/register/tstore_common.hpp).
enum QuantMode_t : std::uint8_t {
    NoQuant, F322F16, F322BF16, QF322B8_PRE, QF322HIF8_PRE, QF322F16_PRE, QF322BF16_PRE, QF322F32_PRE,
    QF322FP8_PRE, VQF322FP8_PRE, REQ8, DEQF16, QS322BF16_PRE, VQF322B8_PRE, VQF322HIF8_PRE, VQF322F16_PRE,
    VQF322BF16_PRE, VQF322F32_PRE, VREQ8, VDEQF16, VQS322BF16_PRE
};
