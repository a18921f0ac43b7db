// The memory windows of ranks that run as separate processes (a build with PTO_COMM_MPI, started by
// mpirun): each rank exposes one window of global memory as an MPI window, and every access to a
// window goes through MPI's one-sided communication under one passive-target epoch that lasts the
// whole launch (MPI_Win_lock_all). pto/comm/ranks.hpp opens and closes the windows; the comm ops
// (pto/comm/sim_comm.hpp) ask `locate` whether an address lies in one, and move its elements here.
//
// How a rank addresses a peer: its context's windowsIn[r] is, for itself, the base of its own
// window and, for every other rank, a slot of an address range reserved with no access, one window
// long per rank. A peer's copy of an object is therefore at the same offset from windowsIn[peer] as
// the object is from windowsIn[self] (the symmetric heap of ranks.hpp keeps those offsets equal), the
// comm ops translate such an address into (rank, byte) for MPI, and a plain load or store through it
// faults: the fault handler names the ranks, the byte and the call site, as the device would refuse
// a kernel that touches another card's memory without a comm op.
#pragma once

#if !__has_include(<mpi.h>)
#error "PTO_COMM_MPI needs MPI's headers: build with `ptogen cflags --mpi` (Debian: libopenmpi-dev)"
#endif

// MPI's C API only: the C++ bindings Open MPI and MPICH still ship are deprecated, and warn.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
#include <signal.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <type_traits>
#include <vector>

#include "../common/check_core.hpp"

