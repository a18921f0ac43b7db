// The Tile type of the CPU simulator and TASSIGN, which places a tile in the simulated on-chip buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "element_types.hpp"
#include "packed_types.hpp"
#include "sim_support.hpp"
#include <pto/cpu/NPUMemoryModel.hpp>

namespace pto {

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling, ScaleLeft, ScaleRight, Ctrl };
enum class BLayout { RowMajor = 0, ColMajor = 1 };

// Inner (fractal box) layout of a tile; NoneBox is a plain row- or column-major array, the only one
// the element-wise ops read. The boxed layouts are accepted as type facts for the cube-side tiles.
enum class SLayout { NoneBox = 0, RowMajor = 1, ColMajor = 2 };

// The value that fills a tile's elements outside its valid region when they are padded. Values
// from CustomBase up carry a user-chosen bit pattern in their low 32 bits (see constants.hpp).
enum class PadValue : std::uint64_t { Null = 0, Zero = 1, Max = 2, Min = 3, CustomBase = 0x100000000ULL };

// How a tile's padding is laid out in compact storage; Null means no compaction.
enum class CompactMode { Null, Normal, RowPlusOne, RowAlignedPadding };

// Fractal geometry: the byte size of one fractal box (512 for the A/B operands, 1024 for the
// accumulator, 32 for the MX scale tiles) and the box edges.
namespace TileConfig {
inline constexpr int alignedSize = 32;
inline constexpr int fixedRowSize = 16;
inline constexpr int fixedColSize = 16;
inline constexpr int fixedMxRowSize = 16;
inline constexpr int fixedMxColSize = 2;
inline constexpr int fractalABSize = 512;
inline constexpr int fractalCSize = 1024;
inline constexpr int fractalMxSize = 32;
} // namespace TileConfig

// A valid row/col template argument whose value is only known at run time.
constexpr int DYNAMIC = -1;

} // namespace pto

// The Tile type's static rules, generated from the specs; the runtime's core also builds on its own
// (its tests do), with only the positive-shape check.
#if __has_include(<pto/common/pto_tile_rules.hpp>)
#include <pto/common/pto_tile_rules.hpp>
#define PTO_TILE_RULES_GENERATED 1
#else
#define PTO_TILE_RULES_GENERATED 0
#endif

