"""TSYNC (the sync op kind, ptogen/opkinds/sync.py) on the CPU simulator: the event form waits on
exactly the events it is given (an intrinsic's own trailing events count the same way), and the
barrier form counts itself on the pipeline of its op class (`OpPipeEntry`, targets.yaml), under the
default profile and under an explicit one. Which calls each profile rejects is the generated
compile-fail tests' job (generated/tests/tsync/verify.cpp)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_program, require

PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <type_traits>

using namespace pto;

int main() {
    using TileT = Tile<TileType::Vec, float, 8, 8>;
    TileT a, b, c;
    const auto w0 = sim::wait_count();
    RecordEvent e0 = TADDS(a, b, 1.0f);
    RecordEvent e1 = TADD(c, a, b, e0);  // waits on e0 before it runs
    const auto w1 = sim::wait_count();
    TSYNC(e0, e1);
    const auto w2 = sim::wait_count();
    TSYNC();
    const auto w3 = sim::wait_count();
    const auto mte2 = sim::barrier_count(PIPE_MTE2), vec = sim::barrier_count(PIPE_V);
    TSYNC<Op::TLOAD>();
    TSYNC<Op::TADD>();
    TSYNC<Op::TADDS>();
    profiled::TSYNC<profile_a5, Op::TSTORE_VEC>();  // A5's rule admits MTE3
    static_assert(std::is_void_v<decltype(TSYNC(e0))>);
    static_assert(OpPipeEntry<Op::TLOAD>::pipe == PIPE_MTE2 && OpPipeEntry<Op::OP_COUNT>::pipe == PIPE_ALL);
    std::printf("%d %d %d %d %d %d\n", int(w1 - w0), int(w2 - w1), int(w3 - w2),
                int(sim::barrier_count(PIPE_MTE2) - mte2), int(sim::barrier_count(PIPE_V) - vec),
                int(sim::barrier_count(PIPE_MTE3)));
    return 0;
}
"""


@pytest.mark.parametrize("compiler", COMPILERS)
def test_tsync_waits_on_its_events_and_counts_barriers_per_pipeline(compiler: str, tmp_path: Path) -> None:
    exe = build_program(require(compiler), PROGRAM, tmp_path, "p")
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # TADD waited on one event; TSYNC on two, then on none; TLOAD's barrier is on MTE2, TADD's and
    # TADDS's on the vector pipeline, TSTORE_VEC's on MTE3.
    assert out.stdout.split() == ["1", "2", "0", "1", "2", "1"]


TEMPORARY_EVENT = r"""
#include <pto/pto-inst.hpp>

using namespace pto;

void kernel(float* out) {
    using TileT = Tile<TileType::Vec, float, 16, 16>;
    using G = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
    TileT a;
    G g(out);
    RecordEvent named = TSTORE(g, a);
    TSYNC(named, TSTORE(g, a));
}
"""


@pytest.mark.parametrize("compiler", COMPILERS)
def test_an_event_passed_as_a_temporary_is_one_clear_error(compiler: str, tmp_path: Path) -> None:
    """Upstream's TSYNC takes `WaitEvents&... events`; the header keeps that declaration and rejects a
    temporary (`TSYNC(TSTORE(...))`) with one static_assert that says events must be named, not with
    a list of the overloads that do not match."""
    from ..compilers import SIM_FLAGS, cxx_argv
    from ..helpers import ROOT

    src = tmp_path / "temporary_event.cpp"
    src.write_text(TEMPORARY_EVENT, encoding="utf-8")
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    built = subprocess.run(
        [*cxx_argv(require(compiler)), *SIM_FLAGS, "-fsyntax-only", *includes, str(src)],
        capture_output=True,
        text=True,
    )
    assert built.returncode != 0
    errors = [line for line in built.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, built.stderr
    assert "TSYNC: events must be named variables" in errors[0], built.stderr
    assert "no matching function" not in built.stderr
