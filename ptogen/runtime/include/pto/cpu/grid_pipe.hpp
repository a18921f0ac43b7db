// The GridPipe forms of TPUSH and TPOP (a tile to or from the core Dist hops away in a 2-D grid of
// cores; a broadcast along a row or column) as the CPU simulator runs them, each core a thread of its
// own (pto/cpu/execution_context.hpp). Upstream's simulator has none of them; this follows its A2/A3
// backend (GridTPush.hpp, GridTPop.hpp), whose steps are:
//
// - push: wait until the slot at the producer cursor is free (the consumer's free counter, in the
//   producer's window, has reached cursor + 1 - SlotCount), write the tile into that slot of the
//   consumer's window, raise the consumer's ready counter to cursor + 1, advance the cursor;
// - pop: wait until the own ready counter reaches cursor + 1, read the own slot, raise the
//   producer's free counter to cursor + 1 (not for SOURCE, the host's queue), advance the cursor;
// - broadcast: write the tile into the next slot of every core on both arms of the span, then raise
//   each one's ready counter; it does not wait for free slots (one broadcast per slot, as upstream's
//   backend says), and each arm's cursor advances by one. A slot that still holds a tile its core has
//   not popped is overwritten, as on the device; the pages leave that undefined, so the CPU profile
//   warns once per call site and the A2A3 profile stops, naming the pipe, both cores and the slot.
//   Each core counts the tiles it popped per direction in a reserved word of its own window.
//
// A slot holds a tile's whole storage, byte for byte. The counters live in the windows as 32-bit
// words written and read atomically. What the NPU backend records as a fault and skips (a push off
// the grid's edge, a read outside the core's own window) stops the simulation here, and so does a
// wait no core ends, after PTO_CPU_SIM_PIPE_MAX_WAIT_MS, naming the pipe, the core and the call site.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>

#include <pto/common/check_core.hpp>
#include <pto/common/grid_pipe.hpp>
#include <pto/cpu/execution_context.hpp>
#include <pto/cpu/pipe.hpp>
#if __has_include(<pto/profiles/profile_select.hpp>)
#include <pto/profiles/profile_select.hpp>  // which profile's answer to an overwriting broadcast
#endif

