// profile_check.cpp: TLRELU on int32_t tiles. The CPU profile builds and runs it (its simulator
// computes int32_t), but the A5 profile rejects it at compile time with the rule the ISA documents.
#include <pto/pto-inst.hpp>

using namespace pto;

int main() {
    using T = Tile<TileType::Vec, int32_t, 8, 8>;
    T src, dst;
    TLRELU(dst, src, 2);
    return 0;
}
