// The scalar unit's DMA builtins of the dma-copy pages, in the spelling A5 code calls them: the burst
// copies GM -> UB (`copy_gm_to_ubuf_align_v2`), UB -> GM (`copy_ubuf_to_gm_align_v2`), UB -> UB
// (`copy_ubuf_to_ubuf`) and UB -> L1 (`copy_ubuf_to_cbuf`), and the registers the first two read:
// two loop levels around the bursts, per direction (`set_loop_size_*`, `set_loop1_stride_*`,
// `set_loop2_stride_*`), and the pad value (`set_mov_pad_val`). The fix-pipe's `set_loop3_para` is
// kept beside them. The registers are the calling core's: a simulated core runs on a thread of its
// own (as the control register of pto/common/cpu_stub.hpp), and this header also serves client builds
// of A5 code, which have no runtime execution context. Addresses are host addresses: every memory is
// host memory, so a copy moves bytes where its pointers say.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace pto::vsim {

// A loop level's register word: the GM stride in bytes in bits [39:0], the UB stride in [60:40]
// (both directions: A5's TLoad and TStore pack them so). The size word: the inner (loop1) count in
// [20:0], the outer (loop2) count in [41:21].
struct dma_loops {
    std::uint64_t size = std::uint64_t{1} << 21 | 1; // one pass of each level: the bursts alone
    std::uint64_t loop1 = 0;
    std::uint64_t loop2 = 0;

    std::uint64_t count1() const {
        return size & 0x1FFFFF;
    }
    std::uint64_t count2() const {
        return (size >> 21) & 0x1FFFFF;
    }
    static std::uint64_t gm_stride(std::uint64_t word) {
        return word & 0xFFFFFFFFFFULL;
    }
    static std::uint64_t ub_stride(std::uint64_t word) {
        return (word >> 40) & 0x1FFFFF;
    }
};

struct dma_registers {
    dma_loops outtoub; // GM -> UB
    dma_loops ubtoout; // UB -> GM
    std::uint64_t pad_value = 0;
    std::uint64_t loop3_para = 1; // one ND matrix, no strides
};

inline dma_registers& dma() {
    static thread_local dma_registers registers;
    return registers;
}

[[noreturn]] inline void dma_refuse(const char* builtin, const char* what) {
    std::fprintf(stderr, "PTO runtime error: %s: %s\n", builtin, what);
    std::abort();
}

inline void dma_check_pointers(const char* builtin, const void* dst, const void* src, std::uint64_t bytes) {
    if (bytes != 0 && (dst == nullptr || src == nullptr))
        dma_refuse(builtin, "a copy of at least one byte has a null source or destination");
}

// `n` bursts a pass, each pass's pointers advanced by the loop levels' strides (bytes): the
// bursts innermost, then loop1, then loop2; `row` moves one burst (and pads it, into UB).
template <typename Row>
void dma_walk(const dma_loops& loops, bool gm_is_src, unsigned char* dst, const unsigned char* src, std::uint32_t n,
              std::uint64_t src_stride, std::uint64_t dst_stride, Row row) {
    const auto src_step = [&](std::uint64_t word) {
        return gm_is_src ? dma_loops::gm_stride(word) : dma_loops::ub_stride(word);
    };
    const auto dst_step = [&](std::uint64_t word) {
        return gm_is_src ? dma_loops::ub_stride(word) : dma_loops::gm_stride(word);
    };
    for (std::uint64_t i2 = 0; i2 < loops.count2(); ++i2)
        for (std::uint64_t i1 = 0; i1 < loops.count1(); ++i1)
            for (std::uint32_t b = 0; b < n; ++b)
                row(dst + i2 * dst_step(loops.loop2) + i1 * dst_step(loops.loop1) + b * dst_stride,
                    src + i2 * src_step(loops.loop2) + i1 * src_step(loops.loop1) + b * src_stride);
}

// UB -> UB and UB -> L1: `n` blocks of `len` 32-byte units; each side skips its gap (32-byte units)
// after a block.
inline void dma_blocks(const char* builtin, void* dst, const void* src, std::uint16_t n, std::uint16_t len,
                       std::uint16_t src_gap, std::uint16_t dst_gap) {
    const std::uint64_t bytes = std::uint64_t{len} * 32;
    dma_check_pointers(builtin, dst, src, bytes * n);
    auto* out = static_cast<unsigned char*>(dst);
    const auto* in = static_cast<const unsigned char*>(src);
    for (std::uint16_t b = 0; b < n; ++b)
        std::memmove(out + b * (bytes + std::uint64_t{dst_gap} * 32), in + b * (bytes + std::uint64_t{src_gap} * 32),
                     bytes);
}

} // namespace pto::vsim

// ---- Registers -------------------------------------------------------------------------------
// Each setter writes one register word of the calling core, which stays until it is set again; A5
// code sets a loop size back to one pass of each level (`1 << 21 | 1`) after a looped copy.
#define PTO_VSIM_DMA_REGISTER(setter, word)                                                                            \
    inline void setter(std::uint64_t config) {                                                                         \
        pto::vsim::dma().word = config;                                                                                \
    }
