// Which simulated core the calling thread is. A device kernel runs once per core; each core reads its
// block index, its sub-block id (which vector core of a cube-vector group it is) and the number of
// sub-blocks per block. The simulator runs each core on its own host thread under an execution
// context of its own, set for a scope (ScopedExecutionContext) or for a whole launch
// (LaunchKernelMultiCore, one thread per block x sub-block). A thread outside any context is block 0,
// sub-block 0 of 1: the single core every kernel ran on before, so single-core code is unchanged.
// The names are upstream's CPU simulator's, so tests and kernels written for it build unmodified.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#if __has_include(<dlfcn.h>)
#include <dlfcn.h>
#endif

#include <pto/cpu/sim_scalar_quant.hpp>

namespace pto::cpu_sim {

// The cores of one LaunchKernelMultiCore launch as SYNCALL sees them: how many there are, how many
// wait at the barrier now, how many have returned from the kernel (and so never arrive again).
struct LaunchGroup {
    explicit LaunchGroup(std::uint32_t n) : cores(n) {}
    std::mutex mutex;
    std::condition_variable changed;
    const std::uint32_t cores;
    std::uint32_t arrived = 0;
    std::uint32_t finished = 0;
    std::uint64_t generation = 0;  // barriers completed
};

struct ExecutionContext {
    std::uint32_t block_idx = 0;
    std::uint32_t subblock_id = 0;
    std::uint32_t subblock_dim = 1;
    // The blocks of the running launch; 0 outside a launch (get_block_num() then answers the
    // configured core count, as upstream's simulator does).
    std::uint32_t block_num = 0;
    LaunchGroup* launch = nullptr;  // the running launch's cores; null outside a launch
};

inline thread_local ExecutionContext execution_context{};

// Hooks a host runtime may install (upstream's names): one that answers get_subblockid() instead of
// the context, one that supplies the storage a pipe's producer and consumer share (`pipe_key`
// names the pipe, `size` the bytes it needs). Null restores the simulator's own.
using GetSubblockIdInjectedHookFn = std::uint32_t (*)();
using GetPipeSharedStateInjectedHookFn = void* (*)(std::uint64_t pipe_key, std::size_t size);
inline std::atomic<GetSubblockIdInjectedHookFn> injected_subblock_id_hook{nullptr};
inline std::atomic<GetPipeSharedStateInjectedHookFn> injected_pipe_shared_state_hook{nullptr};

inline void register_hooks(void* get_subblock_id, void* get_pipe_shared_state) {
    injected_subblock_id_hook = reinterpret_cast<GetSubblockIdInjectedHookFn>(get_subblock_id);
    injected_pipe_shared_state_hook = reinterpret_cast<GetPipeSharedStateInjectedHookFn>(get_pipe_shared_state);
}

// A host runtime that runs the kernels itself (rather than through LaunchKernelMultiCore) may own the
// context instead: the simulator looks its functions up by upstream's names in the running program
// (exported, e.g. linked with -rdynamic, or in a loaded library) and, when they exist, asks them.
using SetExecutionContextHookFn = void (*)(std::uint32_t block_idx, std::uint32_t subblock_id, std::uint32_t subblock_dim);
using GetExecutionContextHookFn = void (*)(std::uint32_t* block_idx, std::uint32_t* subblock_id,
                                           std::uint32_t* subblock_dim);
using GetTaskCookieHookFn = std::uint64_t (*)();

template <typename Fn>
Fn host_hook(const char* name) {
#if __has_include(<dlfcn.h>)
    return reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
#else
    static_cast<void>(name);
    return nullptr;
#endif
}

// The host runtime's functions, looked up once.
struct HostHooks {
    SetExecutionContextHookFn set_context = host_hook<SetExecutionContextHookFn>("pto_cpu_sim_set_execution_context");
    GetExecutionContextHookFn get_context = host_hook<GetExecutionContextHookFn>("pto_cpu_sim_get_execution_context");
    GetSubblockIdInjectedHookFn subblock_id = host_hook<GetSubblockIdInjectedHookFn>("pto_sim_get_subblock_id");
    GetTaskCookieHookFn task_cookie = host_hook<GetTaskCookieHookFn>("pto_cpu_sim_get_task_cookie");
};
inline const HostHooks& host_hooks() {
    static const HostHooks hooks;
    return hooks;
}

// The calling core's context: the host runtime's when it has a hook, else the thread's own.
inline ExecutionContext current_context() {
    ExecutionContext context = execution_context;
    if (auto hook = host_hooks().get_context; hook != nullptr)
        hook(&context.block_idx, &context.subblock_id, &context.subblock_dim);
    return context;
}

// A sub-block count of 0 means 1, as upstream's simulator reads it.
inline void set_execution_context(std::uint32_t block_idx, std::uint32_t subblock_id, std::uint32_t subblock_dim = 1) {
    auto& context = execution_context;
    context.block_idx = block_idx;
    context.subblock_id = subblock_id;
    context.subblock_dim = subblock_dim == 0 ? 1 : subblock_dim;
    if (auto hook = host_hooks().set_context; hook != nullptr)
        hook(context.block_idx, context.subblock_id, context.subblock_dim);
}

// Back to the single core (and a zero fix-pipe control word).
inline void reset_execution_context() {
    execution_context = ExecutionContext{};
    set_task_cookie(0);
}

// The context for a scope; the enclosing one (and its task cookie) comes back when it ends.
class ScopedExecutionContext {
  public:
    ScopedExecutionContext(std::uint32_t block_idx, std::uint32_t subblock_id, std::uint32_t subblock_dim = 1)
        : saved_(execution_context), saved_cookie_(task_cookie()) {
        set_execution_context(block_idx, subblock_id, subblock_dim);
    }
    ~ScopedExecutionContext() {
        execution_context = saved_;
        set_task_cookie(saved_cookie_);
    }
    ScopedExecutionContext(const ScopedExecutionContext&) = delete;
    ScopedExecutionContext& operator=(const ScopedExecutionContext&) = delete;

