// The last force-included header of a client build (`ptogen cflags --builtins`): what the device
// compiler provides to A5 code besides the vector builtins, and the A5 backend's register aliases.
// Several A5 headers use `MaskReg` or `RegTensor` of pto/npu/a5/common.hpp without including it (on
// the device another header always brings it first); including it here lets each of them compile on
// its own, unmodified. (pto/npu/a5/utils.hpp is not included: it brings the 64-bit integer helpers,
// whose builtins a header that does not need them should not require.) A tree without an A5 backend
// gets only the builtins.
#pragma once

#include <pto/vsim/device_scalar.hpp>

#if __has_include(<pto/npu/a5/common.hpp>)
#include <pto/npu/a5/common.hpp>
// A5 headers that fence a scalar loop after vector code (`PtoSetWaitFlag<PIPE_V, PIPE_S>()`, TDivS)
// take it from upstream's event header, which the device build's umbrella header includes first.
#include <pto/common/event.hpp>
// The unified buffer's size (PTO_UBUF_SIZE_BYTES, A5's under the architecture the build selects), which
// TMrgSort.hpp reads without including its header.
#include <pto/common/buffer_limits.hpp>
#endif

// Upstream's `FloatIntUnion` (a float and its bits) has its float member and constructors only when
// compiled for the device (`__CCE_AICORE__`), and `HalfUnion` exists only there; A5 code that builds
// float constants from bits uses both. The specialisations below are that device view for the two
// element types the A5 code uses, declared before any use instantiates the host's.
#if __has_include(<pto/npu/a5/common.hpp>) && !defined(__CCE_AICORE__)
namespace pto {
template <>
union FloatIntUnion<float> {
    using UIntegerType = uint32_t;
    UIntegerType i;
    float f;
    constexpr FloatIntUnion() : f(0.0f) {}
    constexpr FloatIntUnion(UIntegerType val) : i(val) {}
};
template <>
union FloatIntUnion<half> {
    using UIntegerType = uint16_t;
    UIntegerType i;
    half f;
    constexpr FloatIntUnion() : f(0.0f) {}
    constexpr FloatIntUnion(UIntegerType val) : i(val) {}
};
using HalfUnion = FloatIntUnion<half>;
} // namespace pto
#endif

// Upstream's adaptation layer (pto/common/arch_cce_intrinsic.hpp) defines `pto_copy_ubuf_to_ubuf` for
// device builds only, and A5's TMrgSort.hpp and TSort32.hpp call it without including that header. On
// A5 it is the UB -> UB burst copy of the dma-copy pages, which pto/vsim/dma.hpp simulates.
#if __has_include(<pto/npu/a5/common.hpp>) && !defined(__CCE_AICORE__)
namespace pto {
inline void pto_copy_ubuf_to_ubuf(void* dst, void* src, uint16_t nBurst, uint16_t lenBurst, uint16_t srcGap,
                                  uint16_t dstGap) {
    copy_ubuf_to_ubuf(dst, src, nBurst, lenBurst, srcGap, dstGap);
}
} // namespace pto
#endif
