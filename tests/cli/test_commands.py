"""`ptogen gen`, `check`, `list`, `cflags` and `schema` as a user runs them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ptogen.cli import main
from ptogen.spec.load import resolve_file

from ..compilers import cxx_argv, require
from ..helpers import ROOT, TLRELU, edit, tree_hash

OP_SPECS = sorted((ROOT / "specs" / "ops").rglob("*.yaml"))


def test_check_is_clean_on_the_committed_tree(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(ROOT), "check"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_editing_one_field_makes_check_fail_with_a_diff_naming_the_files(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(project, TLRELU, "summary: Leaky ReLU of a tile,", "summary: Leaky ReLU over a tile,")
    assert main(["--root", str(project), "check"]) == 1
    out = capsys.readouterr()
    assert (
        "+++ generated/docs/isa/tile/ops/tile-scalar-and-immediate/tlrelu.md (from specs)"
        in out.out.replace(str(project) + "/", "")
    )
    assert "+Leaky ReLU over a tile, with one scalar slope" in out.out
    assert "-Leaky ReLU of a tile, with one scalar slope" in out.out
    assert "changed: docs/isa/TLRELU.md" in out.err


def test_missing_and_orphaned_files(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "generated/include/pto/cpu/sim/tmaxs.hpp").unlink()
    stray = project / "generated/docs/isa/stale.md"
    stray.write_text("left over\n")
    assert main(["--root", str(project), "check"]) == 1
    err = capsys.readouterr().err
    assert "missing: include/pto/cpu/sim/tmaxs.hpp" in err
    assert "orphan: docs/isa/stale.md" in err
    assert main(["--root", str(project), "gen"]) == 0
    assert not stray.exists() and (project / "generated/include/pto/cpu/sim/tmaxs.hpp").exists()
    assert main(["--root", str(project), "check"]) == 0


def test_gen_is_deterministic_and_touches_only_what_changed(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = tree_hash(project / "generated")
    assert main(["--root", str(project), "gen"]) == 0
    assert tree_hash(project / "generated") == first
    capsys.readouterr()
    edit(project, TLRELU, "summary: Leaky ReLU of a tile,", "summary: Leaky ReLU over a tile,")
    assert main(["--root", str(project), "gen"]) == 0
    changed = [line.strip() for line in capsys.readouterr().out.splitlines()[1:]]
    assert changed == [
        "docs/finder.md",  # the finder lists each op's summary
        "docs/isa/TLRELU.md",
        "docs/isa/tile/ops/tile-scalar-and-immediate/tlrelu.md",
        "docs/isa/tile/tile-scalar-and-immediate.md",
        "search_terms.json",  # search shows and indexes each op's summary
    ]


def test_specs_and_out_options(tmp_path: Path) -> None:
    out = tmp_path / "elsewhere"
    assert main(["--specs", str(ROOT / "specs"), "--out", str(out), "gen"]) == 0
    assert tree_hash(out) == tree_hash(ROOT / "generated")


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    sets = {
        "Tile Scalar And Immediate",
        "Elementwise Tile-Tile",
        "Vector-Scalar Instructions",
        "Binary Vector Instructions",
        "Unary Vector Instructions",
        "Reduce And Expand",
        "Memory And Data Movement",
        "Sync And Config",
        "Layout And Rearrangement",
        "Matrix And Matrix-Vector",
        "Irregular And Complex",
        "Pipeline Sync",
        "Communication",
        "Reduction Instructions",
        "Vector Load Store",
        "Data Rearrangement",
        "Predicate Generation And Algebra",
        "Predicate Load Store",
        "System Scheduling",
        "Compare And Select",
        "Vector Predicate And Materialization",
        "Conversion Ops",
        "DMA Copy",
        "Micro-Instruction",
        "SFU And DSA Instructions",
    }
    used = {s for s in sets if any(s in line for line in lines)}
    assert lines[-1] == f"{len(OP_SPECS)} ops in {len(used)} instruction sets"
    row = next(line for line in lines if line.startswith("pto.tpows"))
    assert row.split()[1] == "TPOWS" and row.split()[-1] == "A5,CPU"
    assert main(["list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data) == len(OP_SPECS)
    assert {
        "mnemonic": "pto.vlrelu",
        "cpp": "vlrelu",
        "instruction_set": "Vector-Scalar Instructions",
        "profiles": ["A2A3", "A5", "CPU"],
    } in data


def _list_rows(capsys: pytest.CaptureFixture[str], *options: str) -> list[str]:
    assert main(["list", *options]) == 0
    return [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:-1]]


def test_list_filters_by_set_profile_and_element_type(capsys: pytest.CaptureFixture[str]) -> None:
    cube = [f"pto.{op}{suffix}" for op in ("tmatmul", "tgemv") for suffix in ("", "_acc", "_bias")]
    # A part of a set's name picks it; A2A3 offers none of the MX products.
    assert _list_rows(capsys, "--set", "matrix", "--profile", "A2A3") == cube
    assert "pto.tmatmul_mx" in _list_rows(capsys, "--set", "Matrix And Matrix-Vector", "--profile", "A5")
    # TADD takes bfloat16_t on A5 but not on A2A3; TMATMUL on both.
    on_a2a3 = _list_rows(capsys, "--dtype", "bfloat16_t", "--profile", "A2A3")
    assert "pto.tmatmul" in on_a2a3 and "pto.tadd" not in on_a2a3
    assert "pto.tadd" in _list_rows(capsys, "--dtype", "bfloat16_t", "--profile", "A5")
    assert main(["list", "--profile", "A6"]) == 2
    assert "unknown profile A6 (known: A2A3, A5, CPU)" in capsys.readouterr().err
    assert main(["list", "--dtype", "bfloat_16"]) == 2
    assert "unknown element type bfloat_16 (did you mean 'bfloat16_t'?)" in capsys.readouterr().err


def test_list_filters_by_category_and_unit(capsys: pytest.CaptureFixture[str]) -> None:
    # Categories and units group op kinds across instruction sets (targets.yaml).
    reduce = _list_rows(capsys, "--category", "reduce")
    assert {"pto.trowsum", "pto.tcolmax", "pto.thistogram"} <= set(reduce) and "pto.tadd" not in reduce
    cube = _list_rows(capsys, "--unit", "Cube")  # an id or a title
    assert "pto.tmatmul" in cube and all(m.startswith(("pto.tmatmul", "pto.tgemv")) for m in cube)
    assert main(["list", "--category", "matrix", "--unit", "vector"]) == 1  # no op is both
    assert main(["list", "--category", "redcue"]) == 2
    assert "unknown category redcue (did you mean 'reduce'?)" in capsys.readouterr().err


def test_show_brief_gives_declarations_types_tiles_and_semantics(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "tmatmul", "--brief"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("TMATMUL (pto.tmatmul): Matrix product")
    assert "category: Matrix multiply; unit: Cube\n" in out
    assert "semantics: c[i,j] = sum(k, a[i,k] * b[k,j])" in out
    assert "PTO_INST RecordEvent TMATMUL(TileRes& cMatrix, TileLeft& aMatrix, TileRight& bMatrix" in out
    assert "  c: all: float int32_t\n" in out
    assert "  (float, half, half)\n" in out  # one table of combinations, every profile admitting them
    assert (
        "  a: A2A3: location Left, layout ZZ boxes (TileLeft); "
        "A5: location Left, layout NZ boxes (TileLeft); CPU: location Left\n" in out
    )
    assert main(["show", "tadd", "--brief"]) == 0
    out = capsys.readouterr().out
    assert "semantics: dst = src0 + src1" in out
    assert "  dst, src0, src1: A2A3: half float int16_t int32_t; A5: half bfloat16_t" in out
    # Declarations whose rows differ are named: MGATHER's GM -> L1 forms take no index tile and run
    # without the tile rules.
    assert main(["show", "mgather", "--brief"]) == 0
    out = capsys.readouterr().out
    assert "  declarations 4-6: dst: all: any\n" in out and "declarations 4-6: indexes" not in out
    assert "  declarations 1-3: dst: A2A3: location Vec; A5: location Vec; CPU: any\n" in out


def test_test_names_the_op_meant_without_listing_every_op(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", "tmatmull"]) == 2
    err = capsys.readouterr().err
    assert "unknown op tmatmull (did you mean 'tmatmul'?)" in err
    assert "tadd" not in err and len(err.splitlines()) == 1, err
    # Nothing near: where the names are, not the names.
    assert main(["test", "zzzzzz"]) == 2
    err = capsys.readouterr().err
    assert "unknown op zzzzzz (" in err and "ops; `ptogen list` names them)" in err and "tadd" not in err


KERNEL = """#include <pto/pto-inst.hpp>
#include <cstdio>
using namespace pto;
int main() {
    using T = Tile<TileType::Vec, %s, 16, 16>;
    T x, out;
    TASSIGN(x, 0x0);
    TASSIGN(out, 0x400);
    for (int i = 0; i < 256; ++i) x.data()[i] = %s(-4);
    TLRELU(out, x, %s(0.5));
    std::printf("%%g\\n", double(out.data()[3]));
    return 0;
}
"""


def _cflags(cwd: Path, *extra: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PTOGEN_ROOT"}
    proc = subprocess.run(
        [sys.executable, "-m", "ptogen.cli", "cflags", *extra],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout.split()


def test_cflags_build_a_kernel_from_any_directory(tmp_path: Path) -> None:
    gxx = require("g++")
    (tmp_path / "k.cpp").write_text(KERNEL % ("float", "float", "float"))
    subprocess.run(
        [*cxx_argv(gxx), "-std=c++20", *_cflags(tmp_path), "k.cpp", "-o", "k"], cwd=tmp_path, check=True
    )
    run = subprocess.run([str(tmp_path / "k")], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "-2"


def test_cflags_profile_rejects_what_the_target_rejects(tmp_path: Path) -> None:
    gxx = require("g++")
    flags = _cflags(tmp_path, "--profile", "A5")
    assert "-DPTO_TARGET_PROFILE=PTO_PROFILE_A5" in flags
    (tmp_path / "k.cpp").write_text(KERNEL % ("int32_t", "int32_t", "int32_t"))
    proc = subprocess.run(
        [*cxx_argv(gxx), "-std=c++20", *flags, "k.cpp", "-o", "k"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode != 0
    assert "TLRELU [A5]: DType must be one of: half, float" in proc.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "ptogen.cli", "cflags", "--profile", "NOPE"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "unknown profile" in bad.stderr


@pytest.mark.full_tier  # every spec through the JSON Schema validator: CI's full tier
def test_schema_validates_the_real_specs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from ruamel.yaml import YAML

    assert main(["schema", "-o", str(tmp_path / "op.json")]) == 0
    assert main(["schema", "--kind", "targets"]) == 0
    targets_schema = json.loads(capsys.readouterr().out)
    op_schema = json.loads((tmp_path / "op.json").read_text())
    assert "mnemonic" in op_schema["properties"] and "dtypes" in targets_schema["properties"]
    yaml = YAML(typ="safe")
    jsonschema.validate(yaml.load((ROOT / "specs/targets.yaml").read_text()), targets_schema)
    # One validator for every spec (jsonschema.validate would check the schema itself each time).
    validator_class = jsonschema.validators.validator_for(op_schema)
    validator_class.check_schema(op_schema)
    validator = validator_class(op_schema)
    for spec in OP_SPECS:
        validator.validate(yaml.load(spec.read_text()))
    broken = yaml.load((ROOT / TLRELU).read_text())
    broken["operands"] = 3
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(broken)
    # Class files have their own schema; a spec resolved against its class fits the full op schema.
    assert main(["schema", "--kind", "class", "-o", str(tmp_path / "class.json")]) == 0
    class_validator = validator_class(json.loads((tmp_path / "class.json").read_text()))
    classes = sorted((ROOT / "specs/classes").glob("*.yaml"))
    assert classes
    for path in classes:
        class_validator.validate(yaml.load(path.read_text()))
    with pytest.raises(jsonschema.ValidationError):
        class_validator.validate(
            {"name": "x", "description": "y", "spec": {"constraints": [{"slot": "mine"}]}}
        )
    assert main(["schema", "--kind", "op", "-o", str(tmp_path / "resolved.json")]) == 0
    resolved_validator = validator_class(json.loads((tmp_path / "resolved.json").read_text()))
    for spec in OP_SPECS:
        resolved_validator.validate(resolve_file(spec, ROOT / "specs", ROOT)[0])


def test_gen_refuses_to_write_on_template_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = tree_hash(project / "generated")
    (project / "templates/docs/op_page.md.j2").write_text("{{ op.no_such_field }}\n")
    assert main(["--root", str(project), "gen"]) == 2
    assert "template docs/op_page.md.j2 failed" in capsys.readouterr().err
    assert tree_hash(project / "generated") == before
    shutil.rmtree(project / "generated")
    assert main(["--root", str(project), "gen"]) == 2
    assert not (project / "generated").exists()


def test_gen_keeps_unchanged_files_untouched(project: Path) -> None:
    path = project / "generated/include/pto/cpu/sim/tmaxs.hpp"
    before = path.stat().st_mtime_ns
    edit(project, TLRELU, "summary: Leaky ReLU of a tile,", "summary: Leaky ReLU over a tile,")
    assert main(["--root", str(project), "gen"]) == 0
    assert path.stat().st_mtime_ns == before


def test_cflags_mpi_adds_what_mpis_wrapper_states_or_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ptogen.cli import EXIT_ENV

    assert main(["cflags"]) == 0
    plain = capsys.readouterr().out.split()
    monkeypatch.setenv("PATH", str(tmp_path))  # no mpicxx
    assert main(["cflags", "--mpi"]) == EXIT_ENV
    assert capsys.readouterr().err == (
        "ptogen cflags --mpi: no mpicxx on PATH: install MPI "
        "(Debian: apt-get install libopenmpi-dev openmpi-bin)\n"
    )
    wrapper = tmp_path / "mpicxx"  # answers as Open MPI's does
    wrapper.write_text(
        '#!/bin/sh\ncase "$1" in --showme:compile) echo -I/mpi/include ;; *) echo -L/mpi/lib -lmpi ;; esac\n'
    )
    wrapper.chmod(0o755)
    assert main(["cflags", "--mpi"]) == 0
    flags = capsys.readouterr().out.split()
    assert flags[-4:] == ["-DPTO_COMM_MPI", "-I/mpi/include", "-L/mpi/lib", "-lmpi"]
    assert flags[:-4] == plain
    assert main(["cflags", "--builtins", "--mpi"]) == 2
