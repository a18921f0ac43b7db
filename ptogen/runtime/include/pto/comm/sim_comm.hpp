// What the communication ops do on the CPU simulator (namespace pto::sim::comm). Every rank is a
// GlobalTensor of one process, so a remote write is a strided copy between two tensors, a signal is
// an int32_t read and written atomically, and a collective loops over its group. The staging tiles
// the ops take carry data through the unified buffer on a device; here the data moves directly.
//
// TWAIT spins until its comparison holds. A wait that no other core will ever satisfy is a
// deadlock on a device; here it stops after PTO_CPU_SIM_TWAIT_MAX_SPINS polls (upstream's name,
// 100000 by default, about 10 us apart; 0 waits for ever) with an error that names the signal, the
// value it holds, the comparison it waited for and the kernel's call site.
//
// Built with PTO_COMM_MPI, ranks may instead be processes (pto/comm/ranks.hpp): an op whose tensor or
// signal lies in a rank's MPI window moves its elements through that window (pto/comm/mpi_window.hpp),
// and every other tensor is this process's memory, handled as above.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <type_traits>

#include <pto/common/pto_enums.hpp>

#include "comm_types.hpp"

#if defined(PTO_COMM_MPI)
#include <algorithm>
#include <optional>
#include <vector>

#include "mpi_window.hpp"
#endif