  private:
    ExecutionContext saved_;
    std::uint64_t saved_cookie_;
};

// The event flags of every core: signals set_flag(src, dst, id) raised on a core and wait_flag has
// not yet consumed, per (source pipe, destination pipe, event id). Keyed by the core's block and
// sub-block, so a wait on one core never takes another core's signal; one lock, so cores running on
// several threads (or one thread switching contexts) may raise and consume at once.
class CoreFlags {
  public:
    static constexpr int pipes = 8;
    static constexpr int ids = 8;

    static CoreFlags& Instance() {
        static CoreFlags flags;
        return flags;
    }
    void Raise(int src, int dst, int id) {
        std::scoped_lock lock(mutex_);
        ++pending_[Here()][index(src, dst, id)];
    }
    // Consumes one raised signal; false when the calling core has none.
    bool Take(int src, int dst, int id) {
        std::scoped_lock lock(mutex_);
        int& count = pending_[Here()][index(src, dst, id)];
        if (count == 0)
            return false;
        --count;
        return true;
    }
    // The calling core's signals raised and not yet consumed.
    int Pending(int src, int dst, int id) {
        std::scoped_lock lock(mutex_);
        const auto found = pending_.find(Here());
        return found == pending_.end() ? 0 : found->second[index(src, dst, id)];
    }
    // Forgets the calling core's signals (a launch starts each core with none).
    void ClearHere() {
        std::scoped_lock lock(mutex_);
        pending_.erase(Here());
    }

