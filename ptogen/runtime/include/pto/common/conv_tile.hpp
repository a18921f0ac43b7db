// ConvTile: an on-chip buffer holding a convolution operand (a feature map or a filter) in one of the
// conv layouts, with one to six extents, each a template argument or DYNAMIC and given at run time.
// Unlike a Tile it has no rows, columns or valid region: its elements are stored densely in the order
// the layout names its dimensions (NC1HWC0: n, c1, h, w, c0; NDC1HWC0: n, d, c1, h, w, c0;
// FRACTAL_Z: c1, h, w, n, c0, or c1*h*w, n/16, 16, c0). C0 is the 32-byte channel block, 32 /
// sizeof(DType) elements; an NC1HWC0 shape may leave it out (four extents).
// It also carries the img2col parameters of the feature map it holds (fmap size, padding, filter,
// stride, dilation, pad value, repeat settings), which SETFMATRIX, SET_IMG2COL_PADDING and
// SET_IMG2COL_RPT hand to the simulated configuration registers that TIMG2COL reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "global_tensor.hpp"
#include "sim_support.hpp"
#include "tile.hpp"

namespace pto {

namespace ConvTileDetail {
// At most six extents.
inline constexpr int MAX_CONVTILE_DIM = 6;
} // namespace ConvTileDetail

// Bytes of one channel block (C0) of a conv layout.
inline constexpr int conv_c0_bytes = 32;

namespace sim {

// The matrix a conv-layout buffer is seen as by the transfer ops (upstream's CPU simulator moves a
// ConvTile row by row of this matrix; its rows and columns fold the extents `e` as the layout says):
//   NC1HWC0 (n, c1, h, w[, c0]): rows n*h*w, columns c1*C0;
//   NDC1HWC0 (n, d, c1, h, w, c0): rows n*h*w, columns d*c1*C0;
//   FRACTAL_Z (c1hw, n/16, 16, c0): rows c1hw*(n/16)*c0, columns 16;
//   FRACTAL_Z (c1, h, w, n, c0): rows c1*h*w*c0, columns n;
//   any other layout: the last extent across, the others down.
// An extent that is DYNAMIC makes the result DYNAMIC.
struct conv_matrix {
    int64_t rows;
    int64_t cols;
};

constexpr int64_t conv_product(std::initializer_list<int64_t> extents) {
    int64_t p = 1;
    for (int64_t e : extents) {
        if (e == DYNAMIC)
            return DYNAMIC;
        p *= e;
    }
    return p;
}

constexpr conv_matrix conv_matrix_of(Layout layout, int dims, const int64_t* e, int64_t c0) {
    switch (layout) {
    case Layout::NC1HWC0:
        return {conv_product({e[0], e[2], e[3]}), conv_product({e[1], c0})};
    case Layout::NDC1HWC0:
        return {conv_product({e[0], e[3], e[4]}), conv_product({e[1], e[2], c0})};
    case Layout::FRACTAL_Z:
        if (dims == 4)
            return {conv_product({e[0], e[1], e[3]}), e[2]};
        return {conv_product({e[0], e[1], e[2], e[4]}), e[3]};
    default: {
        int64_t rows = 1;
        for (int k = 0; k + 1 < dims; ++k)
            rows = rows == DYNAMIC || e[k] == DYNAMIC ? DYNAMIC : rows * e[k];
        return {rows, e[dims - 1]};
    }
    }
}

} // namespace sim

// The extents of a ConvTile: one to six values, each static or DYNAMIC. The constructors take the
// DYNAMIC ones in order (or all six), as upstream's ConvTileShape does.
template <int... Shapes>
struct ConvTileShape {
    static constexpr int totalDimCount = sizeof...(Shapes);
    static_assert(totalDimCount >= 1 && totalDimCount <= ConvTileDetail::MAX_CONVTILE_DIM,
                  "ConvTileShape: a ConvTile has one to six extents");

  private:
    // The given extents padded with 1 to six entries.
    static constexpr int64_t padded(int k) {
        const int64_t given[] = {static_cast<int64_t>(Shapes)...};
        return k < totalDimCount ? given[k] : 1;
    }

