// The rounding of an exact value to a floating format, shared by TCVT (sim_convert.hpp) and the
// vector builtin vcvt (pto/vsim/convert.hpp). It names no element type: a format is given by its
// magnitude bit patterns, so the vector builtins use it without the tile runtime's 16-bit types.
#pragma once

#include <cmath>
#include <limits>

namespace pto::sim {

// The exact value of any element type: x86's long double has a 64-bit significand, which holds
// every 64-bit integer and every float, half and bfloat16_t value.
using exact_t = long double;

// Rounds the non-negative exact magnitude a (of a value with the given sign) to a floating format
// and returns the magnitude bits of the result. `guess` is the bits of a value next to a (the nearest
// or, after double rounding, the other neighbour), `value(bits)` a pattern's exact value. lo and hi
// are the neighbours of a; the position handed to `integral` (the rounding mode applied to an integer
// position) is k + t with k the parity of lo's last significand bit and t below, at or above one
// half as a is below, at or above the midpoint, negated for negative values so that floor and ceil
// keep their sense.
template <typename B, typename Value, typename F>
B round_magnitude(exact_t a, bool negative, B guess, Value value, F integral) {
    B lo = guess;
    const exact_t g = value(lo);
    if (g == a)
        return lo;
    if (g > a)
        lo = static_cast<B>(lo - 1);
    const B hi = static_cast<B>(lo + 1);
    const exact_t lo_v = value(lo);
    // Past the largest finite value, rounding treats infinity as one more step of the last binade
    // (IEEE 754), so values from half a step above the maximum on overflow to infinity.
    exact_t hi_v = value(hi);
    if (hi_v == std::numeric_limits<exact_t>::infinity())  // lo is the largest finite value
        hi_v = lo_v + (lo_v - value(static_cast<B>(lo - 1)));
    const exact_t mid = (lo_v + hi_v) / 2;
    const double t = a < mid ? 0.25 : (a == mid ? 0.5 : 0.75);
    const double k = static_cast<double>(lo & 1u);
    const double q = integral(negative ? -(k + t) : (k + t));
    // A mode that leaves the value unrounded (CAST_NONE) takes the conversion's own rounding:
    // to nearest, ties to even.
    const bool up = q != std::floor(q) ? (t > 0.5 || (t == 0.5 && k == 1)) : (negative ? -q : q) == k + 1;
    return up ? hi : lo;
}

}  // namespace pto::sim