  private:
    using Core = std::pair<std::uint32_t, std::uint32_t>;
    static Core Here() {
        const ExecutionContext context = current_context();
        return {context.block_idx, context.subblock_id};
    }
    static int index(int src, int dst, int id) {
        return (src * pipes + dst) * ids + id;
    }
    std::mutex mutex_;
    std::map<Core, std::array<int, pipes * pipes * ids>> pending_;
};

// The semaphores the cores of one block (a cluster: its sub-blocks) signal each other with, per
// family (the A2A3 cross-core events, the A5 intra-block ids), and each core's held buffer slots
// (get_buf / rls_buf). A launch starts with none; a wait sleeps until another core of its block
// signals, or gives up after a bound (the device would wait forever), so a broken protocol ends
// with an error instead of a hang.
class ClusterSemaphores {
  public:
    static ClusterSemaphores& Instance() {
        static ClusterSemaphores semaphores;
        return semaphores;
    }
    void Signal(int family, std::uint64_t id) {
        {
            std::scoped_lock lock(mutex_);
            ++counts_[{current_context().block_idx, family, id}];
        }
        changed_.notify_all();
    }
    // Takes one signal; false when none came within `bound` (at once when the block has one core).
    bool Take(int family, std::uint64_t id, std::chrono::milliseconds bound) {
        const ExecutionContext context = current_context();
        const Key key{context.block_idx, family, id};
        std::unique_lock lock(mutex_);
        const auto pending = [&] { return counts_[key] > 0; };
        const bool alone = context.subblock_dim <= 1;
        if (!(alone ? pending() : changed_.wait_for(lock, bound, pending)))
            return false;
        --counts_[key];
        return true;
    }
    // Marks buffer `id` held by `pipe` on the calling core; the holder before, or -1 when it was free.
    int Acquire(std::uint64_t id, int pipe) {
        std::scoped_lock lock(mutex_);
        auto [slot, fresh] = held_.try_emplace(Here(id), pipe);
        return fresh ? -1 : slot->second;
    }
    // Frees buffer `id` of the calling core; its holder, or -1 when it was free.
    int Release(std::uint64_t id) {
        std::scoped_lock lock(mutex_);
        const auto slot = held_.find(Here(id));
        if (slot == held_.end())
            return -1;
        const int holder = slot->second;
        held_.erase(slot);
        return holder;
    }
    void Clear() {
        std::scoped_lock lock(mutex_);
        counts_.clear();
        held_.clear();
    }

  private:
    using Key = std::tuple<std::uint32_t, int, std::uint64_t>;
    using Slot = std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>;
    static Slot Here(std::uint64_t id) {
        const ExecutionContext context = current_context();
        return {context.block_idx, context.subblock_id, id};
    }
    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<Key, std::uint32_t> counts_;
    std::map<Slot, int> held_;
};

// A number from the environment, or `fallback` when it is unset, not a decimal number, or 0.
inline std::uint32_t ReadEnvU32(const char* name, std::uint32_t fallback) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0')
        return fallback;
    char* end = nullptr;
    const unsigned long parsed = std::strtoul(value, &end, 10);
    return end == value || *end != '\0' || parsed == 0 ? fallback : static_cast<std::uint32_t>(parsed);
}

// The cores a launch that names none runs on: PTO_CPU_SIM_NUM_CORES, 4 by default (upstream's).
inline std::uint32_t GetConfiguredCoreCount() {
    return ReadEnvU32("PTO_CPU_SIM_NUM_CORES", 4);
}

struct KernelLaunchOptions {
    std::string kernel_name;
    std::uint32_t requested_cores = 0;    // 0: the configured count
    std::uint32_t total_work_items = 0;   // when set, no more blocks than items ...
    std::uint32_t work_quantum = 1;       // ... and each block's share a multiple of this
    std::uint32_t subblocks_per_block = 1;
    std::uint32_t explicit_block_count = 0;  // when set, exactly this many blocks
    bool write_trace_files = true;
};

// The blocks a launch runs: the requested (or configured) count, at most one per work item, lowered
// until each block's share of the items is a whole number of quanta.
inline std::uint32_t ResolveActiveCoreCount(std::uint32_t requested_cores, std::uint32_t total_work_items = 0,
                                            std::uint32_t work_quantum = 1) {
    std::uint32_t active = std::max<std::uint32_t>(1, requested_cores == 0 ? GetConfiguredCoreCount() : requested_cores);
    if (total_work_items == 0)
        return active;
    active = std::max<std::uint32_t>(1, std::min(active, total_work_items));
    const std::uint32_t quantum = std::max<std::uint32_t>(1, work_quantum);
    while (active > 1 && ((total_work_items + active - 1) / active) % quantum != 0)
        --active;
    return active;
}

