// What kernels and host programs written for a PTO device use besides the tile ops, given CPU
// meanings: the address-space and kernel qualifiers, the pipes and the flags that order them, and
// the subset of the ACL host API (device, stream, memory) that launches a kernel and moves its data.
// The simulator runs every op to completion, so streams are synchronous and "device" memory is host
// memory; what stays is the checking of the documented rules of each call.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <pto/common/pipe_ids.hpp>  // before pto_core.hpp, whose op enums name pipes
#include <pto/common/pto_core.hpp>
#include <pto/cpu/execution_context.hpp>
// The selected profile (generated); without the generated tree, the simulator's own (CPU) rules.
#if __has_include(<pto/profiles/profile_select.hpp>)
#include <pto/profiles/profile_select.hpp>
#endif

// ---- Qualifiers -------------------------------------------------------------------------------
// Device code marks kernels (AICORE, __global__), global-memory pointers (__gm__), on-chip buffers
// and parameter directions. The host compiler has one address space, so each marks nothing here.
#define AICORE
#define __global__
#define __aicore__
#define __gm__
#define __in__
#define __out__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __biasbuf__
#define __tf__

namespace pto::sim {

inline constexpr int pipe_count = cpu_sim::CoreFlags::pipes;
inline constexpr int event_id_count = cpu_sim::CoreFlags::ids;

inline void check_flag_args(const char* op, pipe_t src, pipe_t dst, event_t id) {
    check(src >= 0 && src < pipe_count && src != PIPE_ALL && dst >= 0 && dst < pipe_count && dst != PIPE_ALL, op,
          "the source and destination must be single pipes (PIPE_S .. PIPE_FIX, not PIPE_ALL)");
    check(id >= 0 && id < event_id_count, op, "the event id must be one of EVENT_ID0 .. EVENT_ID7");
}

// How many of this core's set_flag(src, dst, id) signals no wait_flag has consumed yet.
inline int pending_flag(pipe_t src, pipe_t dst, event_t id) {
    return cpu_sim::CoreFlags::Instance().Pending(src, dst, id);
}

} // namespace pto::sim

inline void set_flag(pipe_t src, pipe_t dst, event_t id) {
    pto::sim::check_flag_args("set_flag", src, dst, id);
    pto::cpu_sim::CoreFlags::Instance().Raise(src, dst, id);
}

inline void wait_flag(pipe_t src, pipe_t dst, event_t id) {
    pto::sim::check_flag_args("wait_flag", src, dst, id);
    if (pto::cpu_sim::CoreFlags::Instance().Take(src, dst, id))
        return;
    constexpr const char* rule =
        "no set_flag with the same pipes and event id precedes it on this core (the device would wait forever)";
#if !defined(PTO_TARGET_PROFILE) || PTO_TARGET_PROFILE == PTO_PROFILE_CPU
    pto::sim::warn("wait_flag", rule);
#else
    pto::sim::fail("wait_flag", rule);
#endif
}

// Waits until every earlier instruction of `pipe` has finished; in program order they all have.
inline void pipe_barrier(pipe_t pipe) {
    pto::sim::check(pipe >= 0 && pipe < pto::sim::pipe_count, "pipe_barrier", "the pipe must be PIPE_S .. PIPE_FIX");
}

// ---- Vector unit and core control -------------------------------------------------------------
// Kernels set the vector unit's mask mode and lane masks and the core's control register before
// vector work. The simulated vector ops take their extents from the tiles, so the mask calls
// change nothing; the control register is kept per core, as upstream's simulator keeps it.
inline void set_mask_norm() {}
inline void set_mask_count() {}
inline void set_vector_mask(std::uint64_t /*high*/, std::uint64_t /*low*/) {}

inline std::uint64_t& cpu_ctrl_register() {
    static thread_local std::uint64_t ctrl = 0;
    return ctrl;
}
inline std::uint64_t get_ctrl() {
    return cpu_ctrl_register();
}
inline void set_ctrl(std::uint64_t value) {
    cpu_ctrl_register() = value;
}
inline std::uint64_t sbitset1(std::uint64_t value, int bit) {
    return value | (std::uint64_t{1} << bit);
}
inline std::uint64_t sbitset0(std::uint64_t value, int bit) {
    return value & ~(std::uint64_t{1} << bit);
}

// Data-cache maintenance and memory barriers: the host's memory is coherent, so they order nothing
// beyond what the threads' own synchronisation orders.
using mem_dsb_t = int;
inline constexpr mem_dsb_t DSB_DDR = 0;
inline constexpr mem_dsb_t DSB_ALL = 1;
inline constexpr mem_dsb_t DSB_UB = 2;
struct cache_line_t {
    static constexpr int SINGLE_CACHE_LINE = 0;
    static constexpr int ENTIRE_DATA_CACHE = 1;
    static constexpr int CACHELINE_OUT = 2;
};
struct dcci_dst_t {
    static constexpr int CACHELINE_OUT = 2;
};
inline void dcci(const volatile void* /*address*/, int /*what*/) {}
inline void dcci(const volatile void* /*address*/, int /*what*/, int /*where*/) {}
inline void dsb(mem_dsb_t /*kind*/) {}