  public:
    static constexpr int64_t staticShape[ConvTileDetail::MAX_CONVTILE_DIM] = {padded(0), padded(1), padded(2),
                                                                              padded(3), padded(4), padded(5)};
    static constexpr int dynamicDimCount = ((Shapes == DYNAMIC ? 1 : 0) + ... + 0);

    int64_t shape[ConvTileDetail::MAX_CONVTILE_DIM] = {padded(0), padded(1), padded(2),
                                                       padded(3), padded(4), padded(5)};

    // Every DYNAMIC extent defaults to 1.
    ConvTileShape() {
        for (int k = 0; k < ConvTileDetail::MAX_CONVTILE_DIM; ++k)
            if (staticShape[k] == DYNAMIC)
                shape[k] = 1;
    }

    // Exactly the DYNAMIC extents, in order; or, with six values, one per dimension (the static
    // positions are ignored, as upstream does).
    template <typename... I, std::enable_if_t<(sizeof...(I) >= 1) && (std::is_integral_v<I> && ...), int> = 0>
    explicit ConvTileShape(I... given) : ConvTileShape() {
        static_assert(sizeof...(I) == dynamicDimCount || sizeof...(I) == ConvTileDetail::MAX_CONVTILE_DIM,
                      "ConvTileShape: give exactly the DYNAMIC extents (or all six)");
        const int64_t v[] = {static_cast<int64_t>(given)...};
        int at = 0;
        for (int k = 0; k < ConvTileDetail::MAX_CONVTILE_DIM; ++k) {
            if (sizeof...(I) == ConvTileDetail::MAX_CONVTILE_DIM) {
                if (staticShape[k] == DYNAMIC)
                    shape[k] = v[k];
            } else if (staticShape[k] == DYNAMIC) {
                shape[k] = v[at++];
            }
        }
    }
};

template <TileType Loc_, typename Element_, const int BufferSize_, Layout Layout_, typename Shape_>
struct ConvTile;

namespace sim {
template <TileType L, typename D, int B, Layout Lay, typename S>
void bind(ConvTile<L, D, B, Lay, S>& tile, std::uintptr_t addr);
} // namespace sim

// A conv-layout buffer in a tile location (Mat for the feature maps and filters the cube reads).
// BufferSize_ is its size in bytes, which TASSIGN places in the location's memory.
template <TileType Loc_, typename Element_, const int BufferSize_, Layout Layout_, typename Shape_>
struct ConvTile {
    using DType = Element_;
    using ShapeType = Shape_;
    // What data() refers to: a pointer the kernel may also set itself (`tile.data() = buffer`).
    using TileDType = DType*;
    static constexpr TileType Loc = Loc_;
    static constexpr int bufferSize = BufferSize_;
    static constexpr Layout layout = Layout_;
    static constexpr int totalDimCount = Shape_::totalDimCount;
    static constexpr int dynamicDimCount = Shape_::dynamicDimCount;
    static constexpr int64_t staticShape[ConvTileDetail::MAX_CONVTILE_DIM] = {
        Shape_::staticShape[0], Shape_::staticShape[1], Shape_::staticShape[2],
        Shape_::staticShape[3], Shape_::staticShape[4], Shape_::staticShape[5]};
    static constexpr bool isDynamicDim[ConvTileDetail::MAX_CONVTILE_DIM] = {
        staticShape[0] == DYNAMIC, staticShape[1] == DYNAMIC, staticShape[2] == DYNAMIC,
        staticShape[3] == DYNAMIC, staticShape[4] == DYNAMIC, staticShape[5] == DYNAMIC};
    // Elements of the channel block of this element type.
    static constexpr int C0 = conv_c0_bytes / static_cast<int>(sizeof(Element_));

  private:
    static constexpr sim::conv_matrix static_matrix =
        sim::conv_matrix_of(Layout_, Shape_::totalDimCount, Shape_::staticShape, C0);

