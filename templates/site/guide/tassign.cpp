// tassign.cpp: two tiles placed at the same address share their storage.
#include <pto/pto-inst.hpp>

#include <cstdio>

using namespace pto;

int main() {
    using T = Tile<TileType::Vec, float, 2, 8>;
    T src, first, second;
    TASSIGN(first, 0x0);
    TASSIGN(second, 0x0); // same bytes of the simulated on-chip buffer as `first`
    TASSIGN(src, 0x100);  // 0x100 = 256 bytes on: past first's 2 * 8 * 4 = 64 bytes

    TEXPANDS(src, 1.5f);
    TADDS(first, src, 2.0f);
    std::printf("second(1, 7) = %g after writing first\n", static_cast<double>(second.at(1, 7)));
    return 0;
}
