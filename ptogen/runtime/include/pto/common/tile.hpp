// The Tile type of the CPU simulator and TASSIGN, which places a tile in the simulated on-chip buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include "element_types.hpp"
#include "sim_support.hpp"

namespace pto {

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling };
enum class BLayout { RowMajor, ColMajor };

// A valid row/col template argument whose value is only known at run time.
constexpr int DYNAMIC = -1;

namespace sim {

inline constexpr std::size_t unified_buffer_bytes = std::size_t{1} << 20;

// The simulated on-chip unified buffer that TASSIGN addresses are offsets into. One per process,
// zero-initialised, shared by every tile so that overlapping assignments alias the same bytes.
inline std::byte* unified_buffer() {
    alignas(64) static std::byte buffer[unified_buffer_bytes] = {};
    return buffer;
}

} // namespace sim

template <typename TileT>
void TASSIGN(TileT& tile, std::uintptr_t addr);

// Deliberately free of checks on DType, Loc, layout and valid bounds: those are per-op rules, and the
// generated static_asserts must be the ones that report them.
template <TileType Loc_, typename DType_, int Rows_, int Cols_, BLayout Layout_ = BLayout::RowMajor,
          int ValidRow_ = Rows_, int ValidCol_ = Cols_>
struct Tile {
    static_assert(Rows_ > 0 && Cols_ > 0, "Tile: Rows and Cols must be positive");

    using DType = DType_;
    static constexpr TileType Loc = Loc_;
    static constexpr int Rows = Rows_;
    static constexpr int Cols = Cols_;
    static constexpr int ValidRow = ValidRow_;
    static constexpr int ValidCol = ValidCol_;
    static constexpr BLayout Layout = Layout_;
    static constexpr bool isRowMajor = Layout_ == BLayout::RowMajor;
    static constexpr int RowStride = isRowMajor ? Cols_ : 1; // elements between (r, c) and (r + 1, c)
    static constexpr int ColStride = isRowMajor ? 1 : Rows_; // elements between (r, c) and (r, c + 1)
    static constexpr int Numel = Rows_ * Cols_;

    static constexpr std::size_t SizeBytes() {
        return sizeof(DType) * static_cast<std::size_t>(Numel);
    }

    // Owns zeroed heap storage (large tiles would not fit on the stack) until TASSIGN rebinds it.
    Tile() : Tile(ValidRow_ == DYNAMIC ? Rows_ : ValidRow_, ValidCol_ == DYNAMIC ? Cols_ : ValidCol_, unchecked{}) {}

    // Run-time valid shape. Out-of-range values are rejected here because every op would otherwise
    // index outside the tile.
    Tile(int validRow, int validCol) : Tile(validRow, validCol, unchecked{}) {
        sim::check(validRow >= 0 && validRow <= Rows_ && validCol >= 0 && validCol <= Cols_, "Tile",
                   "run-time valid shape must lie within [0, Rows] x [0, Cols]");
    }

    Tile(const Tile&) = delete;
    Tile& operator=(const Tile&) = delete;

    // The moved-from tile keeps nothing, so it cannot alias the storage it handed over.
    Tile(Tile&& other) noexcept
        : owned_(std::move(other.owned_)), data_(std::exchange(other.data_, nullptr)), validRow_(other.validRow_),
          validCol_(other.validCol_) {}
    Tile& operator=(Tile&& other) noexcept {
        if (this != &other) {
            owned_ = std::move(other.owned_);
            data_ = std::exchange(other.data_, nullptr);
            validRow_ = other.validRow_;
            validCol_ = other.validCol_;
        }
        return *this;
    }

    ~Tile() = default;

    int GetValidRow() const {
        return validRow_;
    }
    int GetValidCol() const {
        return validCol_;
    }

    DType* data() {
        return data_;
    }
    const DType* data() const {
        return data_;
    }

    DType& at(int r, int c) {
        return data_[r * RowStride + c * ColStride];
    }
    const DType& at(int r, int c) const {
        return data_[r * RowStride + c * ColStride];
    }

  private:
    struct unchecked {};
    Tile(int validRow, int validCol, unchecked)
        : owned_(std::make_unique<DType[]>(static_cast<std::size_t>(Numel))), data_(owned_.get()), validRow_(validRow),
          validCol_(validCol) {}

    template <typename TileT>
    friend void TASSIGN(TileT& tile, std::uintptr_t addr);

    std::unique_ptr<DType[]> owned_; // null once the tile lives in the unified buffer
    DType* data_;
    int validRow_;
    int validCol_;
};

template <typename T>
struct is_tile : std::false_type {};
template <TileType L, typename D, int R, int C, BLayout B, int VR, int VC>
struct is_tile<Tile<L, D, R, C, B, VR, VC>> : std::true_type {};

template <typename T>
inline constexpr bool is_tile_v = is_tile<std::remove_cvref_t<T>>::value;

// Binds the tile to byte offset `addr` of the simulated unified buffer (its own storage is released).
template <typename TileT>
void TASSIGN(TileT& tile, std::uintptr_t addr) {
    static_assert(is_tile_v<TileT>, "TASSIGN: the first argument must be a Tile");
    using D = typename TileT::DType;
    sim::check(addr <= sim::unified_buffer_bytes && TileT::SizeBytes() <= sim::unified_buffer_bytes - addr, "TASSIGN",
               "the tile must lie within the 1 MiB unified buffer (addr + SizeBytes() <= 1048576)");
    sim::check(addr % alignof(D) == 0, "TASSIGN", "addr must be aligned to the element type's alignment");
    tile.data_ = reinterpret_cast<D*>(sim::unified_buffer() + addr);
    tile.owned_.reset();
}

} // namespace pto