namespace pto::sim::comm {

using pto::comm::NotifyOp;
using pto::comm::ReduceOp;
using pto::comm::WaitCmp;

// The five extents of a tensor, and the element offset of a position in it.
template <typename G>
void extents(const G& g, int64_t (&shape)[5]) {
    for (int d = 0; d < 5; ++d)
        shape[d] = g.GetShape(d);
}

template <typename G>
int64_t offset(const G& g, const int64_t (&at)[5]) {
    int64_t o = 0;
    for (int d = 0; d < 5; ++d)
        o += at[d] * g.GetStride(d);
    return o;
}

// Calls f(position) for every position of `shape`, the last dimension fastest.
template <typename F>
void for_each_position(const int64_t (&shape)[5], F&& f) {
    for (int d = 0; d < 5; ++d)
        if (shape[d] <= 0)
            return;
    int64_t at[5] = {0, 0, 0, 0, 0};
    for (;;) {
        f(at);
        int d = 4;
        while (d >= 0 && ++at[d] == shape[d])
            at[d--] = 0;
        if (d < 0)
            return;
    }
}

// dst += src (or dst = src) as one indivisible update, so that ranks writing one tensor from several
// threads lose no update: a native arithmetic type through std::atomic_ref, a 16-bit float under a
// lock.
template <bool add, typename T>
void atomic_update(T& dst, T src) {
    if constexpr (std::is_arithmetic_v<T>) {
        std::atomic_ref<T> at(dst);
        if constexpr (add)
            at.fetch_add(src, std::memory_order_seq_cst);
        else
            at.store(src, std::memory_order_seq_cst);
    } else {
        static std::mutex lock;
        std::scoped_lock hold(lock);
        dst = add ? T(static_cast<float>(dst) + static_cast<float>(src)) : src;
    }
}

template <typename T>
void atomic_add(T& dst, T src) {
    atomic_update<true>(dst, src);
}

// The value of `v` in the element type T: a conversion, through float for the 16-bit float types,
// which convert from float only.
template <typename T, typename V>
T element(V v) {
    if constexpr (std::is_same_v<T, V> || std::is_constructible_v<T, V>)
        return T(v);
    else
        return T(static_cast<float>(v));
}

#if defined(PTO_COMM_MPI)
// A tensor's positions of `shape`, last dimension fastest, as element offsets from its first element.
template <typename G>
std::vector<int> offsets(const G& g, const int64_t (&shape)[5]) {
    std::vector<int> out;
    for_each_position(shape, [&](const int64_t (&at)[5]) { out.push_back(static_cast<int>(offset(g, at))); });
    return out;
}

template <typename G>
std::optional<pto::comm::mpi::Where> in_window(const char* op, const G& g, const std::vector<int>& at) {
    using T = std::remove_cv_t<typename G::DType>;
    auto where = pto::comm::mpi::locate(g.data());
    if (where && !at.empty())
        pto::comm::mpi::require_inside<T>(op, *where, *std::max_element(at.begin(), at.end()));
    return where;
}

// The elements of `g` at the positions of `shape`, in order: through MPI from a window, else read.
template <typename G>
auto read_elements(const char* op, G& g, const int64_t (&shape)[5]) {
    using T = std::remove_cv_t<typename G::DType>;
    const std::vector<int> at = offsets(g, shape);
    std::vector<T> values(at.size());
    if (auto where = in_window(op, g, at))
        pto::comm::mpi::get<T>(op, *where, at, values.data());
    else
        for (std::size_t i = 0; i < at.size(); ++i)
            values[i] = g.data()[at[i]];
    return values;
}

// Writes (or with `add`, atomically adds) `values` at the positions of `shape`, in the same order.
template <bool add, typename G, typename V>
void write_elements(const char* op, G& g, const int64_t (&shape)[5], const std::vector<V>& values) {
    using T = std::remove_cv_t<typename G::DType>;
    const std::vector<int> at = offsets(g, shape);
    std::vector<T> converted(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        converted[i] = element<T>(values[i]);
    if (auto where = in_window(op, g, at))
        pto::comm::mpi::put<T>(op, *where, at, converted.data(), add);
    else
        for (std::size_t i = 0; i < at.size(); ++i)
            if constexpr (add)
                atomic_update<true>(g.data()[at[i]], converted[i]);
            else
                g.data()[at[i]] = converted[i];
}

// Part of a tensor: its elements from `base` on, with a shape and strides of its own.
template <typename T>
struct Region {
    using DType = T;
    T* base;
    int64_t shape[5];
    int64_t stride[5];
    T* data() const {
        return base;
    }
    int64_t GetShape(int d) const {
        return shape[d];
    }
    int64_t GetStride(int d) const {
        return stride[d];
    }
};

template <typename... G>
bool any_in_window(const G&... g) {
    return (pto::comm::mpi::locate(g.data()).has_value() || ...);
}
#endif

// TPUT, TGET and the asynchronous forms: every element of `dst`'s shape from the same position of
// `src` (each tensor through its own strides); `accumulate` adds instead of storing (AtomicAdd).
// The profiles of the devices demand one element type; the CPU profile, as upstream's simulator,
// also converts between two.
template <bool accumulate, typename Dst, typename Src>
void copy(const char* op, Dst& dst, Src& src) {
    using T = typename Dst::DType;
    int64_t shape[5], from[5];
    extents(dst, shape);
    extents(src, from);
    for (int d = 0; d < 5; ++d)
        check(from[d] >= shape[d], op, "the source tensor is smaller than the destination in some dimension");
#if defined(PTO_COMM_MPI)
    if (any_in_window(dst, src))
        return write_elements<accumulate>(op, dst, shape, read_elements(op, src, shape));
#endif
    auto* out = dst.data();
    const auto* in = src.data();
    for_each_position(shape, [&](const int64_t (&at)[5]) {
        if constexpr (accumulate)
            atomic_add(out[offset(dst, at)], element<T>(in[offset(src, at)]));
        else
            out[offset(dst, at)] = element<T>(in[offset(src, at)]);
    });
}

inline bool compare(int32_t value, WaitCmp cmp, int32_t expected) {
    switch (cmp) {
        case WaitCmp::EQ: return value == expected;
        case WaitCmp::NE: return value != expected;
        case WaitCmp::GT: return value > expected;
        case WaitCmp::GE: return value >= expected;
        case WaitCmp::LT: return value < expected;
        case WaitCmp::LE: return value <= expected;
    }
    return false;
}

inline const char* spelling(WaitCmp cmp) {
    static constexpr const char* names[] = {"==", "!=", ">", ">=", "<", "<="};
    const auto k = static_cast<unsigned>(cmp);
    return k < 6 ? names[k] : "?";
}

// A signal is an int32_t on the devices (the profile checks say so); the CPU profile, as upstream's
// simulator, also compares the bits of another 32-bit element as an int32_t (TTEST).
template <typename G>
void require_signal(const char* op, const G& g) {
    static_assert(sizeof(typename G::DType) == sizeof(int32_t), "PTO comm: a signal is a 32-bit element");
    check(reinterpret_cast<std::uintptr_t>(g.data()) % alignof(int32_t) == 0, op,
                    "a signal must be 4-byte aligned");
}

template <typename T>
int32_t load(T& signal) {
    return std::atomic_ref<int32_t>(reinterpret_cast<int32_t&>(signal)).load(std::memory_order_acquire);
}

// TNOTIFY: an atomic store (Set) or add (AtomicAdd) of the value, in the signal's element type, on
// its first element (an int32_t on the devices; the CPU profile, as upstream's simulator, takes
// another element type too).
template <typename G>
void notify(G& signal, int32_t value, NotifyOp how) {
    using T = std::remove_cv_t<typename G::DType>;
    if constexpr (std::is_same_v<T, int32_t>)
        require_signal("TNOTIFY", signal);
#if defined(PTO_COMM_MPI)
    if (auto where = pto::comm::mpi::locate(signal.data()))
        return pto::comm::mpi::update<T>("TNOTIFY", *where, element<T>(value), how == NotifyOp::AtomicAdd);
#endif
    if (how == NotifyOp::AtomicAdd)
        atomic_update<true>(*signal.data(), element<T>(value));
    else
        atomic_update<false>(*signal.data(), element<T>(value));
}

// The signal at element `o` of `g` now: in a rank's window, an atomic fetch through MPI.
template <typename G>
int32_t poll(const char* op, G& g, int64_t o) {
#if defined(PTO_COMM_MPI)
    if (auto where = pto::comm::mpi::locate(g.data() + o))
        return pto::comm::mpi::poll(op, *where);
#else
    static_cast<void>(op);
#endif
    return load(g.data()[o]);
}

// Where a signal is, for a message: in a rank's window, that rank, the byte and the rank waiting.
inline void describe(const void* signal, char (&out)[96]) {
    out[0] = '\0';
#if defined(PTO_COMM_MPI)
    if (auto where = pto::comm::mpi::locate(signal))
        std::snprintf(out, sizeof out, " (byte %lld of rank %d's window, polled by rank %d)",
                      static_cast<long long>(where->byte), where->rank, pto::comm::mpi::world().rank);
#else
    static_cast<void>(signal);
#endif
}

// The first signal of `g` that does not satisfy `signal cmp expected`, or -1 when all do.
template <typename G>
int64_t first_unsatisfied(const char* op, G& g, int32_t expected, WaitCmp cmp, int32_t& seen) {
    int64_t shape[5];
    extents(g, shape);
    int64_t found = -1;
    for_each_position(shape, [&](const int64_t (&at)[5]) {
        if (found >= 0)
            return;
        const int64_t o = offset(g, at);
        const int32_t v = poll(op, g, o);
        if (!compare(v, cmp, expected)) {
            found = o;
            seen = v;
        }
    });
    return found;
}

// TTEST: whether every signal of `g` satisfies the comparison now.
template <typename G>
bool test(G& g, int32_t expected, WaitCmp cmp) {
    require_signal("TTEST", g);
    int32_t seen = 0;
    return first_unsatisfied("TTEST", g, expected, cmp, seen) < 0;
}

inline uint64_t twait_max_spins() {
    constexpr uint64_t fallback = 100000;
    const char* text = std::getenv("PTO_CPU_SIM_TWAIT_MAX_SPINS");
    if (text == nullptr || *text == '\0')
        return fallback;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(text, &end, 10);
    return end != text && *end == '\0' ? n : fallback;
}

// TWAIT: polls until every signal of `g` satisfies the comparison, or stops the simulation.
template <typename G>
void wait(G& g, int32_t expected, WaitCmp cmp) {
    require_signal("TWAIT", g);
    const uint64_t limit = twait_max_spins();
    int32_t seen = 0;
    for (uint64_t spin = 0;; ++spin) {
        const int64_t at = first_unsatisfied("TWAIT", g, expected, cmp, seen);
        if (at < 0)
            return;
        if (limit != 0 && spin >= limit) {
            static char rule[352];
            char where[96];
            describe(g.data() + at, where);
            std::snprintf(rule, sizeof rule,
                          "the signal at %p%s holds %d and never satisfied `signal %s %d` in %llu polls "
                          "(a deadlock: no core changes it; PTO_CPU_SIM_TWAIT_MAX_SPINS sets the limit)",
                          static_cast<void*>(g.data() + at), where, static_cast<int>(seen), spelling(cmp),
                          static_cast<int>(expected), static_cast<unsigned long long>(spin));
            fail("TWAIT", rule);
        }
        if (spin < 64)
            std::this_thread::yield();
        else
            std::this_thread::sleep_for(std::chrono::microseconds(10));
    }
}

template <typename Group>
void require_group(const char* op, const Group& group) {
    check(group.GetSize() > 0, op, "the parallel group has no ranks");
    check(group.GetRootIdx() >= 0 && group.GetRootIdx() < group.GetSize(), op,
                    "the root is not a rank of the group");
}

// TBROADCAST: every rank's tensor (the root's included) receives `src`.
template <typename Group, typename Src>
void broadcast(Group& group, Src& src) {
    require_group("TBROADCAST", group);
    for (int r = 0; r < group.GetSize(); ++r)
        if (group[r].data() != src.data())
            copy<false>("TBROADCAST", group[r], src);
}

// Rank r's rows of a tensor that stacks the group's tensors along dimension 3.
template <typename Stacked, typename Part>
void stack(const char* op, Stacked& stacked, Part& part, int r, bool into_stack) {
    int64_t shape[5], whole[5];
    extents(part, shape);
    extents(stacked, whole);
    const int64_t rows = shape[3];
    check(whole[0] >= shape[0] && whole[1] >= shape[1] && whole[2] >= shape[2] && whole[4] >= shape[4] &&
                        whole[3] >= (r + 1) * rows,
                    op, "the stacked tensor has no room for every rank's rows");
#if defined(PTO_COMM_MPI)
    if (any_in_window(stacked, part)) {
        using S = std::remove_cv_t<typename Stacked::DType>;
        Region<S> rank_rows{stacked.data() + r * rows * stacked.GetStride(3), {}, {}};
        for (int d = 0; d < 5; ++d)
            rank_rows.shape[d] = shape[d], rank_rows.stride[d] = stacked.GetStride(d);
        if (into_stack)
            write_elements<false>(op, rank_rows, shape, read_elements(op, part, shape));
        else
            write_elements<false>(op, part, shape, read_elements(op, rank_rows, shape));
        return;
    }
#endif
    auto* s = stacked.data();
    auto* p = part.data();
    for_each_position(shape, [&](const int64_t (&at)[5]) {
        int64_t row[5] = {at[0], at[1], at[2], r * rows + at[3], at[4]};
        if (into_stack)
            s[offset(stacked, row)] = p[offset(part, at)];
        else
            p[offset(part, at)] = s[offset(stacked, row)];
    });
}

// TGATHER: dst's rows r*H .. r*H+H-1 receive rank r's H rows.
template <typename Group, typename Dst>
void gather(Group& group, Dst& dst) {
    require_group("TGATHER", group);
    for (int r = 0; r < group.GetSize(); ++r)
        stack("TGATHER", dst, group[r], r, true);
}

// TSCATTER: rank r receives src's rows r*H .. r*H+H-1.
template <typename Group, typename Src>
void scatter(Group& group, Src& src) {
    require_group("TSCATTER", group);
    for (int r = 0; r < group.GetSize(); ++r)
        stack("TSCATTER", src, group[r], r, false);
}

template <typename T>
T combine(T acc, T next, ReduceOp op) {
    switch (op) {
        case ReduceOp::Max: return maximum(acc, next);
        case ReduceOp::Min: return minimum(acc, next);
        case ReduceOp::Sum: break;
    }
    if constexpr (std::is_integral_v<T>)  // wraps, as the tile ops' integer addition
        return static_cast<T>(static_cast<std::make_unsigned_t<T>>(acc) + static_cast<std::make_unsigned_t<T>>(next));
    else if constexpr (std::is_arithmetic_v<T>)
        return static_cast<T>(acc + next);
    else
        return T(static_cast<float>(acc) + static_cast<float>(next));  // one rounding, as TADD
}

// TREDUCE: dst = the root's tensor combined with every other rank's in rank order, element by element
// in the element type (the order upstream's simulator folds in: root first, then the others).
template <typename Group, typename Dst>
void reduce(Group& group, Dst& dst, ReduceOp op) {
    require_group("TREDUCE", group);
    check(op == ReduceOp::Sum || op == ReduceOp::Max || op == ReduceOp::Min, "TREDUCE",
                    "the ReduceOp is not Sum, Max or Min");
    const int root = group.GetRootIdx();
    auto& first = group[root];
    int64_t shape[5], given[5];
    extents(first, shape);
    extents(dst, given);
    for (int d = 0; d < 5; ++d)
        check(given[d] >= shape[d], "TREDUCE", "the destination is smaller than the root's tensor");
    for (int r = 0; r < group.GetSize(); ++r) {
        extents(group[r], given);
        for (int d = 0; d < 5; ++d)
            check(given[d] >= shape[d], "TREDUCE", "a rank's tensor is smaller than the root's");
    }
#if defined(PTO_COMM_MPI)
    bool remote = any_in_window(dst);
    for (int r = 0; r < group.GetSize(); ++r)
        remote = remote || any_in_window(group[r]);
    if (remote) {  // every rank's elements fetched, then folded in the same order
        auto acc = read_elements("TREDUCE", first, shape);
        for (int r = 0; r < group.GetSize(); ++r)
            if (r != root) {
                const auto next = read_elements("TREDUCE", group[r], shape);
                for (std::size_t i = 0; i < acc.size(); ++i)
                    acc[i] = combine(acc[i], next[i], op);
            }
        return write_elements<false>("TREDUCE", dst, shape, acc);
    }
#endif
    for_each_position(shape, [&](const int64_t (&at)[5]) {
        auto acc = first.data()[offset(first, at)];
        for (int r = 0; r < group.GetSize(); ++r)
            if (r != root)
                acc = combine(acc, group[r].data()[offset(group[r], at)], op);
        dst.data()[offset(dst, at)] = acc;
    });
}

}  // namespace pto::sim::comm