namespace pto::comm::mpi {

// The windows of the running launch, one per process.
struct World {
    MPI_Win win = MPI_WIN_NULL;
    int rank = 0;
    int ranks = 0;
    std::uintptr_t own = 0;       // this rank's window
    std::uintptr_t reserved = 0;  // the no-access range: rank r's slot at reserved + r * bytes
    std::uint64_t bytes = 0;      // each window's size
    struct sigaction previous_segv {};
    struct sigaction previous_bus {};
    struct sigaction previous_abort {};
};

inline World& world() {
    static World w;
    return w;
}

// MPI calls from several threads of a rank (the cores of LaunchKernelMultiCore) take turns.
inline std::mutex& lock() {
    static std::mutex m;
    return m;
}

// Where an address lies: a rank's window and the byte in it.
struct Where {
    int rank;
    MPI_Aint byte;
};

inline std::optional<Where> locate(const void* p) {
    const World& w = world();
    if (w.win == MPI_WIN_NULL)
        return std::nullopt;
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    if (at >= w.own && at < w.own + w.bytes)
        return Where{w.rank, static_cast<MPI_Aint>(at - w.own)};
    if (at >= w.reserved && at < w.reserved + w.bytes * static_cast<std::uint64_t>(w.ranks)) {
        const std::uint64_t from = at - w.reserved;
        return Where{static_cast<int>(from / w.bytes), static_cast<MPI_Aint>(from % w.bytes)};
    }
    return std::nullopt;
}

// The MPI type of an element: the integer and floating types by name, any other element (the 16-bit
// and 8-bit floats) as unsigned bits of its size, which moves it but does not add it.
template <typename T>
MPI_Datatype datatype() {
    if constexpr (std::is_same_v<T, float>)
        return MPI_FLOAT;
    else if constexpr (std::is_same_v<T, double>)
        return MPI_DOUBLE;
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
        return sizeof(T) == 1 ? MPI_INT8_T : sizeof(T) == 2 ? MPI_INT16_T : sizeof(T) == 4 ? MPI_INT32_T : MPI_INT64_T;
    else if constexpr (sizeof(T) == 1)
        return MPI_UINT8_T;
    else if constexpr (sizeof(T) == 2)
        return MPI_UINT16_T;
    else if constexpr (sizeof(T) == 4)
        return MPI_UINT32_T;
    else {
        static_assert(sizeof(T) == 8, "PTO comm over MPI: an element of 1, 2, 4 or 8 bytes");
        return MPI_UINT64_T;
    }
}

// Whether MPI adds elements of T itself (MPI_SUM); the others are added by compare-and-swap.
template <typename T>
inline constexpr bool mpi_adds = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

inline void ok(int status, const char* op, const char* call) {
    if (status != MPI_SUCCESS) {
        static char rule[160];
        std::snprintf(rule, sizeof rule, "%s failed on rank %d (MPI error %d)", call, world().rank, status);
        sim::fail(op, rule);
    }
}

// The elements at `offsets` (in elements, from `at`) of one window lie inside it.
template <typename T>
void require_inside(const char* op, Where at, std::int64_t last) {
    if (at.byte + (last + 1) * static_cast<std::int64_t>(sizeof(T)) > static_cast<std::int64_t>(world().bytes)) {
        static char rule[200];
        std::snprintf(rule, sizeof rule,
                      "the tensor runs past the end of rank %d's window (%llu bytes; RankLaunchOptions::window_bytes)",
                      at.rank, static_cast<unsigned long long>(world().bytes));
        sim::fail(op, rule);
    }
}

// A target datatype that picks the elements at `offsets` (in elements of T, ascending or not).
template <typename T>
MPI_Datatype picked(const char* op, const std::vector<int>& offsets) {
    MPI_Datatype type;
    ok(MPI_Type_create_indexed_block(static_cast<int>(offsets.size()), 1, offsets.data(), datatype<T>(), &type), op,
       "MPI_Type_create_indexed_block");
    ok(MPI_Type_commit(&type), op, "MPI_Type_commit");
    return type;
}

// Reads the elements at `offsets` of the window at `at` into `out` (MPI_Get, complete on return).
template <typename T>
void get(const char* op, Where at, const std::vector<int>& offsets, T* out) {
    if (offsets.empty())
        return;
    std::scoped_lock hold(lock());
    MPI_Datatype type = picked<T>(op, offsets);
    MPI_Win_sync(world().win);
    const int n = static_cast<int>(offsets.size());
    ok(MPI_Get(out, n, datatype<T>(), at.rank, at.byte, 1, type, world().win), op, "MPI_Get");
    ok(MPI_Win_flush(at.rank, world().win), op, "MPI_Win_flush");
    MPI_Type_free(&type);
}

// One element of a window, read atomically.
template <typename T>
T fetch(const char* op, Where at) {
    T value{};
    ok(MPI_Fetch_and_op(nullptr, &value, datatype<T>(), at.rank, at.byte, MPI_NO_OP, world().win), op,
       "MPI_Fetch_and_op");
    ok(MPI_Win_flush(at.rank, world().win), op, "MPI_Win_flush");
    return value;
}

// dst += v on an element MPI cannot add: read it, add in float and swap it in if nobody changed it
// meanwhile, until that holds.
template <typename T>
void add_by_swap(const char* op, Where at, T v) {
    T seen = fetch<T>(op, at);
    for (;;) {
        const T sum = T(static_cast<float>(seen) + static_cast<float>(v));
        T before{};
        ok(MPI_Compare_and_swap(&sum, &seen, &before, datatype<T>(), at.rank, at.byte, world().win), op,
           "MPI_Compare_and_swap");
        ok(MPI_Win_flush(at.rank, world().win), op, "MPI_Win_flush");
        if (std::memcmp(&before, &seen, sizeof(T)) == 0)
            return;
        seen = before;
    }
}

// Writes `values` to the elements at `offsets` of the window at `at`: MPI_Put, or with `add`
// MPI_Accumulate(MPI_SUM), element-wise atomic; complete at the target on return.
template <typename T>
void put(const char* op, Where at, const std::vector<int>& offsets, const T* values, bool add) {
    if (offsets.empty())
        return;
    std::scoped_lock hold(lock());
    MPI_Win_sync(world().win);  // this rank's plain stores into its window come first
    if (add && !mpi_adds<T>) {
        for (std::size_t i = 0; i < offsets.size(); ++i)
            add_by_swap<T>(op, Where{at.rank, at.byte + offsets[i] * static_cast<MPI_Aint>(sizeof(T))}, values[i]);
        return;
    }
    MPI_Datatype type = picked<T>(op, offsets);
    const int n = static_cast<int>(offsets.size());
    if (add)
        ok(MPI_Accumulate(values, n, datatype<T>(), at.rank, at.byte, 1, type, MPI_SUM, world().win), op,
           "MPI_Accumulate");
    else
        ok(MPI_Put(values, n, datatype<T>(), at.rank, at.byte, 1, type, world().win), op, "MPI_Put");
    ok(MPI_Win_flush(at.rank, world().win), op, "MPI_Win_flush");
    MPI_Type_free(&type);
}

// A signal's update: an atomic replace (NotifyOp::Set) or add (AtomicAdd) of one element.
template <typename T>
void update(const char* op, Where at, T value, bool add) {
    require_inside<T>(op, at, 0);
    std::scoped_lock hold(lock());
    MPI_Win_sync(world().win);
    if (add && !mpi_adds<T>)
        return add_by_swap<T>(op, at, value);
    ok(MPI_Accumulate(&value, 1, datatype<T>(), at.rank, at.byte, 1, datatype<T>(), add ? MPI_SUM : MPI_REPLACE,
                      world().win),
       op, "MPI_Accumulate");
    ok(MPI_Win_flush(at.rank, world().win), op, "MPI_Win_flush");
}

// A signal's value now (TWAIT's and TTEST's poll); after it, this rank's plain loads see what the
// other ranks' completed operations wrote into its window.
inline std::int32_t poll(const char* op, Where at) {
    require_inside<std::int32_t>(op, at, 0);
    std::scoped_lock hold(lock());
    const auto value = fetch<std::int32_t>(op, at);
    MPI_Win_sync(world().win);
    return value;
}

// The fault of a plain load or store through a peer's address: named with the call site, then the
// process stops (mpirun ends the job). Any other fault goes to the handler that was there before.
inline void on_fault(int signal, siginfo_t* info, void*) {
    World& w = world();
    const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
    if (at >= w.reserved && at < w.reserved + w.bytes * static_cast<std::uint64_t>(w.ranks)) {
        const std::uint64_t from = at - w.reserved;
        std::fprintf(stderr,
                     "PTO runtime error: rank %d touched byte %llu of rank %llu's window with a plain load or store; "
                     "ranks are separate processes (PTO_COMM_MPI), so a peer's memory is reached only through "
                     "the comm ops (TGET, TPUT, TNOTIFY, ...), as on the device\n",
                     w.rank, static_cast<unsigned long long>(from % w.bytes),
                     static_cast<unsigned long long>(from / w.bytes));
        sigaction(SIGSEGV, &w.previous_segv, nullptr);
        sigaction(SIGBUS, &w.previous_bus, nullptr);
        sim::stop();
    }
    sigaction(signal, signal == SIGSEGV ? &w.previous_segv : &w.previous_bus, nullptr);  // the fault repeats there
}

// Opens this process's window of `bytes` bytes over MPI_COMM_WORLD (collective) and the passive
// epoch every access runs in; returns the window's base. windowsIn[r] of the caller's context:
// address(r).
inline void* open_windows(std::uint64_t bytes) {
    World& w = world();
    const char* op = "LaunchRanks";
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.ranks);
    void* base = nullptr;
    ok(MPI_Win_allocate(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w.win), op,
       "MPI_Win_allocate");
    std::memset(base, 0, bytes);
    void* reserved = mmap(nullptr, bytes * static_cast<std::uint64_t>(w.ranks), PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    sim::check(reserved != MAP_FAILED, op, "could not reserve the address range that names the peers' windows");
    w.own = reinterpret_cast<std::uintptr_t>(base);
    w.reserved = reinterpret_cast<std::uintptr_t>(reserved);
    w.bytes = bytes;
    struct sigaction action {};
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &w.previous_segv);
    sigaction(SIGBUS, &action, &w.previous_bus);
    // A failing rank has printed its message and call site before it aborts: MPI's own abort
    // handler would only add a backtrace of raw addresses.
    struct sigaction plain {};
    plain.sa_handler = SIG_DFL;
    sigemptyset(&plain.sa_mask);
    sigaction(SIGABRT, &plain, &w.previous_abort);
    ok(MPI_Win_lock_all(MPI_MODE_NOCHECK, w.win), op, "MPI_Win_lock_all");
    return base;
}

inline std::uint64_t address(int rank) {
    const World& w = world();
    return rank == w.rank ? w.own : w.reserved + w.bytes * static_cast<std::uint64_t>(rank);
}

// Every rank's operations before it are complete and visible to every rank's plain loads after it.
inline void barrier() {
    std::scoped_lock hold(lock());
    const char* op = "RankContext::Barrier";
    ok(MPI_Win_flush_all(world().win), op, "MPI_Win_flush_all");
    MPI_Win_sync(world().win);
    ok(MPI_Barrier(MPI_COMM_WORLD), op, "MPI_Barrier");
    MPI_Win_sync(world().win);
}

inline void close_windows() {
    World& w = world();
    barrier();
    MPI_Win_unlock_all(w.win);
    MPI_Win_free(&w.win);
    munmap(reinterpret_cast<void*>(w.reserved), w.bytes * static_cast<std::uint64_t>(w.ranks));
    sigaction(SIGSEGV, &w.previous_segv, nullptr);
    sigaction(SIGBUS, &w.previous_bus, nullptr);
    sigaction(SIGABRT, &w.previous_abort, nullptr);
    w = World{};
}

}  // namespace pto::comm::mpi
