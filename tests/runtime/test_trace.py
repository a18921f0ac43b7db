"""The instruction trace (ptogen/runtime/include/pto/cpu/trace.hpp and the hook of every generated
intrinsic): the records upstream's trace names (opcode, sequence, input and output tiles in argument
order, scalar inputs), one trace per host thread, the JSON-lines and Chrome trace writers, and a
build without the switch recording nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_program, require

PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

using namespace pto;

using V = Tile<TileType::Vec, float, 2, 32>;
using Src = Tile<TileType::Vec, float, 4, 32>;
using Val = Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor, 4, 1>;
using Idx = Tile<TileType::Vec, uint32_t, 8, 1, BLayout::ColMajor, 4, 1>;
using Tmp = Tile<TileType::Vec, uint32_t, 4, 32>;

static std::string addr(const void* p) {
    std::ostringstream os;
    os << "0x" << std::hex << reinterpret_cast<std::uintptr_t>(p);
    return os.str();
}

// One simulated core's work: a load, an add with a scalar and a store, on its own tiles.
static void core_work(float* gm, float scale, std::size_t ub) {
    V a, b;
    TASSIGN(a, ub);
    TASSIGN(b, ub + 0x100);
    GlobalTensor<float, Shape<1, 1, 1, 2, 32>, Stride<64, 64, 64, 32, 1>> g(gm);
    cpu_sim::ResetInstructionTrace();
    TLOAD(a, g);
    TADDS(b, a, scale);
    TSTORE(g, b);
}

int main(int argc, char** argv) {
    const std::string what = argc > 1 ? argv[1] : "";
    NPU_MEMORY_INIT(NPUArch::A2A3);
    if (what == "records") {
        V dst, s0, s1;
        TASSIGN(dst, 0x0);
        TASSIGN(s0, 0x100);
        TASSIGN(s1, 0x200);
        Src src;
        Val dstVal;
        Idx dstIdx;
        Tmp tmp;
        TASSIGN(src, 0x400);
        TASSIGN(dstVal, 0x1000);
        TASSIGN(dstIdx, 0x1100);
        TASSIGN(tmp, 0x1200);
        cpu_sim::ResetInstructionTrace();
        TSYNC<Op::TADD>();
        TADD(dst, s0, s1);
        TROWARGMAX(dstVal, dstIdx, src, tmp);
        TADDS(dst, s0, 2.5f);
        cpu_sim::DumpInstructionTraceJson(std::cout);
        std::printf("%s %s %s %s %s %s %s\n", addr(dst.data()).c_str(), addr(s0.data()).c_str(),
                    addr(s1.data()).c_str(), addr(dstVal.data()).c_str(), addr(dstIdx.data()).c_str(),
                    addr(src.data()).c_str(), addr(tmp.data()).c_str());
        return 0;
    }
    if (what == "cores") {  // two host threads, each a core with its own trace
        static float gm0[64], gm1[64];
        cpu_sim::ResetAllInstructionTraces();
        std::thread c0(core_work, gm0, 1.0f, 0x0), c1(core_work, gm1, 2.0f, 0x200);
        c0.join();
        c1.join();
        cpu_sim::DumpInstructionTraceChrome(std::cout);
        return 0;
    }
    return 2;
}
"""


@pytest.fixture(scope="module", params=COMPILERS)
def traced(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cxx = require(request.param)
    return build_program(cxx, PROGRAM, tmp_path_factory.mktemp("trace"), "t", ["-DPTO_CPU_SIM_TRACE_MODE=1"])


def run(program: Path, what: str) -> str:
    out = subprocess.run([str(program), what], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_records_name_operands_in_argument_order(traced: Path) -> None:
    *lines, addrs = run(traced, "records").splitlines()
    dst, s0, s1, val, idx, src, tmp = addrs.split()
    records = [json.loads(line) for line in lines]
    assert [r["opcode"] for r in records] == ["TSYNC", "TADD", "TROWARGMAX", "TADDS"]
    assert [r["sequence_id"] for r in records] == [0, 1, 2, 3]
    sync, add, argmax, adds = records
    assert sync["input_tiles"] == sync["output_tiles"] == sync["scalar_inputs"] == []
    assert [t["address"] for t in add["input_tiles"]] == [s0, s1]
    assert [t["address"] for t in add["output_tiles"]] == [dst]
    assert add["output_tiles"][0] == {"address": dst, "shape": [2, 32], "layout": "ND", "dtype": "float32"}
    assert [t["address"] for t in argmax["output_tiles"]] == [val, idx]
    assert [t["address"] for t in argmax["input_tiles"]] == [src, tmp]
    assert argmax["output_tiles"][1]["layout"] == "DN" and argmax["output_tiles"][1]["dtype"] == "uint32"
    assert adds["scalar_inputs"] == [{"dtype": "float32", "value": "2.5"}]


def test_chrome_trace_has_a_row_per_core(traced: Path) -> None:
    trace = json.loads(run(traced, "cores"))
    events = trace["traceEvents"]
    ops = [e for e in events if e["ph"] == "X"]
    rows = sorted({e["tid"] for e in ops})
    assert len(rows) == 2, "each thread's instructions on a row of its own"
    for row in rows:
        mine = [e for e in ops if e["tid"] == row]
        assert [e["name"] for e in mine] == ["TLOAD", "TADDS", "TSTORE"]
        assert [e["args"]["sequence_id"] for e in mine] == [0, 1, 2]
        assert all(e["dur"] > 0 and e["ts"] >= 0 for e in mine)
        assert all(a["ts"] + a["dur"] <= b["ts"] for a, b in zip(mine, mine[1:], strict=False))
    names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert set(names) == set(rows) and all(n.startswith("core ") for n in names.values())
    scalars = sorted(e["args"]["scalar_inputs"][0]["value"] for e in ops if e["name"] == "TADDS")
    assert scalars == ["1", "2"]


@pytest.mark.parametrize("cxx", COMPILERS)
def test_untraced_build_records_nothing(cxx: str, tmp_path: Path) -> None:
    program = build_program(require(cxx), PROGRAM, tmp_path, "u")
    assert run(program, "records").splitlines()[:-1] == []
