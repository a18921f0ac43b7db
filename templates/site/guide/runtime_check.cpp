// runtime_check.cpp: run-time valid regions that disagree stop the simulation.
#include <pto/pto-inst.hpp>

using namespace pto;

int main() {
    using T = Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    T src(8, 8), dst(4, 8); // the destination's valid region is smaller than the source's
    TLRELU(dst, src, 0.5f);
    return 0;
}
