"""The vector builtin simulation's register model (pto/vsim): register images reinterpreted between
element types, predicates at every lane width, the lane modes, wrappers such as A5's RegTensor, and
`ptogen cflags --builtins` putting the builtins in front of another include tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ptogen.buildsys import builtin_cflags
from ptogen.paths import RUNTIME_INCLUDE, Layout

from ..compilers import COMPILERS, cxx_argv, require
from ..helpers import ROOT

LAYOUT = Layout.make(root=ROOT)

MODEL = r"""
#include <pto/vsim/builtins.hpp>
#include <cstdio>
#include <cstring>

// A wrapper with a RegType and a conversion to it, as A5's RegTensor<T> is.
template <typename R>
struct Wrapper {
    using RegType = R;
    RegType reg;
    operator RegType&() { return reg; }
};

// A 16-bit host float object that is not an arithmetic type (the tile runtime's half is one).
struct HostHalf {
    unsigned short bits;
};

static int failures = 0;
static void expect(bool ok, const char* what) {
    if (!ok) {
        std::printf("FAIL %s\n", what);
        ++failures;
    }
}

int main() {
    // A b32 predicate for the first 3 lanes reads, at b16 width, as the first 6 lanes.
    vector_bool p32;
    for (int i = 0; i < 64; ++i)
        p32.set_lane(i, 4, i < 3);
    int on16 = 0;
    for (int i = 0; i < 128; ++i)
        on16 += p32.lane(i, 2) ? 1 : 0;
    expect(on16 == 6 && p32.lane(5, 2) && !p32.lane(6, 2), "b32 predicate seen at b16 width");

    // Zeroing clears inactive lanes, merging keeps them; the destination may be a source.
    Wrapper<vector_s32> a;
    for (int i = 0; i < 64; ++i)
        a.reg.write(i, 100 + i);
    vector_s32 z = a.reg, m = a.reg;
    vadds(z, a, 1, p32, MODE_ZEROING);
    vadds(m, m, 1, p32, MODE_MERGING);
    expect(z.read(0) == 101 && z.read(2) == 103 && z.read(3) == 0, "zeroing");
    expect(m.read(0) == 101 && m.read(3) == 103 && m.read(63) == 163, "merging, in place");

    // Registers are images: a float register read as u32 shows the bits.
    vector_f32 f;
    f.write(0, -0.0f);
    f.write(1, 1.0f);
    const auto& bits = reinterpret_cast<const vector_u32&>(f);
    expect(bits.read(0) == 0x80000000u && bits.read(1) == 0x3f800000u, "reinterpreted register");

    // A half scalar given as a host object is taken by its bits; the sum rounds once to half.
    vector_f16 h, hr;
    vector_bool all;
    for (int i = 0; i < 128; ++i) {
        all.set_lane(i, 2, true);
        h.set(i, 0x3c00);  // 1.0
    }
    vadds(hr, h, HostHalf{0x1400}, all);  // + 2^-10: 1 + 2^-10 is exactly representable
    expect(hr.get(0) == 0x3c01, "half scalar by bits");
    vadds(hr, h, HostHalf{0x0c00}, all);  // + 2^-12: a quarter ulp, rounds back to 1.0
    expect(hr.get(0) == 0x3c00, "half rounds to nearest even");

    // vaddcs with the carry-in as the carry-out and a source as the result (as A5 code calls it).
    vector_u32 x, y;
    vector_bool carry;
    for (int i = 0; i < 64; ++i) {
        x.write(i, 0xffffffffu);
        y.write(i, i == 0 ? 1u : 0u);
        carry.set_lane(i, 4, i == 1);
    }
    vaddcs(carry, x, x, y, carry, all);
    expect(x.read(0) == 0 && carry.lane(0, 4), "carry out of lane 0");
    expect(x.read(1) == 0 && carry.lane(1, 4), "carry in and out of lane 1");
    expect(x.read(2) == 0xffffffffu && !carry.lane(2, 4), "no carry in lane 2");

    // IEEE maximum: NaN wins, +0 beats -0.
    vector_f32 u, v, w;
    u.write(0, -0.0f);
    v.write(0, 0.0f);
    u.write(1, __builtin_nanf(""));
    v.write(1, 1.0f);
    vector_bool b32;
    for (int i = 0; i < 64; ++i)
        b32.set_lane(i, 4, true);
    vmax(w, u, v, b32, MODE_ZEROING);
    expect(!std::signbit(w.read(0)) && w.read(1) != w.read(1), "vmax signed zero and NaN");

    // A shift count of the other signedness, as A5 code passes (int8_t counts for uint8_t lanes):
    // -1 is outside [0, 8) as 255 is, and a signed lane shifts arithmetically by an unsigned count.
    vector_u8 lanes8, shifted8;
    vector_s8 counts8;
    for (int i = 0; i < 256; ++i) {
        lanes8.write(i, 0x81);
        counts8.write(i, static_cast<signed char>(i % 4 == 3 ? -1 : i % 4));
    }
    vshl(shifted8, lanes8, counts8, all, MODE_ZEROING);
    expect(shifted8.read(0) == 0x81 && shifted8.read(1) == 0x02 && shifted8.read(2) == 0x04 &&
               shifted8.read(3) == 0,
           "vshl of uint8_t lanes by int8_t counts");
    vector_s32 lanes32, shifted32;
    vector_u32 counts32;
    lanes32.write(0, -8);
    counts32.write(0, 1u);
    lanes32.write(1, -8);
    counts32.write(1, 0xffffffffu);
    vshr(shifted32, lanes32, counts32, b32, MODE_ZEROING);
    expect(shifted32.read(0) == -4 && shifted32.read(1) == -1, "vshr of int32_t lanes by uint32_t counts");

    // vor of float registers ORs the stored patterns: -0 | 1.0 is -1.0, and a NaN keeps its payload.
    vector_f16 ha, hb, hor;
    ha.set(0, 0x8000);
    hb.set(0, 0x3c00);
    ha.set(1, 0x7e01);
    hb.set(1, 0x0002);
    vor(hor, ha, hb, all, MODE_ZEROING);
    expect(hor.get(0) == 0xbc00 && hor.get(1) == 0x7e03, "vor of half lanes by their bits");
    vector_f8e4m3 e4a, e4b, e4or;  // 8-bit floats, as A5's TQUANT joins its converted parts
    e4a.set(0, 0x38);
    e4b.set(0, 0x81);
    vor(e4or, e4a, e4b, all, MODE_ZEROING);
    expect(e4or.get(0) == 0xb9 && e4or.get(1) == 0, "vor of float8_e4m3 lanes by their bits");

    std::printf("failures %d\n", failures);
    return failures == 0 ? 0 : 1;
}
"""


@pytest.mark.parametrize("cxx", COMPILERS)
def test_register_model_and_modes(cxx: str, tmp_path: Path) -> None:
    compiler = require(cxx)
    src = tmp_path / "model.cpp"
    src.write_text(MODEL.replace("#include <cstring>", "#include <cstring>\n#include <cmath>"))
    exe = tmp_path / "model"
    build = subprocess.run(
        [*cxx_argv(compiler), "-std=c++20", "-O1", "-Wall", "-Wextra", "-Werror",
         f"-I{LAYOUT.generated_include}", f"-I{RUNTIME_INCLUDE}", str(src), "-o", str(exe)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60)
    assert run.returncode == 0 and "failures 0" in run.stdout, run.stdout


def test_builtin_flags_search_the_other_tree_first(tmp_path: Path) -> None:
    """A file both trees have comes from the other tree; the builtins need no include."""
    other = tmp_path / "include"
    (other / "pto/common").mkdir(parents=True)
    (other / "pto/common/cpu_stub.hpp").write_text("#pragma once\n#define OTHER_PRELUDE 1\n")
    (other / "pto/common/constants.hpp").write_text("#pragma once\n#define OTHER_CONSTANTS 1\n")
    src = tmp_path / "client.cpp"
    src.write_text(
        "#include <pto/common/constants.hpp>\n"
        "static_assert(OTHER_PRELUDE == 1 && OTHER_CONSTANTS == 1);\n"
        "int main() {\n"
        "    vector_f32 d, s;\n"
        "    vector_bool p;\n"
        "    vmuls(d, s, 2.0f, p, MODE_ZEROING);\n"
        "    return static_cast<int>(d.read(0));\n"
        "}\n"
    )
    compiler = require(COMPILERS[0])
    build = subprocess.run(
        [*cxx_argv(compiler), *builtin_cflags(LAYOUT), f"-I{other}", "-fsyntax-only", str(src)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-3000:]


DEVICE_SCALAR = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>

static_assert(CeilDivision(10u, 4u) == 3 && CeilDivision(8, 4) == 2 && CeilDivision(7u, 0u) == 0);
static_assert(min(3u, 5u) == 3 && max(-2, 7) == 7);

int main(int argc, char** argv) {
    set_intra_block(PIPE_MTE2, 16);  // one signal to AIV1's semaphore 16, taken by one wait
    wait_intra_block(PIPE_V, 16);
    if (argc > 1 && std::strcmp(argv[1], "unsignalled") == 0)
        wait_intra_block(PIPE_V, 16);
    if (argc > 1 && std::strcmp(argv[1], "range") == 0)
        set_intra_block(PIPE_MTE2, 32);
    std::puts("ok");
    return 0;
}
"""