namespace pto {

namespace sim {

inline constexpr std::size_t unified_buffer_bytes = NPUMemoryModel::ub_bytes;

// The simulated unified buffer (Vec tiles' region of NPUMemoryModel), zero-initialised and shared
// by every tile, so that overlapping assignments alias the same bytes.
inline std::byte* unified_buffer() {
    return reinterpret_cast<std::byte*>(NPUMemoryModel::Instance().GetUBBase());
}

} // namespace sim

namespace sim {
// Binds a tile to simulated on-chip memory: what TASSIGN of a tile does (pto/cpu/sim/tassign.hpp).
template <typename TileT>
void bind(TileT& tile, std::uintptr_t addr);
// A tile's own storage starts on a 64-byte line (the hardware's buffers are 32-byte aligned): a
// vector row kernel's loads then never straddle two cache lines (sim_maxmin.hpp is 1.3x slower on
// malloc's 16-byte alignment). Zeroed, as before.
inline constexpr std::size_t storage_alignment = 64;

template <typename D>
D* new_storage(std::size_t n) {
    static_assert(std::is_trivially_destructible_v<D>, "tile storage is freed without destructors");
    D* p = static_cast<D*>(::operator new(n * sizeof(D), std::align_val_t{storage_alignment}));
    std::uninitialized_value_construct_n(p, n);
    return p;
}

template <typename D>
void delete_storage(D* p) {
    if (p != nullptr)
        ::operator delete(p, std::align_val_t{storage_alignment});
}

// Points the tile at storage it does not own (a view into another tile, TSUBVIEW); its own storage,
// if it had any, is released.
template <typename TileT>
void rebind(TileT& tile, typename TileT::DType* storage);
} // namespace sim

// Where element (r, c) sits in a tile's storage, in elements (pto/cpu/tile_offsets.hpp).
template <typename TileData>
constexpr std::size_t GetTileElementOffset(std::size_t r, std::size_t c);

// Deliberately free of checks on DType, Loc and valid bounds: those are per-op rules, and the
// generated static_asserts must be the ones that report them. The Tile type's own rules (row and
// column bytes, whole boxes, box sizes) are generated from the specs into pto_tile_rules.hpp. The last four parameters complete
// the ten-parameter form that existing PTO code spells out; the simulator stores the elements
// row- or column-major as Layout_ says and keeps the other four as facts of the type.
template <TileType Loc_, typename DType_, int Rows_, int Cols_, BLayout Layout_ = BLayout::RowMajor,
          int ValidRow_ = Rows_, int ValidCol_ = Cols_, SLayout SFractal_ = SLayout::NoneBox,
          int SFractalSize_ = TileConfig::fractalABSize, auto PadVal_ = PadValue::Null,
          CompactMode Compact_ = CompactMode::Null>
struct Tile {
    using DType = DType_;
    static constexpr TileType Loc = Loc_;
    static constexpr int Rows = Rows_;
    static constexpr int Cols = Cols_;
    static constexpr int ValidRow = ValidRow_;
    static constexpr int ValidCol = ValidCol_;
    static constexpr BLayout Layout = Layout_;
    static constexpr BLayout BFractal = Layout_;
    static constexpr SLayout SFractal = SFractal_;
    static constexpr int SFractalSize = SFractalSize_;
    static constexpr auto PadVal = PadVal_;
    static constexpr CompactMode Compact = Compact_;
    static constexpr bool isRowMajor = Layout_ == BLayout::RowMajor;
    static constexpr bool isBoxedLayout = SFractal_ != SLayout::NoneBox;
    static constexpr bool isInnerRowMajor = SFractal_ == SLayout::RowMajor;
    static constexpr bool isInnerColMajor = SFractal_ == SLayout::ColMajor;
    // Edges of one fractal box in elements (1 x 1 for a plain layout): a 512-byte box is 16 rows of
    // 32 bytes (or 32 bytes of 16 columns when the box is column-major), a 1024-byte accumulator box
    // is 16 x 16, and a 32-byte MX scale box is 16 x 2.
    static constexpr int InnerRows = SFractalSize_ == TileConfig::fractalCSize ? TileConfig::fixedRowSize
                                     : SFractalSize_ == TileConfig::fractalMxSize
                                         ? (isInnerRowMajor ? TileConfig::fixedMxRowSize : TileConfig::fixedMxColSize)
                                     : !isBoxedLayout ? 1
                                     : isInnerRowMajor ? TileConfig::fixedRowSize
                                                       : TileConfig::alignedSize / static_cast<int>(sizeof(DType_));
    static constexpr int InnerCols = SFractalSize_ == TileConfig::fractalCSize ? TileConfig::fixedColSize
                                     : SFractalSize_ == TileConfig::fractalMxSize
                                         ? (isInnerRowMajor ? TileConfig::fixedMxColSize : TileConfig::fixedMxRowSize)
                                     : !isBoxedLayout ? 1
                                     : isInnerRowMajor ? TileConfig::alignedSize / static_cast<int>(sizeof(DType_))
                                                       : TileConfig::fixedColSize;
    static constexpr int InnerNumel = InnerRows * InnerCols;
#if PTO_TILE_RULES_GENERATED
    // The Tile type's own rules (specs/targets.yaml, tile_type.rules): "Tile: <rule>" when broken.
    static_assert(TileRules<Loc_, DType_, Rows_, Cols_, Layout_, SFractal_, SFractalSize_, InnerRows, InnerCols>::checked);
#else
    static_assert(Rows_ > 0 && Cols_ > 0, "Tile: Rows and Cols must be positive");
#endif
    static constexpr int RowStride = isRowMajor ? Cols_ : 1; // elements between (r, c) and (r + 1, c)
    static constexpr int ColStride = isRowMajor ? 1 : Rows_; // elements between (r, c) and (r, c + 1)
    static constexpr int Numel = Rows_ * Cols_;
    // Values of DType the storage holds: one per element, or one per two for a twin type.
    static constexpr std::size_t Units = storage_units<DType_>(static_cast<std::size_t>(Numel));

    static constexpr std::size_t SizeBytes() {
        return sizeof(DType) * Units;
    }
    static constexpr std::size_t GetSizeInUnits() {
        return Units;
    }
    static constexpr std::size_t GetSizeInBytes() {
        return SizeBytes();
    }

    // Owns zeroed heap storage (large tiles would not fit on the stack) until TASSIGN rebinds it.
    // Neither constructor delegates: at -O0 every constructor is emitted once per tile type.
    Tile()
        : owned_(sim::new_storage<DType>(Units)), data_(owned_), validRow_(ValidRow_ == DYNAMIC ? Rows_ : ValidRow_),
          validCol_(ValidCol_ == DYNAMIC ? Cols_ : ValidCol_) {}

