"""Behaviour of the hand-written C++ simulator core (ptogen/runtime/include/pto/common).

One C++ program per compiler exercises the core (its `argv[1]` picks a mode); conversion results
are exchanged with numpy / ml_dtypes through binary files. The generated headers that
`pto/pto-inst.hpp` includes are replaced by throwaway stand-ins written next to the program.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from ..compilers import cxx_argv
from ..helpers import ROOT

INCLUDE = ROOT / "ptogen/runtime/include"
FLAGS = ["-std=c++20", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]

STANDIN_INSTR = r"""
#pragma once
#include <pto/common/pto_core.hpp>
#include <pto/common/check_support.hpp>
#include <pto/common/sim_arith.hpp>
namespace pto {
inline constexpr bool standin_instr_included = true;
// Not a PTO op: shaped like a generated intrinsic (optional tmp tile leading the event pack) to
// prove the core supports that shape.
template <typename TileData, typename... WaitEvents>
PTO_INST RecordEvent TSTANDIN(TileData& dst, TileData& src, typename TileData::DType scale,
                              WaitEvents&... events) {
    [[maybe_unused]] auto& tmp = sim::tmp_or_none(events...);
    sim::sync_events(events...);
    sim::check(!sim::tiles_overlap(dst, src) && !sim::tiles_overlap(dst, tmp), "TSTANDIN", "no overlap");
    using T = typename TileData::DType;
    using C = sim::compute_t<T>;
    const C scale_v = static_cast<C>(scale);
    for (int r = 0; r < dst.GetValidRow(); ++r)
        for (int c = 0; c < dst.GetValidCol(); ++c)
            dst.at(r, c) = sim::narrow<T>(sim::mul<C>(static_cast<C>(src.at(r, c)), scale_v));
    return {};
}
} // namespace pto
"""

STANDIN_VEC = r"""
#pragma once
#include <pto/common/pto_core.hpp>
namespace pto {
inline constexpr bool standin_vec_included = true;
}
"""

# The counting CHECK of the C++ test programs (also used by test_sim_minmax.py).
CHECK_MACRO = r"""static int failures = 0;
static int checks = 0;
#define CHECK(cond)                                                                                        \
    do {                                                                                                   \
        ++checks;                                                                                          \
        if (!(cond)) {                                                                                     \
            ++failures;                                                                                    \
            std::printf("FAIL line %d: %s\n", __LINE__, #cond);                                            \
        }                                                                                                  \
    } while (0)
"""

PROGRAM = r"""
#include <pto/pto-inst.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace pto;

static_assert(standin_instr_included && standin_vec_included,
              "pto-inst.hpp must include the generated headers");

@CHECK@

template <typename T>
static std::vector<T> read_file(const char* path) {
    std::FILE* f = std::fopen(path, "rb");
    if (!f) {
        std::perror(path);
        std::exit(2);
    }
    std::vector<T> out;
    T v;
    while (std::fread(&v, sizeof v, 1, f) == 1)
        out.push_back(v);
    std::fclose(f);
    return out;
}
template <typename T>
static void write_file(const char* path, const std::vector<T>& data) {
    std::FILE* f = std::fopen(path, "wb");
    if (!f || std::fwrite(data.data(), sizeof(T), data.size(), f) != data.size()) {
        std::perror(path);
        std::exit(2);
    }
    std::fclose(f);
}

static int convert(char** argv) {
    const auto f32 = read_file<float>(argv[2]);
    const auto f64 = read_file<double>(argv[3]);
    std::vector<float> half_from_bits, bf16_from_bits;
    for (std::uint32_t b = 0; b < 65536; ++b) {
        half_from_bits.push_back(static_cast<float>(half::from_bits(static_cast<std::uint16_t>(b))));
        bf16_from_bits.push_back(static_cast<float>(bfloat16_t::from_bits(static_cast<std::uint16_t>(b))));
    }
    std::vector<std::uint16_t> to_half, to_bf16, f64_to_half;
    for (float x : f32) {
        to_half.push_back(half(x).bits());
        to_bf16.push_back(bfloat16_t(x).bits());
    }
    for (double x : f64)
        f64_to_half.push_back(half(x).bits());
    write_file(argv[4], half_from_bits);
    write_file(argv[5], bf16_from_bits);
    write_file(argv[6], to_half);
    write_file(argv[7], to_bf16);
    write_file(argv[8], f64_to_half);
    return 0;
}

template <typename F>
static bool same_bits(F a, F b) {
    if constexpr (sizeof(F) == 4)
        return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
    else
        return a.bits() == b.bits();
}

using RM = Tile<TileType::Vec, float, 4, 8>;
using CM = Tile<TileType::Vec, float, 4, 8, BLayout::ColMajor>;
using Dyn = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using Part = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, 8, 4>;

// Tiles that violate per-op rules must still be declarable (the ops' static_asserts report them).
using BadValid = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, 17, 16>;
using MatI64 = Tile<TileType::Mat, std::int64_t, 8, 8>;
using AccCol = Tile<TileType::Acc, std::uint8_t, 8, 8, BLayout::ColMajor>;

PTO_INST int uses_pto_inst() {
    return 1;
}
PTO_INTERNAL int uses_pto_internal() {
    return 2;
}

static void tile_checks() {
    static_assert(RM::Rows == 4 && RM::Cols == 8 && RM::ValidRow == 4 && RM::ValidCol == 8);
    static_assert(RM::isRowMajor && RM::RowStride == 8 && RM::ColStride == 1);
    static_assert(!CM::isRowMajor && CM::RowStride == 1 && CM::ColStride == 4);
    static_assert(RM::Numel == 32 && RM::SizeBytes() == 128 && RM::Layout == BLayout::RowMajor);
    static_assert(CM::Layout == BLayout::ColMajor && RM::Loc == TileType::Vec &&
                  MatI64::Loc == TileType::Mat);
    static_assert(std::is_same_v<RM::DType, float> && std::is_same_v<MatI64::DType, std::int64_t>);
    static_assert(Dyn::ValidRow == DYNAMIC && Part::ValidRow == 8 && Part::ValidCol == 4);
    static_assert(is_tile_v<RM> && is_tile_v<const CM&> && is_tile_v<MatI64&&> && !is_tile_v<int> &&
                  !is_tile_v<RecordEvent>);
    static_assert(!std::is_copy_constructible_v<RM> && std::is_move_constructible_v<RM>);

    RM rm;
    CM cm;
    CHECK(&rm.at(2, 3) - rm.data() == 2 * 8 + 3);
    CHECK(&cm.at(2, 3) - cm.data() == 2 + 3 * 4);
    CHECK(&std::as_const(rm).at(3, 7) - std::as_const(rm).data() == 31);
    bool zero = true;
    for (int i = 0; i < RM::Numel; ++i)
        zero = zero && rm.data()[i] == 0.0f;
    CHECK(zero);
    CHECK(rm.GetValidRow() == 4 && rm.GetValidCol() == 8);

    Dyn dyn_default;
    Dyn dyn(5, 7);
    Part part;
    Part part_rt(3, 2);
    CHECK(dyn_default.GetValidRow() == 16 && dyn_default.GetValidCol() == 16);
    CHECK(dyn.GetValidRow() == 5 && dyn.GetValidCol() == 7);
    CHECK(part.GetValidRow() == 8 && part.GetValidCol() == 4);
    CHECK(part_rt.GetValidRow() == 3 && part_rt.GetValidCol() == 2);

    BadValid bad;
    MatI64 mat;
    AccCol acc;
    Tile<TileType::Vec, half, 2, 2> th;
    Tile<TileType::Vec, bfloat16_t, 2, 2> tb;
    CHECK(bad.GetValidRow() == 17 && mat.at(7, 7) == 0 && acc.at(1, 0) == 0);
    CHECK(th.at(1, 1).bits() == 0 && tb.at(1, 1).bits() == 0);

    // Moving hands the storage over; the moved-from tile no longer points at it.
    rm.at(1, 1) = 42.0f;
    float* storage = rm.data();
    RM moved(std::move(rm));
    CHECK(moved.data() == storage && moved.at(1, 1) == 42.0f && rm.data() == nullptr);

    // sim::bind (what TASSIGN of a tile runs): tiles at the same address alias; byte ranges decide overlap.
    RM a, b, next, straddle, own1, own2;
    sim::bind(a, 0x100);
    sim::bind(b, 0x100);
    sim::bind(next, 0x100 + RM::SizeBytes());
    sim::bind(straddle, 0x100 + RM::SizeBytes() - sizeof(float));
    CHECK(reinterpret_cast<std::byte*>(a.data()) == sim::unified_buffer() + 0x100);
    a.at(1, 2) = 3.5f;
    CHECK(b.at(1, 2) == 3.5f);
    b.at(3, 7) = -1.0f;
    CHECK(a.at(3, 7) == -1.0f && straddle.at(0, 0) == -1.0f);
    CHECK(sim::tiles_overlap(a, b) && sim::tiles_overlap(a, a) && sim::tiles_overlap(a, straddle));
    CHECK(sim::tiles_overlap(straddle, next) && !sim::tiles_overlap(a, next) &&
          !sim::tiles_overlap(next, a));
    CHECK(!sim::tiles_overlap(own1, own2) && !sim::tiles_overlap(own1, a) &&
          sim::tiles_overlap(own1, own1));
    Tile<TileType::Vec, std::uint8_t, 1, 1> byte_tile;
    sim::bind(byte_tile, 0x100 + RM::SizeBytes() - 1);
    CHECK(sim::tiles_overlap(a, byte_tile) && sim::tiles_overlap(byte_tile, a) &&
          !sim::tiles_overlap(byte_tile, next));
    RM last;
    sim::bind(last, sim::unified_buffer_bytes - RM::SizeBytes()); // the very end still fits
    last.at(3, 7) = 9.0f;
    CHECK(last.at(3, 7) == 9.0f);
    CHECK(!sim::tiles_overlap(own1, sim::no_tile{}) && !sim::tiles_overlap(sim::no_tile{}, own1));

    // The shape of a generated intrinsic, with and without a leading tmp tile.
    Tile<TileType::Vec, half, 2, 4> x, out, tmp;
    x.at(1, 3) = half(3.0f);
    RecordEvent e = TSTANDIN(out, x, 0.5f);
    CHECK(static_cast<float>(out.at(1, 3)) == 1.5f);
    const auto before = sim::wait_count();
    TSTANDIN(out, x, 2.0, tmp, e);
    CHECK(static_cast<float>(out.at(1, 3)) == 6.0f && sim::wait_count() == before + 1);
    TSTANDIN(out, x, 1, e, e);
    CHECK(static_cast<float>(out.at(1, 3)) == 3.0f && sim::wait_count() == before + 3);
    CHECK(uses_pto_inst() + uses_pto_internal() == 3);
}

static void event_checks() {
    using T = Tile<TileType::Vec, float, 2, 2>;
    static_assert(!sim::leads_with_tile_v<> && !sim::leads_with_tile_v<RecordEvent>);
    static_assert(sim::leads_with_tile_v<T> && sim::leads_with_tile_v<T, RecordEvent, RecordEvent>);
    static_assert(sim::leads_with_tile_v<const T, RecordEvent> && !sim::leads_with_tile_v<RecordEvent, T>);
    RecordEvent e1, e2;
    const RecordEvent ce{};
    T t;
    const auto start = sim::wait_count();
    WaitAllEvents();
    CHECK(sim::wait_count() == start);
    WaitAllEvents(e1);
    CHECK(sim::wait_count() == start + 1);
    WaitAllEvents(e1, e2, ce);
    CHECK(sim::wait_count() == start + 4);
    sim::sync_tail(t, e1, e2);
    CHECK(sim::wait_count() == start + 6);
    CHECK(&sim::first_arg(t, e1, e2) == &t && &sim::first_arg(e2) == &e2);
    CHECK(&sim::tmp_or_none(t, e1) == &t);
    sim::sync_events(t, e1);
    sim::sync_events(e1, e2);
    CHECK(sim::wait_count() == start + 9);
}

static void element_type_checks() {
    static_assert(sizeof(half) == 2 && sizeof(bfloat16_t) == 2);
    static_assert(std::is_trivially_copyable_v<half> && std::is_trivially_copyable_v<bfloat16_t>);
    static_assert(std::is_same_v<float16_t, half> && std::is_same_v<float32_t, float>);
    static_assert(is_floating_v<float> && is_floating_v<double> && is_floating_v<half> &&
                  is_floating_v<const bfloat16_t>);
    static_assert(!is_floating_v<int> && is_integer_v<std::int8_t> && is_integer_v<std::uint64_t>);
    static_assert(!is_integer_v<bool> && !is_integer_v<float> && !is_integer_v<half>);
    static_assert(std::is_same_v<sim::compute_t<half>, float> &&
                  std::is_same_v<sim::compute_t<bfloat16_t>, float>);
    static_assert(std::is_same_v<sim::compute_t<float>, float> &&
                  std::is_same_v<sim::compute_t<std::int8_t>, std::int8_t>);

    // Rounding at compile time too.
    static_assert(half(1.0f).bits() == 0x3c00 && half(65504.0f).bits() == 0x7bff &&
                  half(65520.0f).bits() == 0x7c00);
    static_assert(half(-0.0f).bits() == 0x8000 && half(5.960464477539063e-08f).bits() == 0x0001);
    static_assert(bfloat16_t(1.0f).bits() == 0x3f80 && bfloat16_t(-2.0f).bits() == 0xc000);
    // Doubles round once (a detour through float would round twice and land on the even neighbour).
    static_assert(half(1.0 + 0x1p-11 + 0x1p-40).bits() == 0x3c01 && half(1.0 + 0x1p-11).bits() == 0x3c00);
    static_assert(bfloat16_t(1.0 + 0x1p-8 + 0x1p-40).bits() == 0x3f81 &&
                  bfloat16_t(1.0 + 0x1p-8).bits() == 0x3f80);
    static_assert(half(1e300).bits() == 0x7c00 && bfloat16_t(-1e300).bits() == 0xff80);
    static_assert(half(3).bits() == 0x4200 && half(std::int64_t{-2}).bits() == 0xc000 &&
                  bfloat16_t(1u).bits() == 0x3f80);
    static_assert(sim::narrow<half>(1.0f + 0x1p-11f).bits() == 0x3c00 &&
                  sim::narrow<half>(1.0f + 0x1p-11f + 0x1p-20f).bits() == 0x3c01);
    static_assert(sim::narrow<std::int16_t>(70000) == 4464 && sim::narrow<std::uint8_t>(-1) == 255);
    // saturate: integers clamp instead of wrapping; floats clamp at the largest finite value and
    // into an integer type round to nearest even.
    static_assert(sim::saturate<std::int8_t>(std::int16_t{300}) == 127 &&
                  sim::saturate<std::int8_t>(std::int16_t{-300}) == -128);
    CHECK(sim::saturate<std::int8_t>(2.5f) == 2.0f && sim::saturate<std::int8_t>(3.5f) == 4.0f &&
          sim::saturate<std::int8_t>(1e9f) == 127.0f);
    CHECK(sim::saturate<std::int8_t>(std::numeric_limits<float>::quiet_NaN()) == 0.0f);
    CHECK(sim::saturate<half>(70000.0f) == 65504.0f && sim::saturate<half>(-1e30f) == -65504.0f &&
          sim::saturate<half>(3.0f) == 3.0f);

    const float qnan = std::numeric_limits<float>::quiet_NaN();
    CHECK(std::isnan(static_cast<float>(half(qnan))) && std::isnan(static_cast<float>(bfloat16_t(-qnan))));
    CHECK(std::isnan(static_cast<float>(half(std::numeric_limits<double>::quiet_NaN()))));
    CHECK(static_cast<float>(half(1.5f) + half(2.25f)) == 3.75f);
    CHECK(static_cast<float>(half(1.0f) - half(3.0f)) == -2.0f);
    CHECK(static_cast<float>(half(3.0f) * half(0.5f)) == 1.5f);
    CHECK(static_cast<float>(bfloat16_t(1.0f) / bfloat16_t(4.0f)) == 0.25f);
    CHECK((half(1.0f) + half(0x1p-11f)).bits() == 0x3c00); // sum rounded back to half
    CHECK((-half(0.0f)).bits() == 0x8000 && (-bfloat16_t(1.0f)).bits() == 0xbf80);
    CHECK(std::isnan(static_cast<float>(-half(qnan))));
    half acc = 1;
    acc += half(2.0f);
    acc *= half(2.0f);
    CHECK(acc == half(6.0f) && acc == 6 && acc != half(5.0f));
    CHECK(half(1.0f) < half(2.0f) && half(2.0f) >= half(2.0f) && bfloat16_t(-1.0f) < bfloat16_t(0.0f));
    CHECK(half(0.0f) == half(-0.0f) && !(half(qnan) == half(qnan)) && half(qnan) != half(qnan));
    CHECK(!(half(qnan) < half(1.0f)) && !(half(qnan) > half(1.0f)));
    CHECK(static_cast<int>(half(-7.0f)) == -7 && static_cast<double>(bfloat16_t(0.5f)) == 0.5);
}

static void math_checks() {
    const float nan_a = std::bit_cast<float>(0x7fc00001u);
    const float nan_b = std::bit_cast<float>(0xffc00002u);
    CHECK(same_bits(sim::maximum<float>(nan_a, 1.0f), nan_a) &&
          same_bits(sim::maximum<float>(1.0f, nan_b), nan_b));
    CHECK(same_bits(sim::maximum<float>(nan_a, nan_b), nan_a) &&
          same_bits(sim::maximum<float>(nan_b, nan_a), nan_b));
    CHECK(same_bits(sim::minimum<float>(nan_a, -1.0f), nan_a) &&
          same_bits(sim::minimum<float>(-1.0f, nan_b), nan_b));
    CHECK(same_bits(sim::minimum<float>(nan_b, nan_a), nan_b));
    CHECK(same_bits(sim::maximum<float>(0.0f, -0.0f), 0.0f) &&
          same_bits(sim::maximum<float>(-0.0f, 0.0f), 0.0f));
    CHECK(same_bits(sim::minimum<float>(0.0f, -0.0f), -0.0f) &&
          same_bits(sim::minimum<float>(-0.0f, 0.0f), -0.0f));
    CHECK(same_bits(sim::maximum<float>(-0.0f, -0.0f), -0.0f) &&
          same_bits(sim::minimum<float>(0.0f, 0.0f), 0.0f));
    CHECK(sim::maximum<float>(-3.0f, 2.0f) == 2.0f && sim::minimum<float>(-3.0f, 2.0f) == -3.0f);
    CHECK(sim::maximum<double>(-0.0, 0.0) == 0.0 && !std::signbit(sim::maximum<double>(-0.0, 0.0)));
    CHECK(sim::maximum<half>(half(-0.0f), half(0.0f)).bits() == 0x0000 &&
          sim::minimum<half>(half(0.0f), half(-0.0f)).bits() == 0x8000);
    CHECK(sim::maximum<half>(half::from_bits(0x7e01), half(1.0f)).bits() == 0x7e01);
    CHECK(sim::maximum<std::int32_t>(-5, 3) == 3 && sim::minimum<std::int32_t>(-5, 3) == -5);
    CHECK(sim::maximum<std::uint8_t>(200, 100) == 200 &&
          sim::minimum<std::int64_t>(INT64_MIN, 0) == INT64_MIN);

    static_assert(sim::power<std::int8_t>(3, 5) == -13); // 243 wraps modulo 2^8
    static_assert(sim::power<std::int32_t>(2, 31) == INT32_MIN && sim::power<std::int32_t>(2, 32) == 0);
    static_assert(sim::power<std::uint8_t>(2, 8) == 0 && sim::power<std::uint8_t>(3, 4) == 81);
    static_assert(sim::power<std::uint16_t>(255, 2) == 65025 && sim::power<std::uint16_t>(300, 2) == 24464);
    static_assert(sim::power<std::int16_t>(-3, 3) == -27 && sim::power<std::int16_t>(-2, 15) == INT16_MIN);
    static_assert(sim::power<std::uint64_t>(3, 41) == 18026252303461234787ull);
    static_assert(sim::power<std::int64_t>(3, 41) == static_cast<std::int64_t>(18026252303461234787ull));
    static_assert(sim::power<std::int32_t>(0, 0) == 1 && sim::power<std::int32_t>(7, 0) == 1 &&
                  sim::power<std::int32_t>(0, 5) == 0);
    static_assert(sim::power<std::int32_t>(1, -5) == 1 && sim::power<std::int32_t>(-1, -3) == -1 &&
                  sim::power<std::int32_t>(-1, -4) == 1);
    static_assert(sim::power<std::int32_t>(2, -1) == 0 && sim::power<std::int32_t>(0, -1) == 0 &&
                  sim::power<std::int8_t>(-2, -2) == 0);
    static_assert(sim::power<std::int64_t>(-1, INT64_MIN) == 1 &&
                  sim::power<std::int32_t>(-1, INT32_MIN + 1) == -1);
    static_assert(std::is_same_v<decltype(sim::power<float>(2.0f, 0.5f)), float>);
    CHECK(sim::power<float>(2.0f, 0.5f) == std::pow(2.0f, 0.5f) &&
          sim::power<float>(2.0f, 10.0f) == 1024.0f);
    CHECK(sim::power<half>(half(2.0f), half(3.0f)) == half(8.0f));

    static_assert(sim::absolute<std::int32_t>(-5) == 5 &&
                  sim::absolute<std::int32_t>(INT32_MIN) == INT32_MIN);
    static_assert(sim::absolute<std::int8_t>(-128) == -128 && sim::absolute<std::uint8_t>(200) == 200);
    CHECK(same_bits(sim::absolute<float>(-0.0f), 0.0f) && sim::absolute<float>(-2.5f) == 2.5f);
    CHECK(sim::absolute<half>(half(-2.0f)).bits() == 0x4000);
    CHECK(sim::exponential<float>(0.0f) == 1.0f && sim::exponential<float>(1.0f) == std::exp(1.0f));
    CHECK(sim::logarithm<float>(1.0f) == 0.0f && std::isnan(sim::logarithm<float>(-1.0f)));
    CHECK(sim::square_root<float>(9.0f) == 3.0f && sim::square_root<half>(half(4.0f)) == half(2.0f));
    CHECK(sim::reciprocal_square_root<float>(4.0f) == 0.5f &&
          sim::reciprocal_square_root<float>(3.0f) == 1.0f / std::sqrt(3.0f));
    CHECK(sim::reciprocal<float>(4.0f) == 0.25f &&
          sim::reciprocal<bfloat16_t>(bfloat16_t(2.0f)) == bfloat16_t(0.5f));
    static_assert(std::is_same_v<decltype(sim::exponential<float>(0.0f)), float>);
    static_assert(sim::select<int>(true, 1, 2) == 1 && sim::select<float>(false, 1.0f, 2.0f) == 2.0f);
}

static void vreg_checks() {
    vreg<float, 8> v;
    vreg<half, 4> h{};
    static_assert(vreg<float, 8>::lanes == 8 && std::is_same_v<vreg<half, 4>::DType, half> &&
                  mask<16>::lanes == 16);
    bool zero = true;
    for (int i = 0; i < 8; ++i)
        zero = zero && v[i] == 0.0f;
    CHECK(zero && h.lane[3].bits() == 0);
    v[2] = 5.0f;
    CHECK(v.lane[2] == 5.0f && std::as_const(v)[2] == 5.0f);
    mask<8> none;
    const auto all = mask_all<8>();
    const auto first3 = mask_first<8>(3);
    const bool bits[8] = {true, false, true, false, false, false, false, true};
    const auto from = mask_from_bits<8>(bits);
    int n_none = 0, n_all = 0, n_first = 0;
    for (int i = 0; i < 8; ++i) {
        n_none += none[i];
        n_all += all.lane[i];
        n_first += first3[i] && i < 3;
        CHECK(from[i] == bits[i]);
    }
    CHECK(n_none == 0 && n_all == 8 && n_first == 3 && !first3[3]);
    CHECK(!mask_first<4>(-1)[0] && mask_first<4>(9)[3]);
}

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "convert" && argc == 9)
        return convert(argv);
    if (mode == "checks") {
        tile_checks();
        event_checks();
        element_type_checks();
        math_checks();
        vreg_checks();
        std::printf("%d checks, %d failures\n", checks, failures);
        return failures == 0 ? 0 : 1;
    }
    Tile<TileType::Vec, float, 16, 16> t;
    if (mode == "tassign_past_end")
        sim::bind(t, sim::unified_buffer_bytes - 512); // the tile needs 1024 bytes
    else if (mode == "tassign_wrapping")
        sim::bind(t, std::numeric_limits<std::uintptr_t>::max() - 8);
    else if (mode == "tassign_misaligned")
        sim::bind(t, 2);
    else if (mode == "bad_valid_shape")
        Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC> d(17, 4);
    else if (mode == "fail")
        sim::check(false, "TEXAMPLE", "some rule");
    else
        return 2;
    std::printf("survived\n");
    return 0;
}
"""

NOT_AN_EVENT = r"""
#include <pto/pto-inst.hpp>
int main() {
    int not_an_event = 0;
    pto::WaitAllEvents(not_an_event);
}
"""


def _compilers() -> list:
    return [pytest.param(c, id=c) for c in ("g++", "clang++")]


def _write_standins(root: Path) -> Path:
    gen = root / "gen"
    (gen / "pto/common").mkdir(parents=True, exist_ok=True)
    (gen / "pto/vector").mkdir(parents=True, exist_ok=True)
    (gen / "pto/common/pto_instr.hpp").write_text(STANDIN_INSTR)
    (gen / "pto/vector/pto_vec.hpp").write_text(STANDIN_VEC)
    return gen


def _compile(cxx: str, source: str, workdir: Path, name: str) -> subprocess.CompletedProcess:
    gen = _write_standins(workdir)
    src = workdir / f"{name}.cpp"
    src.write_text(source)
    cmd = [*cxx_argv(cxx), *FLAGS, f"-I{INCLUDE}", f"-I{gen}", str(src), "-o", str(workdir / name)]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.fixture(scope="module", params=_compilers())
def program(request, tmp_path_factory) -> Path:
    cxx = request.param
    if shutil.which(cxx) is None:
        pytest.skip(f"{cxx} is not installed")
    workdir = tmp_path_factory.mktemp(cxx.replace("+", "x"))
    result = _compile(cxx, PROGRAM.replace("@CHECK@", CHECK_MACRO), workdir, "core")
    assert result.returncode == 0, f"{cxx} failed:\n{result.stderr}"
    return workdir / "core"


def _run(exe: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)


def test_core_checks(program):
    result = _run(program, "checks")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FAIL" not in result.stdout
    assert ", 0 failures" in result.stdout


@pytest.mark.parametrize(
    ("mode", "op"),
    [
        ("tassign_past_end", "TASSIGN"),
        ("tassign_wrapping", "TASSIGN"),
        ("tassign_misaligned", "TASSIGN"),
        ("bad_valid_shape", "Tile"),
    ],
)
def test_runtime_errors_abort(program, mode, op):
    result = _run(program, mode)
    assert result.returncode != 0
    assert "survived" not in result.stdout
    assert result.stderr.startswith(f"PTO runtime error: {op}: "), result.stderr


def test_fail_message_is_exact(program):
    result = _run(program, "fail")
    assert result.returncode != 0
    # the message, then the call site (tests/runtime/test_call_site.py)
    first, site = result.stderr.splitlines()
    assert first == "PTO runtime error: TEXAMPLE: some rule"
    assert site.startswith("  at "), result.stderr


def _float32_cases(mids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Midpoints between neighbours of a narrow type, one float32 ulp either side, random bits, specials."""
    mids = mids.astype(np.float32)
    up = np.nextafter(mids, np.float32(np.inf))
    down = np.nextafter(mids, np.float32(-np.inf))
    randoms = rng.integers(0, 2**32, size=200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    specials_bits = np.array(
        [
            0,
            0x80000000,
            0x7F800000,
            0xFF800000,
            0x7FC00000,
            0xFFC00000,
            0x7F800001,
            0x7F802000,
            0xFFBFFFFF,
            0x00000001,
            0x807FFFFF,
            0x7F7FFFFF,
            0xFF7FFFFF,
            0x33000000,
            0x33000001,
            0x387FC000,
            0x477FF000,
            0x477FEFFF,
            0x477FE000,
            0x7F7F8000,
            0x7F7F7FFF,
        ],
        dtype=np.uint32,
    )
    cases = np.concatenate([mids, -mids, up, -up, down, -down, randoms, specials_bits.view(np.float32)])
    return cases.astype(np.float32)


def _midpoints(finite_positive: np.ndarray) -> np.ndarray:
    values = np.sort(finite_positive.astype(np.float64))
    return (values[:-1] + values[1:]) / 2  # exact in float64


def _assert_same_float(actual: np.ndarray, expected: np.ndarray, what: str):
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(actual), nan), f"{what}: NaN mismatch"
    bad = np.nonzero(actual[~nan].view(np.uint32) != expected[~nan].view(np.uint32))[0]
    assert bad.size == 0, f"{what}: {bad.size} mismatches, first at value {expected[~nan][bad[0]]!r}"


