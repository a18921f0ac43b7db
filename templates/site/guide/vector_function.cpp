// vector_function.cpp: out = in * scale + bias over n floats, one 64-lane register at a time.
#include <pto/vsim/builtins.hpp>

#include <cstdint>
#include <cstdio>

__aicore__ void scale_bias(__ubuf__ float* out, __ubuf__ float* in, uint32_t n, float scale, float bias) {
    __VEC_SCOPE__ {
        vector_f32 x;
        uint32_t left = n; // plt_b32 takes the lanes it sets off `left`
        for (uint32_t base = 0; base < n; base += ELE_CNT_B32) {
            vector_bool active = plt_b32(left, POST_UPDATE); // 64 lanes, then the 36 left over
            vlds(x, in, base, NORM);                          // 256 bytes from UB
            vmuls(x, x, scale, active, MODE_ZEROING);          // inactive lanes read as zero
            vadds(x, x, bias, active, MODE_ZEROING);
            vsts(x, out, base, NORM_B32, active);             // only the active lanes are written
        }
    }
}

int main() {
    // UB is one byte array; a load reads whole registers, so the input is padded to one.
    alignas(32) static float ub[2 * 128] = {};
    float* in = ub;
    float* out = ub + 128;
    const uint32_t n = 100;
    for (uint32_t i = 0; i < 128; ++i) {
        in[i] = static_cast<float>(i);
        out[i] = -1.0f;
    }
    scale_bias(out, in, n, 2.0f, 1.0f);
    std::printf("out[0] %g, out[63] %g, out[64] %g, out[99] %g, out[100] %g\n", out[0], out[63], out[64],
                out[99], out[100]);
    return 0;
}
