// first_kernel.cpp: load a 4 x 8 matrix into a tile, apply a leaky ReLU, sum each row, store.
#include <pto/pto-inst.hpp>

#include <cstdio>

using namespace pto;

int main() {
    constexpr int R = 4, C = 8;

    // Host data standing in for global memory: x[r][c] = c - 2 * r.
    float x[R * C];
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c)
            x[r * C + c] = static_cast<float>(c - 2 * r);
    float sums[R * 8] = {};

    // Views of that memory: a row-major R x C matrix (dimensions 3 and 4 of the 5-D shape).
    using In = GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>, Layout::ND>;
    using Out = GlobalTensor<float, Shape<1, 1, 1, R, 1>, Stride<R * 8, R * 8, R * 8, 8, 1>, Layout::ND>;
    In gx(x);
    Out gsum(sums);

    // Tiles: vector-buffer storage with a compile-time shape.
    using Data = Tile<TileType::Vec, float, R, C>;
    using Sums = Tile<TileType::Vec, float, R, 8, BLayout::RowMajor, R, 1>; // one valid column
    Data t, act, tmp;
    Sums s;

    RecordEvent loaded = TLOAD(t, gx);
    RecordEvent relu = TLRELU(act, t, 0.25f, loaded); // waits for the load
    RecordEvent summed = TROWSUM(s, act, tmp, relu);
    TSTORE(gsum, s, summed);

    for (int r = 0; r < R; ++r)
        std::printf("row %d: sum %g\n", r, static_cast<double>(sums[r * 8]));
    return 0;
}
