"""Scalar builtins (the builtin op kind, ptogen/opkinds/builtin.py): the spec states the runtime's
function, and the generated verify file holds the runtime to it; the spec checks refuse a builtin
whose parameters do not carry its operands in order. The runtime's behaviour (pairing, ranges) is
tested with the rest of the runtime (tests/runtime/test_compat.py) and here as upstream's A5 code
calls the builtins."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ptogen.cli import main

from ..compilers import COMPILERS, SIM_FLAGS, build_program, cxx_argv, require
from ..helpers import ROOT, edit, tree_hash

MEM_BAR = "specs/ops/pipeline_sync/mem_bar.yaml"
SET_FLAG = "specs/ops/pipeline_sync/set_flag.yaml"


@pytest.mark.parametrize("compiler", COMPILERS)
def test_a_declaration_unlike_the_spec_fails_the_verify_file(compiler: str, tmp_path: Path) -> None:
    """The verify file's static_assert fails when the runtime's function has other parameter types
    than the spec states (here the spec would say `int` where the runtime takes `mem_bar_t`)."""
    text = (ROOT / "generated/tests/mem_bar/verify.cpp").read_text(encoding="utf-8")
    assert "void (*)(mem_bar_t)" in text
    src = tmp_path / "verify.cpp"
    src.write_text(text.replace("void (*)(mem_bar_t)", "void (*)(int)"), encoding="utf-8")
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    built = subprocess.run(
        [*cxx_argv(require(compiler)), *SIM_FLAGS, "-fsyntax-only", *includes, str(src)],
        capture_output=True,
        text=True,
    )
    assert built.returncode != 0
    assert "mem_bar: the runtime's declaration differs from the spec's" in built.stderr, built.stderr


@pytest.mark.parametrize(
    ("old", "new", "field", "fragment"),
    [
        (
            "    - {name: src, type: pipe_t, operand: src_pipe, example: PIPE_MTE2}\n"
            "    - {name: dst, type: pipe_t, operand: dst_pipe, example: PIPE_V}\n",
            "    - {name: dst, type: pipe_t, operand: dst_pipe, example: PIPE_V}\n"
            "    - {name: src, type: pipe_t, operand: src_pipe, example: PIPE_MTE2}\n",
            "builtin.params",
            "the parameters carry the operands, in their order",
        ),
        ("domain: src_pipe", "domain: event_id", "semantics.domain", "domain is its first operand"),
        (
            "builtin:\n  name: set_flag\n  header: pto/common/cpu_stub.hpp\n  params:\n"
            "    - {name: src, type: pipe_t, operand: src_pipe, example: PIPE_MTE2}\n"
            "    - {name: dst, type: pipe_t, operand: dst_pipe, example: PIPE_V}\n"
            "    - {name: id, type: event_t, operand: event_id, example: EVENT_ID0}\n",
            "",
            "builtin",
            "state their runtime `builtin`",
        ),
    ],
    ids=["parameters out of order", "domain not the first operand", "no builtin"],
)
def test_bad_builtin_spec_is_located(
    spec_project: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, field: str, fragment: str
) -> None:
    edit(spec_project, SET_FLAG, old, new)
    before = tree_hash(spec_project / "generated")
    assert main(["--root", str(spec_project), "gen"]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert tree_hash(spec_project / "generated") == before
    located = [e for e in errors if e.startswith(f"error: {SET_FLAG}:") and f" {field}:" in e]
    assert any(fragment in e for e in located), errors


# Upstream's A5 backend calls the builtins in these shapes (TCvt.hpp, TQuant.hpp, TSync.hpp, ...).
A5_CALLS = r"""
#include <pto/pto-inst.hpp>
#include <pto/vsim/builtins.hpp>
#include <cstdio>

int main(int argc, char**) {
    set_flag(PIPE_V, PIPE_S, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_S, EVENT_ID0);
    set_flag(PIPE_S, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_S, PIPE_V, EVENT_ID0);
    const int pipe = PIPE_MTE3;
    pipe_barrier((pipe_t)pipe);
    pipe_barrier(PIPE_ALL);
    for (mem_bar_t type : {VST_VLD, VST_VLD, VST_VST, VLD_VST})
        mem_bar(type);
    std::printf("%d %d %d %d %d\n", pto::sim::pending_flag(PIPE_V, PIPE_S, EVENT_ID0),
                pto::vsim::mem_bar_count(VST_VLD), pto::vsim::mem_bar_count(VST_VST),
                pto::vsim::mem_bar_count(VLD_VST), pto::vsim::mem_bar_count(VV_ALL));
    if (argc > 1)
        mem_bar(static_cast<mem_bar_t>(7));
    return 0;
}
"""


@pytest.mark.parametrize("compiler", COMPILERS)
def test_a5_call_shapes_run(compiler: str, tmp_path: Path) -> None:
    exe = build_program(require(compiler), A5_CALLS, tmp_path, "a5_calls")
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # every signal consumed; each barrier counted under its own class
    assert out.stdout.split() == ["0", "2", "1", "1", "0"]
    bad = subprocess.run([str(exe), "bad"], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0
    assert bad.stderr.startswith("PTO runtime error: mem_bar: the barrier type must be VST_VLD"), bad.stderr
