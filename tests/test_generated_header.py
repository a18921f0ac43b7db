"""The generated header and profile checks compile against the hand-written core, and every
compiling example of every spec builds."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ptogen.cli import cflags
from ptogen.paths import Layout
from ptogen.specs import load_specs

from .compilers import COMPILERS, require

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = Layout.make(root=ROOT)
SPECS = load_specs(ROOT / "specs", ROOT)
PROFILES = SPECS.targets.profile_names()
STRICT = ["-std=c++20", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]


def _build(compiler: str, source: str, tmp: Path, profile: str | None = None, run: bool = False) -> str:
    path = tmp / "k.cpp"
    path.write_text(source)
    cmd = [require(compiler), *STRICT, *cflags(LAYOUT, profile), str(path), "-o", str(tmp / "k")]
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


@pytest.mark.parametrize("compiler", COMPILERS)
def test_each_tile_intrinsic_instantiates(compiler: str, tmp_path: Path) -> None:
    """One call per tile intrinsic (with a wait event) under the default profile; the run shows each
    call wrote its destination and waited on its event."""
    calls = []
    tile_ops = [op for op in SPECS.ops if op.spec.intrinsic is not None]
    for op in tile_ops:
        intr = op.spec.intrinsic
        assert intr is not None
        args = []
        for p in intr.params:
            if p.events:
                args += [intr.tmp_in_events, "ev"] if intr.tmp_in_events else ["ev"]
            elif p.type:
                args.append(f"{op.spec.short}_{p.operand}")
            else:
                args.append("2.0f")
        decls = "".join(f"    T {op.spec.short}_{o.name};\n" for o in op.spec.operands if o.kind == "tile"
                        and o.name != intr.tmp_in_events)
        tmp = f"    T {intr.tmp_in_events};\n" if intr.tmp_in_events else ""
        dst = f"{op.spec.short}_{op.spec.semantics.domain}"
        calls.append(
            f"{decls}{tmp}    fill({dst}, 123.0f);\n"
            f"    ev = {intr.name}({', '.join(args)});\n"
            f"    if ({dst}.data()[0] == 123.0f) {{ std::printf(\"{intr.name} did not write\\n\"); return 1; }}\n"
        )
    source = (
        "#include <pto/pto-inst.hpp>\n#include <cstdio>\nusing namespace pto;\n"
        "using T = Tile<TileType::Vec, float, 16, 16>;\n"
        "static void fill(T& t, float v) { for (int i = 0; i < 256; ++i) t.data()[i] = v; }\n"
        "int main() {\n    RecordEvent ev{};\n    const auto waits = sim::wait_count();\n"
        + "".join(calls)
        + f"    if (sim::wait_count() - waits != {len(tile_ops)}) {{ std::printf(\"events not waited\\n\"); return 1; }}\n"
        "    std::printf(\"ok\\n\");\n    return 0;\n}\n"
    )
    assert _build(compiler, source, tmp_path, run=True).strip() == "ok"


EXAMPLES = [(op.spec.short, i, ex.code) for op in SPECS.ops for i, ex in enumerate(op.spec.examples) if ex.compiles]


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize(("op", "index", "code"), EXAMPLES, ids=[f"{o}-{i}" for o, i, _ in EXAMPLES])
def test_spec_examples_compile(compiler: str, op: str, index: int, code: str, tmp_path: Path) -> None:
    _build(compiler, code + "\nint main() { example(); return 0; }\n", tmp_path)
