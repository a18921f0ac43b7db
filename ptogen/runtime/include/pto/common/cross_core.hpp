// The builtins that synchronise the cores of one cluster and the buffer-slot protocol of the
// pipeline-sync pages: A2A3's cross-core events (`ffts_cross_core_sync(pipe, config)` signals,
// `wait_flag_dev(id)` waits, ids 0-15), A5's intra-block semaphores (`set_intra_block(pipe, id)`,
// `wait_intra_block(pipe, id)`, ids 0-31: 0-15 reach AIV0, 16-31 AIV1), and `get_buf` / `rls_buf`.
// The simulated cores of a block are its sub-blocks, each on its own thread: a signal counts on the
// block's semaphore, a wait takes one, sleeping while another sub-block may still signal. A wait no
// signal can satisfy stops the simulation naming the builtin and its call site (the device would
// hang); how long a sub-block waits for another is PTO_CPU_SIM_WAIT_MS, 2000 ms by default.
#pragma once

#include <chrono>
#include <cstdint>
#include <pto/common/check_core.hpp>
#include <pto/cpu/execution_context.hpp>

namespace pto::sim {

inline constexpr std::uint64_t cross_core_ids = 16;
inline constexpr std::uint64_t intra_block_ids = 32;
inline constexpr std::uint64_t buffer_ids = 32;
enum SemaphoreFamily : int { cross_core_family = 0, intra_block_family = 1 };

inline std::chrono::milliseconds cross_core_wait_bound() {
    return std::chrono::milliseconds(cpu_sim::ReadEnvU32("PTO_CPU_SIM_WAIT_MS", 2000));
}

inline void wait_semaphore(const char* op, int family, std::uint64_t id) {
    if (!cpu_sim::ClusterSemaphores::Instance().Take(family, id, cross_core_wait_bound()))
        fail(op, "no core of this block signalled the semaphore (the device would wait forever)", "id", id);
}

}  // namespace pto::sim

// A2A3 `set_cross_core`: the configuration word packs the mode (bits 4-5) and the event id
// (bits 8-11), as upstream's getFFTSMsg builds it; the pipe is the one whose earlier work the
// signal follows, already done in program order.
inline void ffts_cross_core_sync(pipe_t pipe, std::uint64_t config) {
    pto::sim::check(pipe >= 0 && pipe < pto::sim::pipe_count && pipe != PIPE_ALL, "ffts_cross_core_sync",
                    "the pipe must be a single pipe (PIPE_S .. PIPE_FIX, not PIPE_ALL)");
    pto::cpu_sim::ClusterSemaphores::Instance().Signal(pto::sim::cross_core_family, (config >> 8) & 0xF);
}

inline void wait_flag_dev(std::int64_t id) {
    if (id < 0 || static_cast<std::uint64_t>(id) >= pto::sim::cross_core_ids)
        pto::sim::fail("wait_flag_dev", "the event id must be in 0..15", "id", id);
    pto::sim::wait_semaphore("wait_flag_dev", pto::sim::cross_core_family, static_cast<std::uint64_t>(id));
}

// The page's spelling names the pipe too; the whole core waits either way.
inline void wait_flag_dev(pipe_t /*pipe*/, std::int64_t id) {
    wait_flag_dev(id);
}

inline void set_intra_block(pipe_t /*pipe*/, std::uint64_t id) {
    if (id >= pto::sim::intra_block_ids)
        pto::sim::fail("set_intra_block", "the semaphore id must be in 0..31 (0-15 AIV0, 16-31 AIV1)", "id", id);
    pto::cpu_sim::ClusterSemaphores::Instance().Signal(pto::sim::intra_block_family, id);
}

inline void wait_intra_block(pipe_t /*pipe*/, std::uint64_t id) {
    if (id >= pto::sim::intra_block_ids)
        pto::sim::fail("wait_intra_block", "the semaphore id must be in 0..31 (0-15 AIV0, 16-31 AIV1)", "id", id);
    pto::sim::wait_semaphore("wait_intra_block", pto::sim::intra_block_family, id);
}

// `get_buf(pipe, id, mode)` acquires buffer slot `id` for `pipe`; `rls_buf(pipe, id, mode)` frees it
// again, from the same pipe. A core runs in program order, so a slot another pipe holds would never
// come free before this acquire: that, a second acquire and a release of a slot the pipe does not
// hold stop the simulation. The mode selects how the device signals the next stage; in program
// order there is nothing to signal.
inline void get_buf(pipe_t pipe, std::uint64_t id, bool /*mode*/) {
    pto::sim::check(pipe >= 0 && pipe < pto::sim::pipe_count && pipe != PIPE_ALL, "get_buf",
                    "the pipe must be a single pipe (PIPE_S .. PIPE_FIX, not PIPE_ALL)");
    if (id >= pto::sim::buffer_ids)
        pto::sim::fail("get_buf", "the buffer id must be in 0..31", "id", id);
    const int holder = pto::cpu_sim::ClusterSemaphores::Instance().Acquire(id, pipe);
    if (holder == pipe)
        pto::sim::fail("get_buf", "the pipe already holds this buffer (no rls_buf since its get_buf)", "id", id,
                       "pipe", pipe);
    if (holder >= 0)
        pto::sim::fail("get_buf", "another pipe holds this buffer and releases it only later in program order "
                                  "(the device would wait forever)", "id", id, "holder", holder);
}

inline void rls_buf(pipe_t pipe, std::uint64_t id, bool /*mode*/) {
    if (id >= pto::sim::buffer_ids)
        pto::sim::fail("rls_buf", "the buffer id must be in 0..31", "id", id);
    const int holder = pto::cpu_sim::ClusterSemaphores::Instance().Release(id);
    if (holder != pipe)
        pto::sim::fail("rls_buf", "the pipe does not hold this buffer (no get_buf of it on this pipe)", "id", id,
                       "pipe", pipe, "holder", holder);
}
