// Register model of the vector ops: a vector register of N lanes and a predicate mask of N lanes.
#pragma once

#include <cstddef>

namespace pto {

// Aggregates with value-initialised lanes, so `vreg<T, N> v{};` and `vreg<T, N> v;` both start at zero.
template <typename T, int N>
struct vreg {
    static_assert(N > 0, "vreg: lane count must be positive");
    using DType = T;
    static constexpr int lanes = N;

    T lane[static_cast<std::size_t>(N)]{};

    T& operator[](int i) {
        return lane[i];
    }
    const T& operator[](int i) const {
        return lane[i];
    }
};

template <int N>
struct mask {
    static_assert(N > 0, "mask: lane count must be positive");
    static constexpr int lanes = N;

    bool lane[static_cast<std::size_t>(N)]{};

    bool& operator[](int i) {
        return lane[i];
    }
    const bool& operator[](int i) const {
        return lane[i];
    }
};

template <int N>
constexpr mask<N> mask_all() {
    mask<N> m;
    for (int i = 0; i < N; ++i)
        m.lane[i] = true;
    return m;
}

// The first k lanes active; k is clamped to [0, N].
template <int N>
constexpr mask<N> mask_first(int k) {
    mask<N> m;
    for (int i = 0; i < N; ++i)
        m.lane[i] = i < k;
    return m;
}

// Lane i active when bits[i] is true; reads exactly N values.
template <int N>
constexpr mask<N> mask_from_bits(const bool* bits) {
    mask<N> m;
    for (int i = 0; i < N; ++i)
        m.lane[i] = bits[i];
    return m;
}

} // namespace pto
