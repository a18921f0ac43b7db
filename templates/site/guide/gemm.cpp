// gemm.cpp: C = A x B for a 16 x 32 by 32 x 16 float matrix product on the cube:
// global memory -> Mat (L1) -> Left/Right (L0A/L0B) -> TMATMUL into Acc (L0C) -> global memory.
#include <pto/pto-inst.hpp>

#include <cmath>
#include <cstdio>

using namespace pto;

int main() {
    constexpr int M = 16, K = 32, N = 16;

    // Host data standing in for global memory, all row-major (ND).
    static float a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k)
            a[i * K + k] = static_cast<float>((i + k) % 5 - 2);
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j)
            b[k * N + j] = static_cast<float>((k * j) % 7 - 3);

    using GA = GlobalTensor<float, Shape<1, 1, 1, M, K>, Stride<M * K, M * K, M * K, K, 1>, Layout::ND>;
    using GB = GlobalTensor<float, Shape<1, 1, 1, K, N>, Stride<K * N, K * N, K * N, N, 1>, Layout::ND>;
    using GC = GlobalTensor<float, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>, Layout::ND>;
    GA ga(a);
    GB gb(b);
    GC gc(c);

    // The operands in L1, in the NZ box layout the cube reads (TLOAD converts from ND).
    using MatA = Tile<TileType::Mat, float, M, K, BLayout::ColMajor, M, K, SLayout::RowMajor, 512>;
    using MatB = Tile<TileType::Mat, float, K, N, BLayout::ColMajor, K, N, SLayout::RowMajor, 512>;
    MatA aMat;
    MatB bMat;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x10000);

    TileLeft<float, M, K> aLeft;   // L0A, NZ boxes
    TileRight<float, K, N> bRight; // L0B, ZN boxes
    TileAcc<float, M, N> acc;      // L0C, NZ boxes of 16 x 16
    TASSIGN(aLeft, 0x0);
    TASSIGN(bRight, 0x0);
    TASSIGN(acc, 0x0);

    RecordEvent la = TLOAD(aMat, ga);
    RecordEvent lb = TLOAD(bMat, gb);
    RecordEvent ma = TMOV(aLeft, aMat, la);
    RecordEvent mb = TMOV(bRight, bMat, lb);
    RecordEvent mm = TMATMUL(acc, aLeft, bRight, ma, mb);
    RecordEvent st = TSTORE(gc, acc, mm);
    TSYNC(st);

    // Check against a plain triple loop: every product and partial sum is a small integer, so
    // both orders give the same floats.
    float worst = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float want = 0;
            for (int k = 0; k < K; ++k)
                want += a[i * K + k] * b[k * N + j];
            worst = std::fmax(worst, std::fabs(c[i * N + j] - want));
        }
    std::printf("c[0][0] = %g, c[15][15] = %g, largest difference from the loop: %g\n", c[0], c[M * N - 1], worst);
    return worst == 0 ? 0 : 1;
}