    // Run-time valid shape. Out-of-range values are rejected here because every op would otherwise
    // index outside the tile.
    Tile(int validRow, int validCol)
        : owned_(sim::new_storage<DType>(Units)), data_(owned_), validRow_(validRow), validCol_(validCol) {
        sim::check(validRow >= 0 && validRow <= Rows_ && validCol >= 0 && validCol <= Cols_, "Tile",
                   "run-time valid shape must lie within [0, Rows] x [0, Cols]");
    }

    // Only one extent DYNAMIC: the one run-time value sets it, the other keeps its template value.
    template <int VR = ValidRow_, int VC = ValidCol_, std::enable_if_t<(VR == DYNAMIC) != (VC == DYNAMIC), int> = 0>
    Tile(int valid) : Tile(VR == DYNAMIC ? valid : VR, VC == DYNAMIC ? valid : VC) {}

    Tile(const Tile&) = delete;
    Tile& operator=(const Tile&) = delete;

    // The moved-from tile keeps nothing, so it cannot alias the storage it handed over.
    Tile(Tile&& other) noexcept
        : owned_(std::exchange(other.owned_, nullptr)), data_(std::exchange(other.data_, nullptr)), validRow_(other.validRow_),
          validCol_(other.validCol_), isKAligned_(other.isKAligned_) {}
    Tile& operator=(Tile&& other) noexcept {
        if (this != &other) {
            sim::delete_storage(owned_);
            owned_ = std::exchange(other.owned_, nullptr);
            data_ = std::exchange(other.data_, nullptr);
            validRow_ = other.validRow_;
            validCol_ = other.validCol_;
            isKAligned_ = other.isKAligned_;
        }
        return *this;
    }

    ~Tile() {
        sim::delete_storage(owned_);
    }

    // The accessors are always inlined: test kernels build at -O0, where each would otherwise be
    // emitted and called for every tile type.
    [[gnu::always_inline]] int GetValidRow() const {
        return validRow_;
    }
    [[gnu::always_inline]] int GetValidCol() const {
        return validCol_;
    }

    // A reference, as upstream's: a kernel may point the tile at other storage (`tile.data() = other.data()`).
    [[gnu::always_inline]] DType*& data() {
        return data_;
    }
    [[gnu::always_inline]] const DType* data() const {
        return data_;
    }

    // Element (r, c) of a plain layout by reference; twin types have no element reference.
    DType& at(int r, int c) {
        static_assert(!IsTwinType<DType>(), "Tile::at: a twin type's element is half a byte; use GetElement/SetElement");
        return data_[r * RowStride + c * ColStride];
    }
    const DType& at(int r, int c) const {
        static_assert(!IsTwinType<DType>(), "Tile::at: a twin type's element is half a byte; use GetElement/SetElement");
        return data_[r * RowStride + c * ColStride];
    }

    // The element at storage offset `offset` (in elements, two to a byte for a twin type).
    DType GetValue(std::uint32_t offset) const {
        return GetProperDataPart(data_, offset);
    }
    void SetValue(std::uint32_t offset, const DType& value) {
        SetProperDataPart(data_, offset, value);
    }

    // Element (r, c) by value, in any layout (boxed ones included) and for twin types.
    DType GetElement(int r, int c) const {
        return GetProperDataPart(data_, GetTileElementOffset<Tile>(static_cast<std::size_t>(r), static_cast<std::size_t>(c)));
    }
    void SetElement(int r, int c, const DType& value) {
        SetProperDataPart(data_, GetTileElementOffset<Tile>(static_cast<std::size_t>(r), static_cast<std::size_t>(c)), value);
    }

    // Whether K was padded to its alignment (read by A2A3's cube moves; the simulator keeps the flag only).
    bool GetKAligned() const {
        return isKAligned_;
    }
    void SetKAligned(bool isKAligned) {
        isKAligned_ = isKAligned;
    }

  private:
    template <typename TileT>
    friend void sim::bind(TileT& tile, std::uintptr_t addr);
    template <typename TileT>
    friend void sim::rebind(TileT& tile, typename TileT::DType* storage);

