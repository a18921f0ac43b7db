// The neighbour-core pipes of a 2-D grid of cores (GridPipe), under upstream's names and values (its
// A2/A3 header pto/npu/a2a3/grid_intrinsic.hpp and grid_pipe_runtime.hpp): the mesh coordinates, the
// directions and spans a TPUSH or TPOP names, the pipe's per-direction state and its window layout,
// so kernels written against that header build unchanged. The CPU simulator's pushes and pops are in
// pto/cpu/grid_pipe.hpp.
//
// Each core (rank) owns one window: ready counters, free counters, then one ring of SlotCount slots
// of SlotBytes per direction. A push writes its tile into the slot of the core Dist hops away along
// its direction, in that core's window, and raises that core's ready counter; the consumer pops
// from its own window only and raises its producer's free counter. The windows of all ranks lie one
// after another, each GmSramArena::segBytes long, and the pipe's runtime context is that arena.
#pragma once

#include <cstdint>
#include <type_traits>

#ifndef __gm__
#define __gm__  // global-memory pointers are plain host pointers on the simulator
#endif

std::uint32_t get_block_idx();  // the launch's block index (pto/cpu/execution_context.hpp)

namespace pto {

// A grid of gridRows x gridCols cores, and one core's place in it.
struct GridShape {
    int gridRows = 0;
    int gridCols = 0;
};

struct GridCoord {
    int row = 0;
    int col = 0;
};

// Where a tile goes (TPUSH) or comes from (TPOP). SOURCE is the host's injection queue: a core pops
// from it, no core pushes into it.
enum class GridDirection : std::uint8_t {
    SOURCE = 0,
    NORTH = 1,  // to row - 1
    EAST = 2,   // to col + 1
    WEST = 3,   // to col - 1
    SOUTH = 4,  // to row + 1
};

inline constexpr int kGridDirectionCount = 5;

constexpr int GridDirectionIndex(GridDirection d) {
    return static_cast<int>(d);
}

// A broadcast along the source's row (east and west arms) or column (north and south arms).
enum class GridSpan : std::uint8_t {
    ROW = 0,
    COL = 1,
};

constexpr GridDirection SpanArmA(GridSpan s) {
    return s == GridSpan::ROW ? GridDirection::EAST : GridDirection::NORTH;
}

constexpr GridDirection SpanArmB(GridSpan s) {
    return s == GridSpan::ROW ? GridDirection::WEST : GridDirection::SOUTH;
}

// The state one core keeps for a channel: per direction, its slot ring, its ready and free counters
// (in its own window) and its producer and consumer cursors.
template <typename TileT_, int SlotBytes_, int SlotCount_>
struct GridPipe {
    static_assert(SlotCount_ > 0, "GridPipe: a pipe has at least one slot (SlotCount > 0)");
    static_assert(SlotBytes_ > 0, "GridPipe: a slot has at least one byte (SlotBytes > 0)");

    using TileType = TileT_;
    static constexpr int SlotBytes = SlotBytes_;
    static constexpr int SlotCount = SlotCount_;

    GridShape shape{};
    GridCoord coord{};

    __gm__ std::uint8_t* slotBase[kGridDirectionCount] = {nullptr};
    __gm__ std::uint32_t* readyFlags[kGridDirectionCount] = {nullptr};
    __gm__ std::uint32_t* freeFlags[kGridDirectionCount] = {nullptr};
    std::uint32_t prodIndex[kGridDirectionCount] = {0};
    std::uint32_t consIndex[kGridDirectionCount] = {0};

