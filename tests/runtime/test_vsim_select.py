"""Compare, select and broadcast builtins of the register model (pto/vsim/select.hpp), in the call
shapes upstream's A5 backend uses, checked lane by lane: compares clear inactive lanes and treat NaN as
unordered, vsel writes every lane from the source the mask picks, vselr and vselrv2 gather by index,
vdup keeps or zeroes inactive lanes by mode, vbr fills the register."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_program, require

PROGRAM = r"""
#include <pto/vsim/builtins.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

static int failures = 0;
#define CHECK(c) do { if (!(c)) { std::printf("FAIL line %d: %s\n", __LINE__, #c); ++failures; } } while (0)

// A5 code passes `RegTensor<T>`, a wrapper convertible to its register image.
template <typename T, typename R>
struct RegTensor {
    using RegType = R;
    R reg;
    operator R&() { return reg; }
};

int main() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    vector_f32 a, b;
    for (int i = 0; i < 64; ++i) {
        a.write(i, static_cast<float>(i % 4));  // 0 1 2 3 0 1 2 3 ...
        b.write(i, 1.0f);
    }
    a.write(5, nan);
    uint32_t n = 48;
    const vector_bool first48 = plt_b32(n, POST_UPDATE);
    vector_bool p;
    p.set_lane(60, 4, true);  // an inactive lane's old bit is cleared
    vcmp_lt(p, a, b, first48);
    CHECK(p.lane(0, 4) && !p.lane(1, 4) && !p.lane(2, 4) && p.lane(4, 4) && !p.lane(60, 4));
    CHECK(!p.lane(5, 4));  // NaN < 1 is false
    vcmp_ne(p, a, a, pset_b32(PAT_ALL));
    CHECK(p.lane(5, 4) && !p.lane(4, 4));  // only NaN differs from itself
    vcmp_eq(p, a, b, pset_b32(PAT_ALL));
    CHECK(p.lane(1, 4) && !p.lane(5, 4) && !p.lane(0, 4));
    vcmp_ge(p, a, b, pset_b32(PAT_ALL));
    CHECK(p.lane(1, 4) && p.lane(3, 4) && !p.lane(0, 4) && !p.lane(5, 4));
    vcmp_le(p, a, b, pset_b32(PAT_VL8));
    CHECK(p.lane(0, 4) && p.lane(1, 4) && !p.lane(2, 4) && !p.lane(8, 4));
    vcmps_gt(p, a, 1.5f, pset_b32(PAT_ALL));
    CHECK(!p.lane(1, 4) && p.lane(2, 4) && p.lane(3, 4) && !p.lane(5, 4));
    // The bits of a 4-byte lane go together.
    CHECK(p.bit(8) && p.bit(11) && !p.bit(4));

    // Integer compares at 16-bit lanes, against a scalar, signed and unsigned.
    vector_s16 s;
    vector_u16 u;
    for (int i = 0; i < 128; ++i) {
        s.write(i, static_cast<int16_t>(i - 64));
        u.write(i, static_cast<uint16_t>(i * 500));
    }
    vcmps_lt(p, s, 0, pset_b16(PAT_ALL));
    CHECK(p.lane(63, 2) && !p.lane(64, 2) && p.lane(0, 2));
    vcmps_ge(p, u, 0x8000, pset_b16(PAT_ALL));  // 66 * 500 = 33000 is the first at or past 32768
    CHECK(!p.lane(65, 2) && p.lane(66, 2) && p.lane(127, 2) == (127 * 500 % 65536 >= 32768));
    vcmps_eq(p, s, -64, pset_b16(PAT_H));  // lane 0 is -64 but inactive
    CHECK(!p.lane(0, 2));

    // Half-precision lanes compare as their values.
    vector_f16 h;
    vbr(h, 0.5f);
    vcmps_eq(p, h, 0.5f, pset_b16(PAT_ALL));
    CHECK(p.lane(0, 2) && p.lane(127, 2));

    // vsel: every lane written, from a where the mask is set, from b elsewhere.
    vector_f32 d;
    vcmps_lt(p, a, 2.0f, pset_b32(PAT_VL16));
    vsel(d, a, b, p);
    CHECK(d.read(0) == 0.0f && d.read(1) == 1.0f && d.read(2) == 1.0f && d.read(3) == 1.0f);
    CHECK(d.read(5) == 1.0f && d.read(16) == 1.0f && d.read(63) == 1.0f);
    vsel(a, b, a, pset_b32(PAT_VL4));  // the result may be a source
    CHECK(a.read(0) == 1.0f && a.read(3) == 1.0f && a.read(4) == 0.0f && std::isnan(a.read(5)));
    RegTensor<float, vector_f32> t;
    vsel(t, a, b, pset_b32(PAT_ALLF));
    CHECK(t.reg.read(4) == 1.0f);

    // vselr: a byte gather; indices wrap at the lane count.
    vector_u8 src, idx, out;
    for (int i = 0; i < 256; ++i) {
        src.write(i, static_cast<uint8_t>(255 - i));
        idx.write(i, static_cast<uint8_t>((i * 4) & 0xFF));
    }
    vselr(out, src, idx);
    CHECK(out.read(0) == 255 && out.read(1) == 251 && out.read(64) == 255);
    vector_u32 wide, wide_idx, gathered;
    for (int i = 0; i < 64; ++i) {
        wide.write(i, static_cast<uint32_t>(i * 10));
        wide_idx.write(i, static_cast<uint32_t>(63 - i + (i == 0 ? 64 : 0)));
    }
    vselr(gathered, wide, wide_idx);
    CHECK(gathered.read(0) == 630 && gathered.read(63) == 0 && gathered.read(10) == 530);
    // vselrv2: vselr's result under its other encoding, wrapping alike.
    vector_u32 gathered2;
    vselrv2(gathered2, wide, wide_idx);
    CHECK(gathered2.read(0) == 630 && gathered2.read(63) == 0 && gathered2.read(10) == 530);
    vector_u8 out2;
    vselrv2(out2, src, idx);
    CHECK(out2.read(0) == 255 && out2.read(1) == 251 && out2.read(64) == 255);

    // vdup: active lanes take the scalar; inactive ones zero or keep their value.
    vector_s32 z;
    vbr(z, 7);
    CHECK(z.read(0) == 7 && z.read(63) == 7);
    vdup(z, -3, pset_b32(PAT_VL8), MODE_MERGING);
    CHECK(z.read(7) == -3 && z.read(8) == 7);
    vdup(z, 9, pset_b32(PAT_VL8), MODE_ZEROING);
    CHECK(z.read(7) == 9 && z.read(8) == 0);
    vector_u8 bytes;
    vdup(bytes, (uint8_t)200, pset_b8(PAT_ALL), MODE_ZEROING);
    CHECK(bytes.read(255) == 200);
    // The register form repeats lane 0 (POS_LOWEST) or the last lane.
    vector_f32 w, r;
    for (int i = 0; i < 64; ++i)
        w.write(i, static_cast<float>(i) + 0.25f);
    vdup(r, w, pset_b32(PAT_ALL), POS_LOWEST, MODE_ZEROING);
    CHECK(r.read(0) == 0.25f && r.read(63) == 0.25f);
    vdup(r, w, pset_b32(PAT_H), POS_HIGHEST, MODE_MERGING);
    CHECK(r.read(31) == 0.25f && r.read(32) == 63.25f);
    vdup(t, nan, pset_b32(PAT_VL1), MODE_ZEROING);
    CHECK(std::isnan(t.reg.read(0)) && t.reg.read(1) == 0.0f);

    std::printf("%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
"""


@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_program(require(request.param), PROGRAM, tmp_path_factory.mktemp("vsim_sel"), "sel")


def test_compares_selects_and_broadcasts_lane_by_lane(program: Path) -> None:
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 failures" in run.stdout