    // Owned storage, null once the tile lives in the unified buffer. A plain pointer rather than a
    // unique_ptr: every kernel instantiates tiles of many types, and unique_ptr's machinery was about
    // a sixth of a test kernel's compile time.
    DType* owned_;
    DType* data_;
    int validRow_;
    int validCol_;
    bool isKAligned_ = false;
};

// The cube's tile aliases (TileLeft, TileAcc, ...) are generated from the specs' tile_type.aliases
// into <pto/common/pto_tile_aliases.hpp>, which <pto/common/pto_tile.hpp> provides.

template <typename T>
struct is_tile : std::false_type {};
template <TileType L, typename D, int R, int C, BLayout B, int VR, int VC, SLayout S, int F, auto P, CompactMode M>
struct is_tile<Tile<L, D, R, C, B, VR, VC, S, F, P, M>> : std::true_type {};

template <typename T>
inline constexpr bool is_tile_v = is_tile<std::remove_cvref_t<T>>::value;

namespace sim {

// The memory a tile of location `loc` lives in (Bias, Scaling and Ctrl tiles share the unified buffer).
constexpr NPUMemoryModel::Region region_of(TileType loc) {
    switch (loc) {
    case TileType::Mat:
        return NPUMemoryModel::L1;
    case TileType::Left:
        return NPUMemoryModel::L0A;
    case TileType::Right:
        return NPUMemoryModel::L0B;
    case TileType::Acc:
        return NPUMemoryModel::L0C;
    case TileType::ScaleLeft:
        return NPUMemoryModel::L0A_MX;
    case TileType::ScaleRight:
        return NPUMemoryModel::L0B_MX;
    default:
        return NPUMemoryModel::UB;
    }
}

// Bytes from a tile's first element to the end of its last valid one: the whole storage when the
// valid shape is set at run time (or empty), else up to element (ValidRow - 1, ValidCol - 1), which is
// the last valid one in every layout (a window of a larger block, such as a 16-row strip of an
// accumulator, needs only that much room).
template <typename TileT>
constexpr std::size_t footprint_bytes() {
    if constexpr (TileT::ValidRow <= 0 || TileT::ValidCol <= 0) {
        return TileT::SizeBytes();
    } else {
        const std::size_t last = GetTileElementOffset<TileT>(TileT::ValidRow - 1, TileT::ValidCol - 1);
        return sizeof(typename TileT::DType) * storage_units<typename TileT::DType>(last + 1);
    }
}

} // namespace sim

// Binds the tile to simulated on-chip memory (its own storage is released). `addr` is a byte offset
// into the memory of the tile's location (the unified buffer for Vec tiles, L0C for Acc, ...), or the
// host address of a byte of any simulated memory, which makes the tile an alias of what lives there
// (code that builds a second view of a tile's storage passes `reinterpret_cast<std::uintptr_t>(
// other.data())`). Either way the tile's footprint must fit in that memory and the address must suit
// the element type's alignment.
namespace sim {
// The part of bind that does not depend on the tile's type: it is compiled once rather than once
// per tile type (every test kernel binds tiles of dozens of types). Returns where the tile goes.
inline std::byte* place_tile(TileType loc, std::uintptr_t addr, std::size_t need, std::size_t align) {
    auto& memory = NPUMemoryModel::Instance();
    auto region = memory.RegionOf(addr);
    std::uintptr_t offset = 0;
    if (region != NPUMemoryModel::RegionCount) {
        offset = addr - reinterpret_cast<std::uintptr_t>(memory.Base(region));
    } else {
        region = region_of(loc);
        offset = addr;
    }
    const std::size_t size = memory.Size(region);
    check(offset <= size && need <= size - offset, "TASSIGN",
          "the tile must lie within its on-chip memory (offset + footprint <= the memory's size)");
    check(offset % align == 0, "TASSIGN", "addr must be aligned to the element type's alignment");
    return reinterpret_cast<std::byte*>(memory.Base(region) + offset);
}
} // namespace sim

template <typename TileT>
void sim::bind(TileT& tile, std::uintptr_t addr) {
    static_assert(is_tile_v<TileT>, "TASSIGN: the first argument must be a Tile");
    using D = typename TileT::DType;
    D* const at = reinterpret_cast<D*>(
        sim::place_tile(TileT::Loc, addr, sim::footprint_bytes<TileT>(), alignof(D)));
    if (tile.owned_ != at)
        sim::delete_storage(tile.owned_);
    tile.owned_ = nullptr;
    tile.data_ = at;
}

template <typename TileT>
void sim::rebind(TileT& tile, typename TileT::DType* storage) {
    if (tile.owned_ != storage)
        sim::delete_storage(tile.owned_);
    tile.owned_ = nullptr;
    tile.data_ = storage;
}

} // namespace pto
