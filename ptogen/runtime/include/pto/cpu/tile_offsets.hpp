// Where element (r, c) of a tile sits in its storage, for host code (tests, reference models)
// that reads or writes tile memory directly. A plain tile is row- or column-major; a boxed tile
// is a grid of fractal boxes (InnerRows x InnerCols elements each) in which the outer layout
// (BLayout) orders the boxes and the inner layout (SLayout) orders the elements of one box.
#pragma once

#include <cstddef>
#include <type_traits>

#include <pto/common/tile.hpp>

namespace pto {

// Float sums of 16-bit float tiles are accumulated in float.
template <typename TileData>
using TypeSum = sim::compute_t<typename TileData::DType>;

template <typename TileData>
constexpr std::size_t GetTileElementOffsetPlain(std::size_t r, std::size_t c) {
    return TileData::isRowMajor ? r * TileData::Cols + c : c * TileData::Rows + r;
}

template <typename TileData>
constexpr std::size_t GetTileElementOffset(std::size_t r, std::size_t c) {
    if constexpr (!TileData::isBoxedLayout) {
        return GetTileElementOffsetPlain<TileData>(r, c);
    } else {
        constexpr std::size_t ir = TileData::InnerRows, ic = TileData::InnerCols, box = TileData::InnerNumel;
        const std::size_t boxRow = r / ir, inRow = r % ir, boxCol = c / ic, inCol = c % ic;
        // Boxes: a row-major outer layout fills a row of boxes first, a column-major one a column.
        const std::size_t boxStart = TileData::isRowMajor ? boxRow * TileData::Cols * ir + boxCol * box
                                                          : boxCol * TileData::Rows * ic + boxRow * box;
        return boxStart + (TileData::isInnerRowMajor ? inRow * ic + inCol : inCol * ir + inRow);
    }
}

namespace sim {

// Element (r, c) of a tile (plain or boxed layout) or of anything else that has at(r, c) (a
// GlobalTensor's matrix).
template <typename T>
auto& element_at(T& x, int r, int c) {
    if constexpr (is_tile_v<T>)
        return x.data()[GetTileElementOffset<std::remove_cvref_t<T>>(r, c)];
    else
        return x.at(r, c);
}

} // namespace sim

} // namespace pto