// Runs `kernel` once per block x sub-block, each on its own thread under its own context, and
// returns when all have finished; the first exception a core throws is rethrown here. Each thread
// has its own simulated memories and event flags, as each core of the device has.
template <typename KernelFn>
void LaunchKernelMultiCore(const KernelLaunchOptions& options, void* /*stream*/, KernelFn&& kernel) {
    const std::uint32_t subblocks = std::max<std::uint32_t>(1, options.subblocks_per_block);
    const std::uint32_t blocks =
        options.explicit_block_count != 0
            ? options.explicit_block_count
            : ResolveActiveCoreCount(options.requested_cores, options.total_work_items, options.work_quantum);
    std::vector<std::thread> cores;
    cores.reserve(blocks * subblocks);
    LaunchGroup group(blocks * subblocks);
    // A core that returns (or throws) never reaches another barrier: the cores waiting at one learn it.
    const auto finish = [&group] {
        std::scoped_lock lock(group.mutex);
        ++group.finished;
        group.changed.notify_all();
    };
    ClusterSemaphores::Instance().Clear();
#if defined(__cpp_exceptions)
    std::exception_ptr first_error;
    std::mutex error_mutex;
#endif
    for (std::uint32_t core = 0; core < blocks * subblocks; ++core) {
        cores.emplace_back([&, core] {
            const auto run = [&] {
                reset_execution_context();
                set_execution_context(core / subblocks, core % subblocks, subblocks);
                execution_context.block_num = blocks;
                execution_context.launch = &group;
                CoreFlags::Instance().ClearHere();
                kernel();
                reset_execution_context();
            };
#if defined(__cpp_exceptions)
            try {
                run();
            } catch (...) {
                reset_execution_context();
                std::scoped_lock lock(error_mutex);
                if (first_error == nullptr)
                    first_error = std::current_exception();
            }
#else
            run();  // without exceptions a failing core ends the process (sim::fail)
#endif
            finish();
        });
    }
    for (auto& core : cores)
        core.join();
#if defined(__cpp_exceptions)
    if (first_error != nullptr)
        std::rethrow_exception(first_error);
#endif
}

// How a core's wait at its launch's barrier ended.
enum class BarrierWait { Passed, CoreReturned, TimedOut };

// The cores of the running launch meet: each waits until every core of the launch has arrived. The
// wait is bounded: it ends (CoreReturned) as soon as the cores not yet arrived have all returned from
// the kernel, which then can never arrive, or after PTO_CPU_SIM_SYNCALL_TIMEOUT_MS (10000 by
// default). `arrived` and `cores` say how many had arrived of how many. Outside a launch the one
// core is every core: it passes at once.
inline BarrierWait WaitForLaunchedCores(std::uint32_t& arrived, std::uint32_t& cores) {
    LaunchGroup* group = execution_context.launch;
    if (group == nullptr)
        return BarrierWait::Passed;
    std::unique_lock lock(group->mutex);
    const std::uint64_t generation = group->generation;
    cores = group->cores;
    if (++group->arrived == group->cores) {
        group->arrived = 0;
        ++group->generation;
        group->changed.notify_all();
        return BarrierWait::Passed;
    }
    const auto limit = std::chrono::milliseconds(ReadEnvU32("PTO_CPU_SIM_SYNCALL_TIMEOUT_MS", 10000));
    const auto stuck = [&] { return group->finished > 0 && group->arrived + group->finished >= group->cores; };
    group->changed.wait_for(lock, limit, [&] { return group->generation != generation || stuck(); });
    if (group->generation != generation)
        return BarrierWait::Passed;
    arrived = group->arrived;
    const BarrierWait why = stuck() ? BarrierWait::CoreReturned : BarrierWait::TimedOut;
    --group->arrived;  // this core leaves the barrier: the simulation stops
    return why;
}

}  // namespace pto::cpu_sim

// What a kernel asks about the core it runs on (the device's built-ins).
inline std::uint32_t get_block_idx() {
    return pto::cpu_sim::current_context().block_idx;
}
inline std::uint32_t get_subblockid() {
    if (auto hook = pto::cpu_sim::injected_subblock_id_hook.load(); hook != nullptr)
        return hook();
    if (auto hook = pto::cpu_sim::host_hooks().subblock_id; hook != nullptr)
        return hook();
    return pto::cpu_sim::current_context().subblock_id;
}
inline std::uint32_t get_subblockdim() {
    return pto::cpu_sim::current_context().subblock_dim;
}
inline std::uint32_t get_block_num() {
    const std::uint32_t launched = pto::cpu_sim::execution_context.block_num;
    return launched != 0 ? launched : pto::cpu_sim::GetConfiguredCoreCount();
}
inline std::uint32_t get_coreid() {
    return get_block_idx();
}
inline std::uint64_t get_task_cookie() {
    if (auto hook = pto::cpu_sim::host_hooks().task_cookie; hook != nullptr)
        return hook();
    return pto::cpu_sim::task_cookie();
}