// A tile's buffer address as device code reads it; on the host the pointer itself.
#define __cce_get_tile_ptr(x) x

// The device's printf, and the largest finite half that kernels clamp to.
namespace cce {
template <typename... Args>
int printf(const char* format, Args... args) {
    return std::printf(format, args...);
}
} // namespace cce
#ifndef F16_MAX
#define F16_MAX 65504.0f
#endif

// ---- ACL host API -----------------------------------------------------------------------------
// Return codes, policies and copy directions carry the values of the ACL headers.
using aclError = int;
inline constexpr aclError ACL_SUCCESS = 0;
inline constexpr aclError ACL_ERROR_INVALID_PARAM = 100000;

using aclrtStream = void*;

enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
};

enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
};

namespace pto::sim {

// The stream handles given out and not yet destroyed; a stream is a synchronous queue here, so a
// handle only has to be distinct and checkable.
inline std::atomic<int>& live_streams() {
    static std::atomic<int> count = 0;
    return count;
}

// Zeroed so that a kernel reading memory nobody wrote sees the same values on every run.
inline aclError host_alloc(void** ptr, std::size_t size) {
    if (ptr == nullptr || size == 0)
        return ACL_ERROR_INVALID_PARAM;
    *ptr = std::calloc(1, size);
    return *ptr == nullptr ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS;
}

} // namespace pto::sim

inline aclError aclInit(const char* /*configPath*/) {
    return ACL_SUCCESS;
}
inline aclError aclFinalize() {
    return ACL_SUCCESS;
}
inline aclError aclrtSetDevice(int32_t deviceId) {
    return deviceId >= 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}
inline aclError aclrtResetDevice(int32_t deviceId) {
    return deviceId >= 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

inline aclError aclrtCreateStream(aclrtStream* stream) {
    if (stream == nullptr)
        return ACL_ERROR_INVALID_PARAM;
    // A distinct non-null handle per stream; nothing is ever queued on it.
    *stream = static_cast<aclrtStream>(new char);
    ++pto::sim::live_streams();
    return ACL_SUCCESS;
}
inline aclError aclrtDestroyStream(aclrtStream stream) {
    if (stream == nullptr)
        return ACL_ERROR_INVALID_PARAM;
    delete static_cast<char*>(stream);
    --pto::sim::live_streams();
    return ACL_SUCCESS;
}
// Every launch has finished when it returns, so there is nothing to wait for.
inline aclError aclrtSynchronizeStream(aclrtStream /*stream*/) {
    return ACL_SUCCESS;
}

inline aclError aclrtMalloc(void** devPtr, std::size_t size, aclrtMemMallocPolicy /*policy*/) {
    return pto::sim::host_alloc(devPtr, size);
}
inline aclError aclrtMallocHost(void** hostPtr, std::size_t size) {
    return pto::sim::host_alloc(hostPtr, size);
}
inline aclError aclrtFree(void* devPtr) {
    std::free(devPtr);
    return ACL_SUCCESS;
}
inline aclError aclrtFreeHost(void* hostPtr) {
    std::free(hostPtr);
    return ACL_SUCCESS;
}

// Copies `count` bytes; as on the device, `count` may not exceed the destination's size `destMax`.
inline aclError aclrtMemcpy(void* dst, std::size_t destMax, const void* src, std::size_t count,
                            aclrtMemcpyKind /*kind*/) {
    if (count == 0)
        return ACL_SUCCESS;
    if (dst == nullptr || src == nullptr || count > destMax)
        return ACL_ERROR_INVALID_PARAM;
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
}

// Sets `count` bytes to `value`; `count` may not exceed the destination's size `maxCount`.
inline aclError aclrtMemset(void* devPtr, std::size_t maxCount, int32_t value, std::size_t count) {
    if (count == 0)
        return ACL_SUCCESS;
    if (devPtr == nullptr || count > maxCount)
        return ACL_ERROR_INVALID_PARAM;
    std::memset(devPtr, value, count);
    return ACL_SUCCESS;
}

inline float aclFloat16ToFloat(pto::half value) {
    return static_cast<float>(value);
}
inline pto::half aclFloatToFloat16(float value) {
    return pto::half(value);
}

// The cross-core and buffer-slot builtins of the pipeline-sync pages.
#include <pto/common/cross_core.hpp>
// The host side of upstream's multi-rank communication tests (one process holds every rank).
#include <pto/comm/host_compat.hpp>