def test_client_builds_get_the_device_compilers_scalar_builtins(tmp_path: Path) -> None:
    """`cflags --builtins` brings the integer helpers and the intra-block semaphores A5 code calls
    without an include; a wait nothing signalled, or an id out of 0..31, stops naming the builtin."""
    other = tmp_path / "include"
    (other / "pto/common").mkdir(parents=True)
    (other / "pto/common/cpu_stub.hpp").write_text(
        "#pragma once\nusing pipe_t = int;\nconst pipe_t PIPE_V = 1;\nconst pipe_t PIPE_MTE2 = 3;\n"
    )
    src = tmp_path / "client.cpp"
    src.write_text(DEVICE_SCALAR)
    exe = tmp_path / "client"
    compiler = require(COMPILERS[0])
    build = subprocess.run(
        [*cxx_argv(compiler), *builtin_cflags(LAYOUT), f"-I{other}", str(src), "-o", str(exe)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-3000:]
    assert subprocess.run([str(exe)], capture_output=True, text=True, check=False).stdout == "ok\n"
    never = subprocess.run([str(exe), "unsignalled"], capture_output=True, text=True, check=False)
    assert never.returncode != 0 and "wait_intra_block: semaphore 16 was never signalled" in never.stderr
    wide = subprocess.run([str(exe), "range"], capture_output=True, text=True, check=False)
    assert wide.returncode != 0 and "set_intra_block: semaphore id 32 is out of range" in wide.stderr
