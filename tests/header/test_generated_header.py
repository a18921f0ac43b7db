"""The generated header and profile checks compile against the hand-written core, and every
compiling example of every spec builds."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ptogen.cli import cflags
from ptogen.paths import Layout
from ptogen.rules.parts import not_offered

from ..compilers import COMPILERS, cxx_argv, require
from ..helpers import ROOT, checkout_specs

LAYOUT = Layout.make(root=ROOT)
SPECS = checkout_specs()
PROFILES = SPECS.targets.profile_names()
STRICT = ["-std=c++20", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]


def _build(compiler: str, source: str, tmp: Path, profile: str | None = None, run: bool = False) -> str:
    path = tmp / "k.cpp"
    path.write_text(source)
    cmd = [*cxx_argv(require(compiler)), *STRICT, *cflags(LAYOUT, profile), str(path), "-o", str(tmp / "k")]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    if not run:
        return ""
    done = subprocess.run([str(tmp / "k")], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("profile", PROFILES)
def test_header_compiles_for_every_profile(compiler: str, profile: str, tmp_path: Path) -> None:
    _build(compiler, "#include <pto/pto-inst.hpp>\nint main() { return 0; }\n", tmp_path, profile)


PIPE_OPS = {op.spec.short for op in SPECS.ops if op.spec.semantics.kind == "pipe"}


def _legal_kernel_body(op: str) -> str:
    """The body of the op's generated legal kernel for the default profile (one intrinsic call)."""
    profile = SPECS.targets.default_profile.lower()
    text = (LAYOUT.out / "tests" / op / "verify.cpp").read_text()
    body = text.split(f"void legal_{profile}() {{", 1)[1].split("\n}\n", 1)[0]
    # The verify file names the profile of each call; here the intrinsic itself is called.
    return re.sub(rf"\bprofiled::(\w+)<profile_{profile}>\(", r"\1(", body)


@pytest.mark.parametrize("compiler", COMPILERS)
def test_each_tile_intrinsic_instantiates(compiler: str, tmp_path: Path) -> None:
    """Every tile intrinsic the default profile offers instantiated once in one program, which then
    runs (TADDRELUCONV, not offered on the CPU, has no legal kernel there)."""
    tile_ops = [
        op.spec.stem for op in SPECS.ops if op.spec.intrinsic is not None and _offered_by_default(op)
    ]
    functions = "".join(f"static void call_{op}() {{{_legal_kernel_body(op)}}}\n" for op in tile_ops)
    # A pipe's pop waits for a producer on another core: the pipe ops are instantiated here and run by
    # their own cases (tests/opkinds/test_pipe.py and their generated ones).
    calls = "".join(f"    call_{op}();\n" for op in tile_ops if op not in PIPE_OPS)
    calls += "".join(f"    (void)&call_{op};\n" for op in tile_ops if op in PIPE_OPS)
    source = (
        f"#include <pto/pto-inst.hpp>\n#include <cstdio>\nusing namespace pto;\n{functions}"
        f'int main() {{\n{calls}    std::printf("%d\\n", {len(tile_ops)});\n    return 0;\n}}\n'
    )
    # TPRINT's call prints the tile first; the count is the last line
    assert _build(compiler, source, tmp_path, run=True).strip().splitlines()[-1] == str(len(tile_ops))


@pytest.mark.parametrize("compiler", COMPILERS)
def test_intrinsics_wait_on_their_events(compiler: str, tmp_path: Path) -> None:
    source = """#include <pto/pto-inst.hpp>
#include <cstdio>
using namespace pto;
int main() {
    using T = Tile<TileType::Vec, float, 16, 16>;
    T x, y, out;
    for (int i = 0; i < 256; ++i) x.data()[i] = -2.0f;
    const auto before = sim::wait_count();
    RecordEvent first = TLRELU(y, x, 0.5f);
    RecordEvent second = TMAXS(out, y, -0.5f, first);
    TMAXS(out, out, -0.25f, first, second);
    std::printf("%d %g\\n", int(sim::wait_count() - before), double(out.data()[0]));
    return 0;
}
"""
    assert _build(compiler, source, tmp_path, run=True).split() == ["3", "-0.25"]


