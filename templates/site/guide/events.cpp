// events.cpp: each op returns an event; a later op (or TSYNC) waits on it.
#include <pto/pto-inst.hpp>

#include <cstdio>

using namespace pto;

int main() {
    using T = Tile<TileType::Vec, float, 1, 8>;
    T a, b, c;
    RecordEvent filled = TEXPANDS(a, 3.0f);
    RecordEvent doubled = TMULS(b, a, 2.0f, filled);   // starts after `filled`
    RecordEvent summed = TADD(c, a, b, filled, doubled); // waits on both
    TSYNC(summed);                                       // the host waits for the last one
    std::printf("c(0, 0) = %g\n", static_cast<double>(c.at(0, 0)));
    return 0;
}
