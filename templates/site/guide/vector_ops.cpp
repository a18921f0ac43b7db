// vector_ops.cpp: the vector C++ API: a leaky ReLU on the active lanes of an 8-lane register.
#include <pto/vector/pto_vec.hpp>

#include <cstdio>

using namespace pto;

int main() {
    vreg<float, 8> x;
    for (int i = 0; i < 8; ++i)
        x[i] = static_cast<float>(i - 4); // -4 ... 3
    // Only the first six lanes are active; the others read as zero in the result.
    const mask<8> active = mask_first<8>(6);
    const vreg<float, 8> y = vlrelu(x, 0.5f, active);
    for (int i = 0; i < 8; ++i)
        std::printf("%g%s", y[i], i == 7 ? "\n" : " ");
    return 0;
}