namespace pto::sim::grid {

inline const char* direction_name(GridDirection d) {
    switch (d) {
        case GridDirection::SOURCE:
            return "SOURCE";
        case GridDirection::NORTH:
            return "NORTH";
        case GridDirection::EAST:
            return "EAST";
        case GridDirection::WEST:
            return "WEST";
        case GridDirection::SOUTH:
            return "SOUTH";
    }
    return "?";
}

// The pipe, the calling core and the grid, for the messages.
template <typename Pipe>
const char* where(const Pipe& pipe) {
    static thread_local char text[256];
    std::snprintf(text, sizeof text, "GridPipe<%d-byte slots, %d slots> (pipe id %u) on core (%d, %d) of a %d x %d grid",
                  Pipe::SlotBytes, Pipe::SlotCount, pipe.pipeId, pipe.coord.row, pipe.coord.col, pipe.shape.gridRows,
                  pipe.shape.gridCols);
    return text;
}

template <typename Pipe>
[[noreturn]] void stop(const Pipe& pipe, const char* op, const char* what) {
    static thread_local char text[512];
    std::snprintf(text, sizeof text, "%s: %s", where(pipe), what);
    fail(op, text);
}

// The ranks' windows: the arena the pipe's runtime context names.
template <typename Pipe>
const GmSramArena& arena(const Pipe& pipe, const char* op) {
    if (pipe.runtimeCtx == nullptr || pipe.slotBase[0] == nullptr)
        stop(pipe, op, "the pipe has no window (a2a3_grid::InitGridPipeFromWindow with the ranks' GmSramArena first)");
    return *static_cast<const GmSramArena*>(pipe.runtimeCtx);
}

// The same address in another rank's window.
template <typename Pipe, typename T>
T* in_rank(const Pipe& pipe, T* local, int rank, const char* op) {
    const GmSramArena& a = arena(pipe, op);
    const auto addr = reinterpret_cast<std::uint64_t>(local);
    const int self = a.SegmentOf(addr);
    if (self < 0 || rank < 0 || static_cast<std::uint32_t>(rank) >= a.numSegs)
        stop(pipe, op, "the pipe's window or the peer core lies outside the arena of the ranks' windows");
    return reinterpret_cast<T*>(addr - a.SegmentBase(self) + a.SegmentBase(rank));
}

inline std::uint32_t load(const std::uint32_t* counter) {
    return std::atomic_ref<std::uint32_t>(*const_cast<std::uint32_t*>(counter)).load(std::memory_order_acquire);
}

inline void store(std::uint32_t* counter, std::uint32_t value) {
    std::atomic_ref<std::uint32_t>(*counter).store(value, std::memory_order_release);
}

// The simulator's count of the tiles a core popped from each direction: reserved words of the
// window's flag area (upstream's layout keeps words 2 * kGridDirectionCount onwards for its fault
// sentinels, 4 * kGridDirectionCount words in all; these follow them).
inline constexpr int kPoppedWord = 4 * kGridDirectionCount;
static_assert((kPoppedWord + kGridDirectionCount) * sizeof(std::uint32_t) <= a2a3_grid::kFlagsBytes);

template <typename Pipe>
std::uint32_t* popped_counter(const Pipe& pipe, int dir) {
    return pipe.readyFlags[0] + kPoppedWord + dir;
}

// Waits until `counter` reaches `threshold`, or stops the simulation naming the deadlock.
template <typename Pipe>
void wait_counter(const Pipe& pipe, const std::uint32_t* counter, std::uint32_t threshold, const char* op,
                  const char* what) {
    const std::uint64_t limit = pipe::max_wait_ms();
    const auto start = std::chrono::steady_clock::now();
    for (unsigned spins = 0; load(counter) < threshold; ++spins) {
        std::this_thread::yield();
        if (limit == 0 || spins % 64 != 0)
            continue;
        const auto waited = std::chrono::steady_clock::now() - start;
        if (waited < std::chrono::milliseconds(limit))
            continue;
        char text[320];
        std::snprintf(text, sizeof text,
                      "%s within %llu ms (counter %u, waiting for %u; a deadlock; PTO_CPU_SIM_PIPE_MAX_WAIT_MS sets "
                      "the limit)",
                      what, static_cast<unsigned long long>(limit), load(counter), threshold);
        stop(pipe, op, text);
    }
}

template <typename Pipe, typename TileT>
constexpr std::size_t tile_bytes() {
    constexpr std::size_t bytes = TileT::Rows * TileT::Cols * sizeof(typename TileT::DType);
    static_assert(bytes <= static_cast<std::size_t>(Pipe::SlotBytes),
                  "GridPipe: the tile does not fit the pipe's SlotBytes");
    return bytes;
}

// The producer's slot of direction `dir` at its cursor, in its own window.
template <typename Pipe>
std::uint8_t* own_slot(Pipe& pipe, int dir, std::uint32_t index) {
    return pipe.slotBase[dir] + (index % static_cast<std::uint32_t>(Pipe::SlotCount)) * Pipe::SlotBytes;
}

template <GridDirection Dir, int Dist, typename Pipe>
void check_push_target(const Pipe& pipe, const char* op) {
    if (CanPushK(Dir, pipe.coord, pipe.shape, Dist))
        return;
    char text[160];
    std::snprintf(text, sizeof text, "no core %d hop(s) %s of this one: the push leaves the grid", Dist,
                  direction_name(Dir));
    stop(pipe, op, text);
}

// TPUSH<Dir, Dist>: the tile into the slot of the core Dist hops along Dir.
template <GridDirection Dir, int Dist, typename Pipe, typename TileT>
void push(Pipe& pipe, TileT& tile) {
    constexpr std::size_t bytes = tile_bytes<Pipe, TileT>();
    constexpr int dir = GridDirectionIndex(Dir);
    static_cast<void>(arena(pipe, "TPUSH"));
    check_push_target<Dir, Dist>(pipe, "TPUSH");
    const std::uint32_t index = pipe.prodIndex[dir];
    if (index >= static_cast<std::uint32_t>(Pipe::SlotCount)) {
        char what[160];
        std::snprintf(what, sizeof what, "no slot toward the %s became free for the push (the consumer %d hop(s) away "
                      "pops none)", direction_name(Dir), Dist);
        wait_counter(pipe, pipe.freeFlags[dir], index + 1 - Pipe::SlotCount, "TPUSH", what);
    }
    const int peer = RankForPushK(Dir, pipe.coord, pipe.shape, Dist);
    std::memcpy(in_rank(pipe, own_slot(pipe, dir, index), peer, "TPUSH"), tile.data(), bytes);
    store(in_rank(pipe, pipe.readyFlags[dir], peer, "TPUSH"), index + 1);
    pipe.prodIndex[dir] = index + 1;
}

// TPOP<Dir, Dist>: the next tile that came along Dir, from the own window.
template <GridDirection Dir, int Dist, typename Pipe, typename TileT>
void pop(Pipe& pipe, TileT& tile) {
    constexpr std::size_t bytes = tile_bytes<Pipe, TileT>();
    constexpr int dir = GridDirectionIndex(Dir);
    const GmSramArena& a = arena(pipe, "TPOP");
    if (!CanPopK(Dir, pipe.coord, pipe.shape, Dist)) {
        char text[160];
        std::snprintf(text, sizeof text, "no core %d hop(s) against the %s of this one feeds the pop", Dist,
                      direction_name(Dir));
        stop(pipe, "TPOP", text);
    }
    const std::uint32_t index = pipe.consIndex[dir];
    char what[160];
    std::snprintf(what, sizeof what, "no tile came from the %s for the pop (no core pushed one %d hop(s) away)",
                  direction_name(Dir), Dist);
    wait_counter(pipe, pipe.readyFlags[dir], index + 1, "TPOP", what);
    const std::uint8_t* slot = own_slot(pipe, dir, index);
    const int self = RankFromCoord(pipe.coord, pipe.shape);
    if (!a.InSegment(self, reinterpret_cast<std::uint64_t>(slot), static_cast<std::uint64_t>(Pipe::SlotBytes)))
        stop(pipe, "TPOP", "the slot is outside this core's own window (a pop reads the own window only)");
    std::memcpy(tile.data(), slot, bytes);
    store(popped_counter(pipe, dir), index + 1);
    if constexpr (Dir != GridDirection::SOURCE) {
        const int producer = RankForPopK(Dir, pipe.coord, pipe.shape, Dist);
        store(in_rank(pipe, pipe.freeFlags[dir], producer, "TPOP"), index + 1);
    }
    pipe.consIndex[dir] = index + 1;
}

// Whether the broadcast's slot in the core `peer`, k hops along Dir, still holds a tile that core has
// not popped (the tile the cursor wrote SlotCount broadcasts ago); if so, warns or stops.
template <GridDirection Dir, typename Pipe>
void check_overwrite(const Pipe& pipe, int peer, int k) {
    constexpr int dir = GridDirectionIndex(Dir);
    const std::uint32_t index = pipe.prodIndex[dir];
    if (index < static_cast<std::uint32_t>(Pipe::SlotCount))
        return;
    const std::uint32_t held = index - Pipe::SlotCount;
    const bool published = load(in_rank(pipe, pipe.readyFlags[dir], peer, "TPUSH")) > held;
    if (!published || load(in_rank(pipe, popped_counter(pipe, dir), peer, "TPUSH")) > held)
        return;
    static thread_local char text[640];
    std::snprintf(text, sizeof text,
                  "%s: the broadcast overwrites slot %u of core (%d, %d), %d hop(s) %s, which still holds tile %u "
                  "that core has not popped (one broadcast per slot: its TPOP comes before the next broadcast "
                  "reaches the slot)",
                  where(pipe), held % static_cast<std::uint32_t>(Pipe::SlotCount), peer / pipe.shape.gridCols,
                  peer % pipe.shape.gridCols, k, direction_name(Dir), held);
#if !defined(PTO_TARGET_PROFILE) || PTO_TARGET_PROFILE == PTO_PROFILE_CPU
    warn("TPUSH", text);
#else
    fail("TPUSH", text);
#endif
}

// One arm of a broadcast: the tile into the next slot of every core along Dir; how many there are.
template <GridDirection Dir, typename Pipe, typename TileT>
int broadcast_write(Pipe& pipe, TileT& tile) {
    constexpr int dir = GridDirectionIndex(Dir);
    std::uint8_t* slot = own_slot(pipe, dir, pipe.prodIndex[dir]);
    int written = 0;
    for (int k = 1; CanPushK(Dir, pipe.coord, pipe.shape, k); ++k, ++written) {
        const int peer = RankForPushK(Dir, pipe.coord, pipe.shape, k);
        check_overwrite<Dir>(pipe, peer, k);
        std::memcpy(in_rank(pipe, slot, peer, "TPUSH"), tile.data(), tile_bytes<Pipe, TileT>());
    }
    return written;
}

template <GridDirection Dir, typename Pipe>
void broadcast_ring(Pipe& pipe, int written) {
    constexpr int dir = GridDirectionIndex(Dir);
    if (written == 0)
        return;
    const std::uint32_t value = pipe.prodIndex[dir] + 1;
    for (int k = 1; CanPushK(Dir, pipe.coord, pipe.shape, k); ++k)
        store(in_rank(pipe, pipe.readyFlags[dir], RankForPushK(Dir, pipe.coord, pipe.shape, k), "TPUSH"), value);
    pipe.prodIndex[dir] = value;
}

// TPUSH<Span>: the tile to every other core of the row (east and west) or the column (north and
// south); each receiver pops it with TPOP<arm, its distance>.
template <GridSpan Span, typename Pipe, typename TileT>
void broadcast(Pipe& pipe, TileT& tile) {
    static_cast<void>(arena(pipe, "TPUSH"));
    const int a = broadcast_write<SpanArmA(Span)>(pipe, tile);
    const int b = broadcast_write<SpanArmB(Span)>(pipe, tile);
    broadcast_ring<SpanArmA(Span)>(pipe, a);
    broadcast_ring<SpanArmB(Span)>(pipe, b);
}

}  // namespace pto::sim::grid
