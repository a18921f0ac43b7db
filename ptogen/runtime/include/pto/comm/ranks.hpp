// Runs a communication kernel once per rank. One API, two backends, chosen when the program is built:
//
// - threads (the default): every rank is a thread of this process and the ranks' windows are one
//   allocation, so ranks share memory as upstream's CPU simulator lets them: a rank may even read a
//   peer's window with a plain load. PTO_COMM_RANKS sets the rank count when the options name none
//   (2 by default).
// - processes (built with PTO_COMM_MPI, the flags of `ptogen cflags --mpi`, and started by
//   `mpirun -n N`): every rank is a process and its window an MPI window (pto/comm/mpi_window.hpp).
//   The comm ops reach a peer's window through MPI's one-sided communication (TPUT and TGET as
//   MPI_Put and MPI_Get, AtomicAdd and TNOTIFY as MPI_Accumulate, TWAIT and TTEST polling with
//   MPI_Fetch_and_op); a plain load or store through a peer's address stops the rank with a message,
//   as the device refuses a kernel that touches another card's memory without a comm op.
//
// The kernel is `kernel(RankContext&)`. Its context holds the device context upstream's
// communication kernels read (CommDeviceContext: rank, rank count, window size, each rank's window
// base) and a symmetric heap: every rank allocates the same sizes in the same order, so an object
// lies at the same offset of every rank's window, and Peer() names a peer's copy of it.
#pragma once

#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include <pto/common/check_core.hpp>
#include <pto/cpu/execution_context.hpp>

#include "host_compat.hpp"

#if defined(PTO_COMM_MPI)
#include "mpi_window.hpp"
#endif

namespace pto::comm {

struct RankLaunchOptions {
    // Threads: the ranks to start (0: PTO_COMM_RANKS, else 2). Processes: 0, or the rank count the
    // kernel needs, which mpirun's -n must match.
    std::uint32_t ranks = 0;
    std::uint64_t window_bytes = 1 << 20;  // each rank's window of global memory
};

class RankContext {
  public:
    int Id() const {
        return static_cast<int>(device_.rankId);
    }
    int Size() const {
        return static_cast<int>(device_.rankNum);
    }
    // What upstream's communication kernels take (`__gm__ CommDeviceContext*`).
    CommDeviceContext* Device() {
        return &device_;
    }

    // `count` elements of T in this rank's window, 64-byte aligned. Every rank must allocate the same
    // sizes in the same order (processes: every rank calls it, as a collective); a rank that asks
    // for another size stops the launch.
    template <typename T>
    T* Alloc(std::size_t count) {
        const std::uint64_t bytes = count * sizeof(T);
        agree(bytes);
        const std::uint64_t at = (used_ + 63) / 64 * 64;
        if (at + bytes > device_.winSize) {
            static char rule[192];
            std::snprintf(rule, sizeof rule,
                          "rank %d's window of %llu bytes has no room for %llu more (RankLaunchOptions::window_bytes)",
                          Id(), static_cast<unsigned long long>(device_.winSize),
                          static_cast<unsigned long long>(bytes));
            sim::fail("RankContext::Alloc", rule);
        }
        used_ = at + bytes;
        return reinterpret_cast<T*>(device_.windowsIn[device_.rankId] + at);
    }

    // The address of rank `rank`'s copy of `mine`, an object of this rank's window.
    template <typename T>
    T* Peer(T* mine, int rank) const {
        const auto at = reinterpret_cast<std::uint64_t>(mine);
        const std::uint64_t base = device_.windowsIn[device_.rankId];
        sim::check(at >= base && at < base + device_.winSize, "RankContext::Peer",
                   "the object is not in this rank's window (allocate it with Alloc)");
        sim::check(rank >= 0 && rank < Size(), "RankContext::Peer", "the rank is not one of the launch's");
        return reinterpret_cast<T*>(device_.windowsIn[rank] + (at - base));
    }

    // Every rank's comm ops before it are complete, and every rank's plain loads after it see them.
    // A host step between a rank's phases: every rank calls it from the thread its kernel started on.
    void Barrier();

  private:
    template <typename Kernel>
    friend int LaunchRanks(const RankLaunchOptions& options, Kernel&& kernel);
    struct Shared;

    void agree(std::uint64_t bytes);

