// Where the transfer ops find element (r, c) of the matrix a conv-layout buffer is seen as
// (conv_tile.hpp, sim::conv_matrix_of): in a ConvTile, stored densely in its own extents, and in a
// GlobalTensor of the same layout, through its strides. Each side splits r and c over its own
// extents, as upstream's CPU simulator does, so a transfer between a ConvTile and a GlobalTensor of
// equal extents moves every element to the same (n, [d,] c1, h, w, c0) position.
#pragma once

#include <cstddef>
#include <cstdint>

#include "conv_tile.hpp"
#include "global_tensor.hpp"
#include "sim_support.hpp"

namespace pto::sim {

// Element offset of (r, c) in a ConvTile of layout L, extents e[0..4] (dims of them given), C0
// elements to a channel block.
template <Layout L>
int64_t conv_tile_offset(const int64_t* e, int dims, int64_t c0, int64_t r, int64_t c) {
    if constexpr (L == Layout::NC1HWC0) {
        const int64_t w = r % e[3], h = (r / e[3]) % e[2], n = r / (e[2] * e[3]);
        const int64_t k = c % c0, c1 = c / c0;
        return (((n * e[1] + c1) * e[2] + h) * e[3] + w) * c0 + k;
    } else if constexpr (L == Layout::NDC1HWC0) {
        const int64_t w = r % e[4], h = (r / e[4]) % e[3], n = r / (e[3] * e[4]);
        const int64_t k = c % c0, c1 = (c / c0) % e[2], d = c / (e[2] * c0);
        return ((((n * e[1] + d) * e[2] + c1) * e[3] + h) * e[4] + w) * c0 + k;
    } else if constexpr (L == Layout::FRACTAL_Z) {
        if (dims == 4) {  // (c1hw, n/16, 16, c0): r runs over (c1hw, n/16, c0), c over the 16
            const int64_t k = r % e[3], nb = (r / e[3]) % e[1], g = r / (e[1] * e[3]);
            return ((g * e[1] + nb) * e[2] + c) * e[3] + k;
        }
        // (c1, h, w, n, c0): r runs over (c1, h, w, c0), c over n
        const int64_t k = r % e[4], w = (r / e[4]) % e[2], h = (r / (e[2] * e[4])) % e[1];
        const int64_t c1 = r / (e[1] * e[2] * e[4]);
        return (((c1 * e[1] + h) * e[2] + w) * e[3] + c) * e[4] + k;
    } else {
        static_assert(L == Layout::NC1HWC0 || L == Layout::NDC1HWC0 || L == Layout::FRACTAL_Z,
                      "ConvTile: the simulator moves the NC1HWC0, NDC1HWC0 and FRACTAL_Z layouts");
        return 0;
    }
}

// Element offset of (r, c) in a GlobalTensor of layout L (extents g, strides s), C0 elements to a
// channel block (NDC1HWC0 keeps the channel block innermost, beyond its five dimensions).
template <Layout L>
int64_t conv_global_offset(const int64_t* g, const int64_t* s, int64_t c0, int64_t r, int64_t c) {
    int64_t i[5] = {0, 0, 0, 0, 0};
    int64_t k = 0;
    if constexpr (L == Layout::NC1HWC0) {
        i[3] = r % g[3];
        i[2] = (r / g[3]) % g[2];
        i[0] = r / (g[2] * g[3]);
        i[4] = c % g[4];
        i[1] = c / g[4];
    } else if constexpr (L == Layout::NDC1HWC0) {
        i[4] = r % g[4];
        i[3] = (r / g[4]) % g[3];
        i[0] = r / (g[3] * g[4]);
        k = c % c0;
        i[2] = (c / c0) % g[2];
        i[1] = c / (g[2] * c0);
    } else {
        static_assert(L == Layout::FRACTAL_Z, "GlobalTensor: a conv transfer moves NC1HWC0, NDC1HWC0 or FRACTAL_Z");
        i[4] = r % g[4];
        i[2] = (r / g[4]) % g[2];
        i[1] = (r / (g[2] * g[4])) % g[1];
        i[0] = r / (g[1] * g[2] * g[4]);
        i[3] = c;
    }
    return i[0] * s[0] + i[1] * s[1] + i[2] * s[2] + i[3] * s[3] + i[4] * s[4] + k;
}

// Calls f(tile offset, global offset) for every element of the ConvTile's matrix, row by row, after
// checking that both offsets stay within the tile's BufferSize and the memory the tensor spans.
template <typename ConvT, typename G, typename F>
void conv_walk(const char* op, const ConvT& tile, const G& global, F&& f) {
    using D = typename ConvT::DType;
    static_assert(G::layout == ConvT::layout, "a ConvTile moves to and from a GlobalTensor of its own layout");
    static_assert(ConvT::Loc == TileType::Mat, "a ConvTile that TLOAD or TSTORE moves lives in TileType::Mat");
    static_assert(is_one_of_v<D, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, half, bfloat16_t, float>,
                  "a ConvTile that TLOAD or TSTORE moves holds int8_t, uint8_t, int16_t, uint16_t, int32_t, "
                  "uint32_t, half, bfloat16_t or float");
    int64_t e[5], g[5], s[5];
    for (int k = 0; k < 5; ++k) {
        e[k] = tile.GetShape(k);
        g[k] = global.GetShape(k);
        s[k] = global.GetStride(k);
    }
    const int64_t c0 = ConvT::C0;
    const auto m = tile.matrix();
    const int64_t capacity = static_cast<int64_t>(ConvT::bufferSize / sizeof(typename ConvT::DType));
    const int64_t span = global.span();
    for (int64_t r = 0; r < m.rows; ++r)
        for (int64_t c = 0; c < m.cols; ++c) {
            const int64_t at = conv_tile_offset<ConvT::layout>(e, ConvT::totalDimCount, c0, r, c);
            const int64_t to = conv_global_offset<G::layout>(g, s, c0, r, c);
            check(at >= 0 && at < capacity, op, "the ConvTile's extents must fit its BufferSize");
            check(to >= 0 && to < span + (G::layout == Layout::NDC1HWC0 ? c0 - 1 : 0), op,
                  "the transferred elements must lie within the memory the GlobalTensor's Shape and Stride span");
            f(static_cast<std::size_t>(at), static_cast<std::size_t>(to));
        }
}

} // namespace pto::sim