    __gm__ void* runtimeCtx = nullptr;  // on the simulator: the GmSramArena of the ranks' windows
    std::uint32_t pipeId = 0;
};

template <typename T>
struct is_grid_pipe : std::false_type {};
template <typename TileT, int SlotBytes, int SlotCount>
struct is_grid_pipe<GridPipe<TileT, SlotBytes, SlotCount>> : std::true_type {};
template <typename T>
inline constexpr bool is_grid_pipe_v = is_grid_pipe<std::remove_reference_t<T>>::value;

// The calling core's coordinates: its block index, row-major over the grid.
inline GridCoord GetGridCoord(GridShape shape) {
    const int block = static_cast<int>(get_block_idx());
    return GridCoord{block / shape.gridCols, block % shape.gridCols};
}

constexpr int RankFromCoord(GridCoord coord, GridShape shape) {
    return coord.row * shape.gridCols + coord.col;
}

inline constexpr int kInvalidRank = -1;

// Whether the core k hops along `dir` exists (a push), and where it is.
constexpr bool CanPushK(GridDirection dir, GridCoord c, GridShape s, int k) {
    switch (dir) {
        case GridDirection::NORTH:
            return c.row - k >= 0;
        case GridDirection::EAST:
            return c.col + k < s.gridCols;
        case GridDirection::WEST:
            return c.col - k >= 0;
        case GridDirection::SOUTH:
            return c.row + k < s.gridRows;
        case GridDirection::SOURCE:
            return false;
    }
    return false;
}

constexpr GridCoord NeighborForPushK(GridDirection dir, GridCoord c, int k) {
    switch (dir) {
        case GridDirection::NORTH:
            return {c.row - k, c.col};
        case GridDirection::EAST:
            return {c.row, c.col + k};
        case GridDirection::WEST:
            return {c.row, c.col - k};
        case GridDirection::SOUTH:
            return {c.row + k, c.col};
        case GridDirection::SOURCE:
            return c;
    }
    return c;
}

constexpr int RankForPushK(GridDirection dir, GridCoord c, GridShape s, int k) {
    return CanPushK(dir, c, s, k) ? RankFromCoord(NeighborForPushK(dir, c, k), s) : kInvalidRank;
}

// A pop along `dir` is fed by the core k hops the other way; SOURCE is always there.
constexpr bool CanPopK(GridDirection dir, GridCoord c, GridShape s, int k) {
    switch (dir) {
        case GridDirection::NORTH:
            return c.row + k < s.gridRows;
        case GridDirection::EAST:
            return c.col - k >= 0;
        case GridDirection::WEST:
            return c.col + k < s.gridCols;
        case GridDirection::SOUTH:
            return c.row - k >= 0;
        case GridDirection::SOURCE:
            return true;
    }
    return false;
}

constexpr GridCoord NeighborForPopK(GridDirection dir, GridCoord c, int k) {
    switch (dir) {
        case GridDirection::NORTH:
            return {c.row + k, c.col};
        case GridDirection::EAST:
            return {c.row, c.col - k};
        case GridDirection::WEST:
            return {c.row, c.col + k};
        case GridDirection::SOUTH:
            return {c.row - k, c.col};
        case GridDirection::SOURCE:
            return c;
    }
    return c;
}

constexpr int RankForPopK(GridDirection dir, GridCoord c, GridShape s, int k) {
    return CanPopK(dir, c, s, k) ? RankFromCoord(NeighborForPopK(dir, c, k), s) : kInvalidRank;
}

// The one-hop forms.
constexpr bool CanPush(GridDirection dir, GridCoord c, GridShape s) {
    return CanPushK(dir, c, s, 1);
}
constexpr bool CanPop(GridDirection dir, GridCoord c, GridShape s) {
    return CanPopK(dir, c, s, 1);
}
constexpr GridCoord NeighborForPush(GridDirection dir, GridCoord c) {
    return NeighborForPushK(dir, c, 1);
}
constexpr GridCoord NeighborForPop(GridDirection dir, GridCoord c) {
    return NeighborForPopK(dir, c, 1);
}
constexpr int NeighborRankForPush(GridDirection dir, GridCoord c, GridShape s) {
    return RankForPushK(dir, c, s, 1);
}
constexpr int NeighborRankForPop(GridDirection dir, GridCoord c, GridShape s) {
    return RankForPopK(dir, c, s, 1);
}

// The ranks' windows as one arena of equal segments, segment c being core c's: a core writes into
// any segment (a push) and reads its own only (a pop).
struct GmSramArena {
    std::uint64_t base = 0;
    std::uint64_t segBytes = 0;
    std::uint32_t numSegs = 0;

    constexpr std::uint64_t SegmentBase(int seg) const {
        return base + static_cast<std::uint64_t>(seg) * segBytes;
    }
    constexpr int SegmentOf(std::uint64_t addr) const {
        if (numSegs == 0 || segBytes == 0 || addr < base)
            return -1;
        const std::uint64_t idx = (addr - base) / segBytes;
        return idx < numSegs ? static_cast<int>(idx) : -1;
    }
    constexpr bool InSegment(int seg, std::uint64_t addr, std::uint64_t bytes) const {
        if (seg < 0 || static_cast<std::uint32_t>(seg) >= numSegs)
            return false;
        const std::uint64_t lo = SegmentBase(seg);
        return addr >= lo && addr + bytes >= addr && addr + bytes <= lo + segBytes;
    }
};

namespace a2a3_grid {

// A window: the ready counters, the free counters, reserved words up to kFlagsBytes, then the slot
// rings, direction by direction.
inline constexpr std::uint32_t kFlagsBytes = 128;
inline constexpr std::uint32_t kSlotRegionOffset = kFlagsBytes;

constexpr std::uint32_t kReadyFlagOffset(GridDirection d) {
    return static_cast<std::uint32_t>(d) * sizeof(std::uint32_t);
}

constexpr std::uint32_t kFreeFlagOffset(GridDirection d) {
    return kGridDirectionCount * sizeof(std::uint32_t) + static_cast<std::uint32_t>(d) * sizeof(std::uint32_t);
}

template <int SlotBytes, int SlotCount>
constexpr std::uint32_t kSlotRegionBytes() {
    return kGridDirectionCount * SlotCount * SlotBytes;
}

template <int SlotBytes, int SlotCount>
constexpr std::uint32_t kWindowBytes() {
    return kSlotRegionOffset + kSlotRegionBytes<SlotBytes, SlotCount>();
}

template <int SlotBytes, int SlotCount>
constexpr std::uint32_t kDirSlotRegionOffset(GridDirection d) {
    return kSlotRegionOffset + static_cast<std::uint32_t>(d) * SlotCount * SlotBytes;
}

template <typename Pipe>
constexpr std::uint32_t WindowBytes() {
    return kWindowBytes<Pipe::SlotBytes, Pipe::SlotCount>();
}

// Points a core's pipe at its window (zeroed by the host before the launch), with the runtime
// context that maps its addresses to the other ranks' windows.
template <typename Pipe>
inline void InitGridPipeFromWindow(Pipe& pipe, GridShape shape, GridCoord coord, __gm__ std::uint8_t* window,
                                   __gm__ void* runtimeCtx, std::uint32_t pipeId) {
    pipe.shape = shape;
    pipe.coord = coord;
    pipe.runtimeCtx = runtimeCtx;
    pipe.pipeId = pipeId;
    auto* flags = reinterpret_cast<__gm__ std::uint32_t*>(window);
    for (int i = 0; i < kGridDirectionCount; ++i) {
        pipe.readyFlags[i] = flags + i;
        pipe.freeFlags[i] = flags + kGridDirectionCount + i;
        pipe.slotBase[i] = window + kSlotRegionOffset + i * Pipe::SlotCount * Pipe::SlotBytes;
        pipe.prodIndex[i] = 0;
        pipe.consIndex[i] = 0;
    }
}

}  // namespace a2a3_grid
}  // namespace pto
