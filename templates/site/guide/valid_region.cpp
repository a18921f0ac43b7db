// valid_region.cpp: an op computes only inside the destination's valid region.
#include <pto/pto-inst.hpp>

#include <cstdio>

using namespace pto;

template <typename T>
void print(const char* name, T& tile) {
    std::printf("%s (valid %d x %d):\n", name, tile.GetValidRow(), tile.GetValidCol());
    for (int r = 0; r < T::Rows; ++r) {
        for (int c = 0; c < T::Cols; ++c)
            std::printf(" %3g", static_cast<double>(tile.at(r, c)));
        std::printf("\n");
    }
}

int main() {
    // Static valid region: 2 x 3 of a 4 x 8 tile, fixed by the type.
    using Fixed = Tile<TileType::Vec, float, 4, 8, BLayout::RowMajor, 2, 3>;
    Fixed a, b;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            a.at(r, c) = static_cast<float>(10 * r + c);
    TADDS(b, a, 100.0f);
    print("static", b);

    // Run-time valid region: the type says DYNAMIC, the constructor gives 3 x 2.
    using Dyn = Tile<TileType::Vec, float, 4, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    Dyn c(3, 2), d(3, 2);
    for (int r = 0; r < 4; ++r)
        for (int k = 0; k < 4; ++k)
            c.at(r, k) = static_cast<float>(10 * r + k + 1);
    TMULS(d, c, -1.0f);
    print("dynamic", d);
    return 0;
}
