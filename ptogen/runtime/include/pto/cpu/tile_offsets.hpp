// Where element (r, c) of a tile sits in its storage, for host code (tests, reference models)
// that reads or writes tile memory directly. A plain tile is row- or column-major; a boxed tile
// is a grid of fractal boxes (InnerRows x InnerCols elements each) in which the outer layout
// (BLayout) orders the boxes and the inner layout (SLayout) orders the elements of one box.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <pto/common/constants.hpp>
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

// Upstream's name for the same offset.
template <typename TileData>
constexpr std::size_t GetTileOffset(int r, int c) {
    return GetTileElementOffset<TileData>(static_cast<std::size_t>(r), static_cast<std::size_t>(c));
}

namespace sim {

// Element (r, c) of a tile (plain or boxed layout) or of anything else that has at(r, c) (a
// GlobalTensor's matrix), by reference; twin types (two elements to a byte) have none.
template <typename T>
auto& element_at(T& x, int r, int c) {
    if constexpr (is_tile_v<T>)
        return x.data()[GetTileElementOffset<std::remove_cvref_t<T>>(r, c)];
    else
        return x.at(r, c);
}

// Element (r, c) copied from `src` to `dst`, bit for bit, for every element type.
template <typename D, typename S>
void copy_element(D& dst, int dr, int dc, S& src, int sr, int sc) {
    using T = typename std::remove_cvref_t<D>::DType;
    if constexpr (IsTwinType<T>()) {
        T value;
        if constexpr (is_tile_v<S>)
            value = src.GetElement(sr, sc);
        else
            value = src.get(sr, sc);
        if constexpr (is_tile_v<D>)
            dst.SetElement(dr, dc, value);
        else
            dst.set(dr, dc, value);
    } else {
        std::memcpy(&element_at(dst, dr, dc), &element_at(src, sr, sc), sizeof(T));
    }
}


// The element value a tile's PadVal names, as upstream's CPU simulator picks it: Zero (and Null) is
// 0; Max and Min are +-infinity for a floating type, else numeric_limits' max() and min() (for the
// 4-bit floats min() is the smallest positive value); a custom value is its bit pattern, the low
// bits of which fill one element.
template <typename TileT>
typename TileT::DType pad_value() {
    using T = typename TileT::DType;
    constexpr auto pad = TileT::PadVal;
    if constexpr (isCustomPadValue(pad)) {
        const std::uint64_t bits = getCustomPadBits(pad);
        if constexpr (IsTwinType<T>()) {
            return T::FromRaw(static_cast<std::uint8_t>(bits & 0x0f));
        } else {
            T value{};
            std::memcpy(&value, &bits, sizeof(T));  // little-endian host: the low bytes
            return value;
        }
    } else if constexpr (pad == PadValue::Max) {
        if constexpr (is_floating_v<T>)
            return T(std::numeric_limits<float>::infinity());
        else
            return std::numeric_limits<T>::max();
    } else if constexpr (pad == PadValue::Min) {
        if constexpr (is_floating_v<T>)
            return T(-std::numeric_limits<float>::infinity());
        else
            return std::numeric_limits<T>::min();
    } else {
        return T{};
    }
}

// A load's padding: every element of the tile outside its valid region takes the pad value.
// PadValue::Null asks for none, and those elements keep what they held.
template <typename TileT>
void fill_padding(TileT& tile) {
    if constexpr (TileT::PadVal != PadValue::Null) {
        const auto value = pad_value<TileT>();
        for (int r = 0; r < TileT::Rows; ++r)
            for (int c = 0; c < TileT::Cols; ++c)
                if (r >= tile.GetValidRow() || c >= tile.GetValidCol())
                    tile.SetElement(r, c, value);
    }
}

} // namespace sim

} // namespace pto