  public:
    // The matrix the transfer ops see (sim::conv_matrix_of): its rows and columns are all valid, so
    // a ConvTile's valid region is the whole matrix; DYNAMIC when an extent it folds is DYNAMIC.
    static constexpr int Rows = static_cast<int>(static_matrix.rows);
    static constexpr int Cols = static_cast<int>(static_matrix.cols);
    static constexpr int ValidRow = Rows;
    static constexpr int ValidCol = Cols;
    static constexpr bool isRowMajor = true;

    static_assert(BufferSize_ > 0, "ConvTile: BufferSize must be positive");
    static_assert(totalDimCount >= 1 && totalDimCount <= ConvTileDetail::MAX_CONVTILE_DIM,
                  "ConvTile: a ConvTile has one to six extents");

    int64_t shape[ConvTileDetail::MAX_CONVTILE_DIM] = {staticShape[0], staticShape[1], staticShape[2],
                                                       staticShape[3], staticShape[4], staticShape[5]};

    // Owns zeroed storage of BufferSize bytes until TASSIGN binds it or the kernel points data() elsewhere.
    ConvTile() : owned_(sim::new_storage<DType>(storage_elements())), data_(owned_) {
        for (int k = 0; k < ConvTileDetail::MAX_CONVTILE_DIM; ++k)
            if (isDynamicDim[k])
                shape[k] = 1;
    }

    // The DYNAMIC extents, in order (int64_t values, as upstream requires).
    template <typename... Ints, std::enable_if_t<(sizeof...(Ints) >= 1), int> = 0>
    explicit ConvTile(Ints... dynamicVals) : ConvTile() {
        SetDynamicShape(dynamicVals...);
    }

    ConvTile(const ConvTile&) = delete;
    ConvTile& operator=(const ConvTile&) = delete;
    ~ConvTile() {
        sim::delete_storage(owned_);
    }

    template <typename... Ints>
    void SetDynamicShape(Ints... vals) {
        static_assert(sizeof...(vals) == dynamicDimCount, "ConvTile: give one value per DYNAMIC extent");
        static_assert((std::is_same_v<Ints, int64_t> && ...), "ConvTile: the DYNAMIC extents are int64_t values");
        const int64_t v[] = {vals...};
        int at = 0;
        for (int k = 0; k < ConvTileDetail::MAX_CONVTILE_DIM; ++k)
            if (isDynamicDim[k])
                shape[k] = v[at++];
    }

    // Extent of dimension `dim`, or -1 past the tile's dimensions.
    constexpr int64_t GetShape(int dim) const {
        if (dim < 0 || dim >= totalDimCount)
            return -1;
        return isDynamicDim[dim] ? shape[dim] : staticShape[dim];
    }

    // Rows and columns of that matrix for the extents set now.
    int GetValidRow() const {
        return static_cast<int>(matrix().rows);
    }
    int GetValidCol() const {
        return static_cast<int>(matrix().cols);
    }
    sim::conv_matrix matrix() const {
        int64_t e[ConvTileDetail::MAX_CONVTILE_DIM];
        for (int k = 0; k < ConvTileDetail::MAX_CONVTILE_DIM; ++k)
            e[k] = isDynamicDim[k] ? shape[k] : staticShape[k];
        return sim::conv_matrix_of(Layout_, totalDimCount, e, C0);
    }

    [[gnu::always_inline]] TileDType& data() {
        return data_;
    }
    [[gnu::always_inline]] const TileDType& data() const {
        return data_;
    }