def _assert_same_narrow(actual_bits: np.ndarray, inputs: np.ndarray, dtype, what: str):
    with np.errstate(all="ignore"):  # overflow to inf is one of the cases under test
        expected = inputs.astype(dtype)
    actual = actual_bits.view(dtype)
    nan = np.isnan(expected.astype(np.float32))
    assert np.array_equal(np.isnan(actual.astype(np.float32)), nan), f"{what}: NaN mismatch"
    bad = np.nonzero(actual_bits[~nan] != expected.view(np.uint16)[~nan])[0]
    if bad.size:
        first = inputs[~nan][bad[0]]
        got, want = actual_bits[~nan][bad[0]], expected.view(np.uint16)[~nan][bad[0]]
        pytest.fail(f"{what}: {bad.size} mismatches, first {first!r}: got {got:#06x}, want {want:#06x}")


def test_half_and_bfloat16_conversions(program, tmp_path):
    rng = np.random.default_rng(20240611)
    all_bits = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    half_values = all_bits.view(np.float16)
    bf16_values = all_bits.view(ml_dtypes.bfloat16)
    half_pos = half_values[np.isfinite(half_values) & (half_values >= 0)]
    bf16_pos = bf16_values[
        np.isfinite(bf16_values.astype(np.float32)) & (bf16_values.astype(np.float32) >= 0)
    ]

    half_mids = _midpoints(half_pos)
    f32 = np.concatenate([_float32_cases(half_mids, rng), _float32_cases(_midpoints(bf16_pos), rng)])
    # Doubles just off a binary16 tie by less than a float32 ulp catch rounding through float.
    nudge = half_mids * 2.0**-40
    f64 = np.concatenate(
        [
            half_mids,
            half_mids + nudge,
            half_mids - nudge,
            -(half_mids + nudge),
            rng.uniform(-70000.0, 70000.0, 50_000),
            rng.standard_normal(50_000) * 1e-5,
            [np.inf, -np.inf, np.nan, 1e300, -1e-300, 0.0, -0.0],
        ]
    )

    paths = {
        name: tmp_path / f"{name}.bin"
        for name in (
            "f32",
            "f64",
            "half_from_bits",
            "bf16_from_bits",
            "f32_to_half",
            "f32_to_bf16",
            "f64_to_half",
        )
    }
    f32.tofile(paths["f32"])
    f64.astype(np.float64).tofile(paths["f64"])
    result = _run(program, "convert", *(str(p) for p in paths.values()))
    assert result.returncode == 0, result.stderr

    _assert_same_float(
        np.fromfile(paths["half_from_bits"], np.float32), half_values.astype(np.float32), "half->float"
    )
    _assert_same_float(
        np.fromfile(paths["bf16_from_bits"], np.float32), bf16_values.astype(np.float32), "bfloat16->float"
    )
    _assert_same_narrow(np.fromfile(paths["f32_to_half"], np.uint16), f32, np.float16, "float->half")
    _assert_same_narrow(
        np.fromfile(paths["f32_to_bf16"], np.uint16), f32, ml_dtypes.bfloat16, "float->bfloat16"
    )
    _assert_same_narrow(np.fromfile(paths["f64_to_half"], np.uint16), f64, np.float16, "double->half")


@pytest.mark.parametrize("cxx", _compilers())
def test_wait_all_events_rejects_non_events(cxx, tmp_path):
    if shutil.which(cxx) is None:
        pytest.skip(f"{cxx} is not installed")
    result = _compile(cxx, NOT_AN_EVENT, tmp_path, "not_an_event")
    assert result.returncode != 0
    assert "WaitAllEvents: every argument must be an event" in result.stderr