    CommDeviceContext device_{};
    std::uint64_t used_ = 0;
    std::uint64_t allocations_ = 0;
    Shared* shared_ = nullptr;
};

#if defined(PTO_COMM_MPI)

struct RankContext::Shared {};

inline void RankContext::Barrier() {
    mpi::barrier();
}

inline void RankContext::agree(std::uint64_t bytes) {
    // The smallest and (negated) the largest size the ranks ask for.
    long long sizes[2] = {static_cast<long long>(bytes), -static_cast<long long>(bytes)};
    mpi::ok(MPI_Allreduce(MPI_IN_PLACE, sizes, 2, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD), "RankContext::Alloc",
            "MPI_Allreduce");
    if (sizes[0] != -sizes[1]) {
        static char rule[224];
        std::snprintf(rule, sizeof rule,
                      "allocation %llu asks for %llu bytes on rank %d and between %lld and %lld across the ranks: "
                      "every rank allocates the same sizes in the same order",
                      static_cast<unsigned long long>(allocations_), static_cast<unsigned long long>(bytes), Id(),
                      sizes[0], -sizes[1]);
        sim::fail("RankContext::Alloc", rule);
    }
    ++allocations_;
}

// This process's rank: MPI started (unless the program started it), the windows opened, the kernel
// run between two barriers, the windows closed. Returns 0 (a failure stops the process, and mpirun
// the job).
template <typename Kernel>
int LaunchRanks(const RankLaunchOptions& options, Kernel&& kernel) {
    int started = 0;
    MPI_Initialized(&started);
    if (!started) {
        int provided = 0;
        mpi::ok(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "LaunchRanks", "MPI_Init_thread");
        sim::check(provided >= MPI_THREAD_SERIALIZED, "LaunchRanks",
                   "the MPI library serialises no calls from several threads (MPI_THREAD_SERIALIZED)");
    }
    int rank = 0, ranks = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (options.ranks != 0 && options.ranks != static_cast<std::uint32_t>(ranks)) {
        static char rule[160];
        std::snprintf(rule, sizeof rule, "the kernel runs on %u ranks and mpirun started %d (mpirun -n %u)",
                      options.ranks, ranks, options.ranks);
        sim::fail("LaunchRanks", rule);
    }
    sim::check(ranks <= static_cast<int>(HCCL_MAX_RANK_NUM), "LaunchRanks", "more ranks than a context names (64)");
    RankContext context;
    mpi::open_windows(options.window_bytes);
    context.device_.rankId = static_cast<std::uint32_t>(rank);
    context.device_.rankNum = static_cast<std::uint32_t>(ranks);
    context.device_.winSize = options.window_bytes;
    for (int r = 0; r < ranks; ++r)
        context.device_.windowsIn[r] = mpi::address(r);
    mpi::barrier();
    kernel(context);
    mpi::close_windows();
    if (!started)
        MPI_Finalize();
    return 0;
}

#else

// What the threads of one launch share: the allocation sizes the first rank to make each one asked
// for, and the barrier.
struct RankContext::Shared {
    explicit Shared(std::uint32_t ranks) : meet(ranks) {}
    std::mutex mutex;
    std::vector<std::uint64_t> sizes;
    std::barrier<> meet;
};

inline void RankContext::Barrier() {
    shared_->meet.arrive_and_wait();
}

inline void RankContext::agree(std::uint64_t bytes) {
    std::scoped_lock hold(shared_->mutex);
    auto& sizes = shared_->sizes;
    if (allocations_ == sizes.size())
        sizes.push_back(bytes);
    else if (sizes[allocations_] != bytes) {
        static char rule[224];
        std::snprintf(rule, sizeof rule,
                      "allocation %llu asks for %llu bytes on rank %d and %llu on another rank: every rank "
                      "allocates the same sizes in the same order",
                      static_cast<unsigned long long>(allocations_), static_cast<unsigned long long>(bytes), Id(),
                      static_cast<unsigned long long>(sizes[allocations_]));
        sim::fail("RankContext::Alloc", rule);
    }
    ++allocations_;
}

// Runs `kernel` once per rank, each on a thread of its own (with its own simulated memories, as every
// core thread has), and returns 0 when all have finished.
template <typename Kernel>
int LaunchRanks(const RankLaunchOptions& options, Kernel&& kernel) {
    const std::uint32_t ranks = options.ranks != 0 ? options.ranks : cpu_sim::ReadEnvU32("PTO_COMM_RANKS", 2);
    sim::check(ranks <= HCCL_MAX_RANK_NUM, "LaunchRanks", "more ranks than a context names (64)");
    const std::uint64_t bytes = (options.window_bytes + 63) / 64 * 64;
    std::vector<std::uint64_t> windows((bytes * ranks + 64) / 8);  // zeroed; from its first 64-byte boundary
    const auto base = (reinterpret_cast<std::uint64_t>(windows.data()) + 63) / 64 * 64;
    RankContext::Shared shared(ranks);
    std::vector<RankContext> contexts(ranks);
    for (std::uint32_t r = 0; r < ranks; ++r) {
        auto& device = contexts[r].device_;
        device.rankId = r;
        device.rankNum = ranks;
        device.winSize = options.window_bytes;
        for (std::uint32_t p = 0; p < ranks; ++p)
            device.windowsIn[p] = base + p * bytes;
        contexts[r].shared_ = &shared;
    }
    std::vector<std::thread> threads;
    for (std::uint32_t r = 0; r < ranks; ++r)
        threads.emplace_back([&kernel, &contexts, r] { kernel(contexts[r]); });
    for (auto& t : threads)
        t.join();
    return 0;
}

#endif

}  // namespace pto::comm