    // The img2col parameters of the feature map (upstream's accessors and field widths).
    uint16_t GetFmapH() const { return fmapH_; }
    void SetFmapH(uint16_t v) { fmapH_ = v; }
    uint16_t GetFmapW() const { return fmapW_; }
    void SetFmapW(uint16_t v) { fmapW_ = v; }
    // Padding in the order left, right, top, bottom.
    uint8_t GetPadList(uint8_t index) const { return padList_[index]; }
    void SetPadList(uint8_t index, uint8_t v) { padList_[index] = v; }
    const uint8_t* GetPadListArray() const { return padList_; }
    void SetPadListArray(const uint8_t values[4]) {
        for (int k = 0; k < 4; ++k)
            padList_[k] = values[k];
    }
    uint16_t GetFilterH() const { return filterH_; }
    void SetFilterH(uint16_t v) { filterH_ = v; }
    uint16_t GetFilterW() const { return filterW_; }
    void SetFilterW(uint16_t v) { filterW_ = v; }
    uint8_t GetDilationH() const { return static_cast<uint8_t>(dilationH_); }
    void SetDilationH(uint8_t v) { dilationH_ = v; }
    uint8_t GetDilationW() const { return static_cast<uint8_t>(dilationW_); }
    void SetDilationW(uint8_t v) { dilationW_ = v; }
    uint8_t GetStrideH() const { return static_cast<uint8_t>(strideH_); }
    void SetStrideH(uint8_t v) { strideH_ = v; }
    uint8_t GetStrideW() const { return static_cast<uint8_t>(strideW_); }
    void SetStrideW(uint8_t v) { strideW_ = v; }
    DType GetPadValue() const { return padValue_; }
    void SetPadValue(DType v) { padValue_ = v; }
    uint16_t GetChannelSize() const { return channelSize_; }
    void SetChannelSize(uint16_t v) { channelSize_ = v; }
    uint16_t GetRepeatStride() const { return repeatStride_; }
    void SetRepeatStride(uint16_t v) { repeatStride_ = v; }
    uint16_t GetRepeatTime() const { return repeatTime_; }
    void SetRepeatTime(uint8_t v) { repeatTime_ = v; }
    uint16_t GetRepeatMode() const { return repeatMode_; }
    void SetRepeatMode(uint8_t v) { repeatMode_ = v; }
    bool GetTranspose() const { return transpose_; }
    void SetTranspose(bool v) { transpose_ = v; }
    uint16_t GetDstStride() const { return dstStride_; }
    void SetDstStride(uint16_t v) { dstStride_ = v; }
    uint16_t GetDstMposition() const { return dstMposition_; }
    void SetDstMposition(uint16_t v) { dstMposition_ = v; }

  private:
    template <TileType L, typename D, int B, Layout Lay, typename S>
    friend void sim::bind(ConvTile<L, D, B, Lay, S>& tile, std::uintptr_t addr);

    static constexpr std::size_t storage_elements() {
        return (static_cast<std::size_t>(BufferSize_) + sizeof(DType) - 1) / sizeof(DType);
    }

    DType* owned_;
    DType* data_;
    uint8_t padList_[4] = {0, 0, 0, 0};
    uint16_t fmapH_ = 0;
    uint16_t fmapW_ = 0;
    uint16_t filterH_ = 1;
    uint16_t filterW_ = 1;
    uint16_t dilationH_ = 1;
    uint16_t dilationW_ = 1;
    uint16_t strideH_ = 1;
    uint16_t strideW_ = 1;
    DType padValue_{};
    uint16_t channelSize_ = 0;
    uint16_t repeatStride_ = 0;
    uint8_t repeatTime_ = 1;
    uint8_t repeatMode_ = 0;
    uint16_t dstStride_ = 0;
    uint16_t dstMposition_ = 0;
    bool transpose_ = false;
};

template <typename T>
struct is_conv_tile : std::false_type {};
template <TileType L, typename D, int B, Layout Lay, typename S>
struct is_conv_tile<ConvTile<L, D, B, Lay, S>> : std::true_type {};

template <typename T>
inline constexpr bool is_conv_tile_v = is_conv_tile<std::remove_cvref_t<T>>::value;

namespace sim {

// TASSIGN of a ConvTile: its BufferSize bytes move to `addr` of its location's memory.
template <TileType L, typename D, int B, Layout Lay, typename S>
void bind(ConvTile<L, D, B, Lay, S>& tile, std::uintptr_t addr) {
    D* const at = reinterpret_cast<D*>(sim::place_tile(L, addr, static_cast<std::size_t>(B), alignof(D)));
    if (tile.owned_ != at)
        sim::delete_storage(tile.owned_);
    tile.owned_ = nullptr;
    tile.data_ = at;
}

} // namespace sim

} // namespace pto