def _offered_by_default(op) -> bool:  # type: ignore[no-untyped-def]
    """Whether the default profile offers the op (TADDRELUCONV: not on the CPU, whose kernels then
    do not build; its A2A3 and A5 legal kernels in verify.cpp compile the same call)."""
    default = SPECS.targets.default_profile
    return not any(
        not_offered(r) and (r.profiles is None or default in r.profiles) for r in op.spec.constraints
    )


EXAMPLES = [
    (op, i, ex.code)
    for op in SPECS.ops
    if _offered_by_default(op)
    for i, ex in enumerate(op.spec.examples)
    if ex.compiles
]


@pytest.mark.parametrize("compiler", COMPILERS)
def test_spec_examples_compile(compiler: str, tmp_path: Path) -> None:
    """Every spec example marked `compiles` builds and runs: all in one program, each in a namespace
    of its own, with `#line` pointing a diagnostic at the spec and example it comes from."""
    includes: list[str] = []
    blocks: list[str] = []
    calls: list[str] = []
    for op, index, code in EXAMPLES:
        lines = code.splitlines()
        includes += [line for line in lines if line.startswith("#include") and line not in includes]
        body = "\n".join(line for line in lines if not line.startswith("#include"))
        space = f"example_{op.spec.stem}_{index}"
        blocks.append(f'namespace {space} {{\n#line 1 "{op.path}: examples[{index}]"\n{body}\n}}\n')
        calls.append(f"    {space}::example();\n")
    source = (
        "\n".join(includes)
        + "\n"
        + "".join(blocks)
        + '#line 1 "examples-main.cpp"\n'
        + "int main() {\n"
        + "".join(calls)
        + "    return 0;\n}\n"
    )
    assert EXAMPLES, "no spec example is marked `compiles`"
    _build(compiler, source, tmp_path, run=True)


@pytest.mark.parametrize("compiler", COMPILERS)
def test_an_event_reaches_the_main_form(compiler: str, tmp_path: Path) -> None:
    """A call of the main form that passes an event resolves and waits on it, for every intrinsic with
    further forms. Upstream declares most such forms without guards (TROWEXPANDADD, TCOLSUM, TCVT),
    so the public declarations leave `TROWEXPANDADD(dst, src0, src1, event)` to partial ordering,
    which picks the scratch-tile form; the profiled twins' guards take the call to the main form."""
    ops = [
        op.spec.stem
        for op in SPECS.ops
        if op.spec.intrinsic is not None
        and op.spec.intrinsic.overloads
        and op.spec.intrinsic.params[-1].events
        and op.spec.intrinsic.tmp_in_events is None
        and op.spec.semantics.kind != "sync"
        and op.spec.short not in PIPE_OPS  # a pop waits for another core's push (see above)
    ]
    assert {"trowexpandadd", "tcolsum", "tcvt", "tcolargmax", "tcmps"} <= set(ops), ops
    bodies = {op: _legal_kernel_body(op).rstrip().removesuffix(");") + ", ev);" for op in ops}
    functions = "".join(f"static void call_{op}(RecordEvent& ev) {{{bodies[op]}}}\n" for op in ops)
    calls = "".join(f"    call_{op}(ev);\n" for op in ops)
    source = (
        f"#include <pto/pto-inst.hpp>\n#include <cstdio>\nusing namespace pto;\n{functions}"
        f"int main() {{\n    RecordEvent ev;\n    const auto before = sim::wait_count();\n{calls}"
        f'    std::printf("%d\\n", int(sim::wait_count() - before));\n    return 0;\n}}\n'
    )
    assert _build(compiler, source, tmp_path, run=True).strip() == str(len(ops))