PTO_VSIM_DMA_REGISTER(set_loop_size_outtoub, outtoub.size)
PTO_VSIM_DMA_REGISTER(set_loop1_stride_outtoub, outtoub.loop1)
PTO_VSIM_DMA_REGISTER(set_loop2_stride_outtoub, outtoub.loop2)
PTO_VSIM_DMA_REGISTER(set_loop_size_ubtoout, ubtoout.size)
PTO_VSIM_DMA_REGISTER(set_loop1_stride_ubtoout, ubtoout.loop1)
PTO_VSIM_DMA_REGISTER(set_loop2_stride_ubtoout, ubtoout.loop2)
// The pad value of GM -> UB copies: an element's bits in the low bytes (A5's GetPadValue).
PTO_VSIM_DMA_REGISTER(set_mov_pad_val, pad_value)
// The fix-pipe's ND loop word (ND count, source and destination ND strides): kept, read by no
// simulated op (the simulated fix-pipe moves one ND matrix).
PTO_VSIM_DMA_REGISTER(set_loop3_para, loop3_para)
#undef PTO_VSIM_DMA_REGISTER

// ---- Copies -----------------------------------------------------------------------------------
// GM -> UB: each burst row of `lenBurst` bytes lands after `leftPaddingCount` pad elements and is
// followed by `rightPaddingCount` of them; with `constantPaddingCtl` set, the pad elements hold the
// pad value (set_mov_pad_val) and the row is padded on to its next 32-byte boundary, else they are
// zero. `sid` and `l2CacheCtl` steer the device's cache only.
template <typename T>
void copy_gm_to_ubuf_align_v2(T* dst, T* src, std::uint8_t /*sid*/, std::uint32_t nBurst, std::uint32_t lenBurst,
                              std::uint8_t leftPaddingCount, std::uint8_t rightPaddingCount, bool constantPaddingCtl,
                              std::uint8_t /*l2CacheCtl*/, std::uint64_t burstSrcStride, std::uint32_t burstDstStride) {
    constexpr std::uint64_t elem = sizeof(std::conditional_t<std::is_void_v<T>, char, T>);
    const auto& regs = pto::vsim::dma();
    pto::vsim::dma_check_pointers("copy_gm_to_ubuf_align_v2", dst, src, std::uint64_t{nBurst} * lenBurst);
    const std::uint64_t left = leftPaddingCount * elem;
    const std::uint64_t used = left + lenBurst + rightPaddingCount * elem;
    const std::uint64_t row = constantPaddingCtl ? (used + 31) / 32 * 32 : used;
    const std::uint64_t pad = constantPaddingCtl ? regs.pad_value : 0;
    const auto fill = [&](unsigned char* at, std::uint64_t bytes) {
        for (std::uint64_t i = 0; i < bytes; ++i)
            at[i] = static_cast<unsigned char>(pad >> (8 * (i % elem)));
    };
    pto::vsim::dma_walk(regs.outtoub, true, reinterpret_cast<unsigned char*>(dst),
                        reinterpret_cast<const unsigned char*>(src), nBurst, burstSrcStride, burstDstStride,
                        [&](unsigned char* out, const unsigned char* in) {
                            fill(out, left);
                            std::memmove(out + left, in, lenBurst);
                            fill(out + left + lenBurst, row - left - lenBurst);
                        });
}

// UB -> GM: `nBurst` rows of `lenBurst` bytes; a UB row's padding stays behind.
template <typename T>
void copy_ubuf_to_gm_align_v2(T* dst, T* src, std::uint8_t /*sid*/, std::uint32_t nBurst, std::uint32_t lenBurst,
                              std::uint8_t /*l2CacheCtl*/, std::uint64_t burstDstStride, std::uint32_t burstSrcStride) {
    pto::vsim::dma_check_pointers("copy_ubuf_to_gm_align_v2", dst, src, std::uint64_t{nBurst} * lenBurst);
    pto::vsim::dma_walk(pto::vsim::dma().ubtoout, false, reinterpret_cast<unsigned char*>(dst),
                        reinterpret_cast<const unsigned char*>(src), nBurst, burstSrcStride, burstDstStride,
                        [&](unsigned char* out, const unsigned char* in) { std::memmove(out, in, lenBurst); });
}

// A5's form has no `sid` (A2A3's has).
inline void copy_ubuf_to_ubuf(void* dst, void* src, std::uint16_t nBurst, std::uint16_t lenBurst, std::uint16_t srcGap,
                              std::uint16_t dstGap) {
    pto::vsim::dma_blocks("copy_ubuf_to_ubuf", dst, src, nBurst, lenBurst, srcGap, dstGap);
}

// UB -> L1 moves the blocks as they are: the fractal layout is the caller's (A5 code passes bursts
// that already follow it).
inline void copy_ubuf_to_cbuf(void* dst, void* src, std::uint8_t /*sid*/, std::uint16_t nBurst, std::uint16_t lenBurst,
                              std::uint16_t srcGap, std::uint16_t dstGap) {
    pto::vsim::dma_blocks("copy_ubuf_to_cbuf", dst, src, nBurst, lenBurst, srcGap, dstGap);
}
