"""`ptogen a5-check`: upstream's A5 backend over the builtin simulation, against the CPU simulator.

The pieces that need no upstream tree (how results are compared, how a failed build is named, which
header implements an op) run always; the runs over upstream's A5 headers need an upstream checkout
(PTOGEN_UPSTREAM) and clang++-19, and skip otherwise."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import ml_dtypes
import numpy as np
import pytest

from ptogen.a5check import (
    Checker,
    Difference,
    cause,
    defining_header,
    differences,
    first_blocker,
    impl_header,
    judged,
    outside_valid,
    run_cli,
    stop_message,
    unlinked_groups,
)
from ptogen.paths import Layout
from ptogen.spec.model import UpstreamBug
from ptogen.testing.manifest import CaseEntry, RuntimeGroup, TileShape

from ..helpers import ROOT, checkout_specs

UPSTREAM = os.environ.get("PTOGEN_UPSTREAM")
CXX = "clang++-19"
needs_upstream = pytest.mark.skipif(
    not UPSTREAM or shutil.which(CXX) is None,
    reason="set PTOGEN_UPSTREAM to an upstream checkout (and install clang++-19) to run its A5 backend",
)


def test_differences_compare_bits_and_let_any_nan_match_any_nan() -> None:
    nan2 = np.array([0x7E01], dtype=np.uint16).view(np.float16)[0]  # another NaN payload
    got = np.array([1.0, np.nan, 0.0, 2.0], dtype=np.float16)
    want = np.array([1.0, nan2, -0.0, 2.0], dtype=np.float16)
    assert differences(got, want).tolist() == [False, False, True, False]  # a signed zero differs
    bf = np.array([1.5, np.nan], dtype=ml_dtypes.bfloat16)
    assert not differences(bf, bf.copy()).any()
    ints = np.array([3, -4], dtype=np.int32)
    assert differences(ints, np.array([3, 4], dtype=np.int32)).tolist() == [False, True]


def test_a_difference_is_argued_only_when_a_spec_bug_covers_every_differing_case() -> None:
    bugs = [
        UpstreamBug(cases="col-major *", reason="Upstream reads rows. The page says otherwise."),
        UpstreamBug(cases="*, scalar -*", dtypes=["half"], reason="A zero keeps its sign."),
    ]
    col = Difference("col-major 12x20 valid 9x15", "case 3 dst: 130 of 240 differ")
    neg = Difference("full 16x16, scalar -0.5", "case 7 dst: 2 of 256 differ")
    assert judged(bugs, {"dst": "float"}, [], 4) == ("match", "4 cases")
    status, detail = judged(bugs, {"dst": "float"}, [col], 4)
    assert status == "argued"
    assert detail.startswith("differs (argued upstream bug: Upstream reads rows): case 3")
    assert judged(bugs, {"dst": "half"}, [col, neg], 4)[0] == "argued"
    # The sign bug is argued for half only, and a full tile's difference is argued by neither.
    assert judged(bugs, {"dst": "float"}, [col, neg], 4) == ("differs", neg[1])
    full = Difference("full 16x16", "case 0 dst: 1 of 256 differ")
    assert judged(bugs, {"dst": "half"}, [full], 4)[0] == "differs"


def test_a_bug_argued_for_some_type_combinations_and_cases_covers_those_only() -> None:
    """A conversion's `float, int16_t` group is two pairs: the direction is in the operands' types."""
    bug = UpstreamBug(
        cases="full 16x16 | odd *",
        operand_types=[{"src": "float", "dst": "int16_t"}, {"src": "half", "dst": "int16_t"}],
        reason="A5 wraps. The page saturates.",
    )
    full = Difference("full 16x16", "case 0 dst: 3 of 256 differ")
    odd = Difference("odd 3x5 valid 2x3", "case 4 dst: 1 of 48 differ")
    mode = Difference("full 16x16, mode CAST_ODD", "case 5 dst: 9 of 256 differ")
    assert judged([bug], {"src": "float", "dst": "int16_t"}, [full, odd], 4)[0] == "argued"
    assert judged([bug], {"src": "half", "dst": "int16_t", "tmp": "half"}, [full], 4)[0] == "argued"
    assert judged([bug], {"src": "int16_t", "dst": "float"}, [full], 4) == ("differs", full.detail)
    assert judged([bug], {"src": "float", "dst": "int16_t"}, [mode], 4) == ("differs", mode.detail)
    with pytest.raises(ValueError):
        UpstreamBug(cases="*", operand_types=[{}], reason="A combination names no operand.")


def test_a_bug_argued_outside_the_valid_region_covers_no_difference_inside_it() -> None:
    reason = "A5 leaves the padding. No page defines it."
    bugs = [UpstreamBug(cases="*", outside_valid=True, reason=reason)]
    padding = Difference("full 16x16", "case 0 dst: 64 of 128 differ", outside_valid=True)
    inside = Difference("full 16x16", "case 0 dst: 1 of 128 differ")
    assert judged(bugs, {"dst": "float"}, [padding], 4)[0] == "argued"
    assert judged(bugs, {"dst": "float"}, [padding, inside], 4) == ("differs", inside.detail)


def test_a_bug_argued_for_some_results_covers_a_difference_in_those_only() -> None:
    bugs = [UpstreamBug(cases="*", operands=["max", "scaling"], reason="The page calls them scratch.")]
    scratch = Difference("ND 2x64", "case 1 max: 8 of 8 differ", operand="max")
    data = Difference("ND 2x64", "case 1 dst: 1 of 64 differ", operand="dst")
    assert judged(bugs, {"dst": "int8_t"}, [scratch], 1)[0] == "argued"
    assert judged(bugs, {"dst": "int8_t"}, [scratch, data], 1) == ("differs", data.detail)
    stopped = Difference("ND 2x64", "case 1: the A5 code stopped")  # a stop names no result
    assert judged(bugs, {"dst": "int8_t"}, [stopped], 1)[0] == "differs"


def test_a_case_the_a5_code_does_not_build_is_argued_only_by_an_entry_saying_so() -> None:
    """A build failure and a wrong result are different claims: an entry argues one or the other."""
    unbuilt = UpstreamBug(cases="NZ *", not_built=True, reason="A5 lacks the form. The page defines it.")
    result = UpstreamBug(cases="NZ *", reason="A5 rounds. The page truncates.")
    missing = Difference("NZ 16x64", "case 5: the A5 code does not build it", not_built=True)
    wrong = Difference("NZ 16x64", "case 5 dst: 3 of 64 differ")
    status, detail = judged([unbuilt], {"dst": "int8_t"}, [missing], 1)
    assert status == "argued"
    assert detail.startswith("differs (argued upstream bug: A5 lacks the form): case 5")
    assert judged([result], {"dst": "int8_t"}, [missing], 1) == ("differs", missing.detail)
    assert judged([unbuilt], {"dst": "int8_t"}, [wrong], 1) == ("differs", wrong.detail)
    assert judged([unbuilt, result], {"dst": "int8_t"}, [missing, wrong], 1)[0] == "argued"


class _Builds(Checker):
    """A checker whose A5 builds are recorded, not compiled: a build without case 5 succeeds."""

    def __init__(self, bugs: list[UpstreamBug]) -> None:
        spec = SimpleNamespace(upstream_bugs=bugs)
        self.specs = SimpleNamespace(op=lambda op: SimpleNamespace(spec=spec))  # type: ignore[assignment]
        self.built: list[set[int]] = []

    def _sliced(self, op: str, keep: set[int], tag: str) -> Path:
        self.built.append(keep)
        return Path(tag)

    def _a5_build(self, op: str, headers: list[str], source: Path) -> tuple[Path | None, str]:
        return (None, "x.cpp:1:1: error: no matching function") if 5 in self.built[-1] else (Path("a5"), "")


def test_a_group_that_does_not_build_is_built_again_without_the_cases_argued_unbuilt() -> None:
    cases = [CaseEntry(i, label, {}, {}, {}) for i, label in [(4, "ND 2x64"), (5, "NZ 16x64")]]
    group = RuntimeGroup("mx", {"dst": "int8_t"}, ["A5"], cases)
    why = "compile error: no matching function"
    # Without an entry the group stays unbuilt, and nothing is built again.
    plain = _Builds([UpstreamBug(cases="NZ *", reason="A5 rounds. The page truncates.")])
    assert plain._without_unbuilt("tquant", [], group, why) == (None, [], why)
    assert plain.built == []
    argued = _Builds([UpstreamBug(cases="NZ *", not_built=True, reason="A5 lacks the form.")])
    exe, unbuilt, _ = argued._without_unbuilt("tquant", [], group, why)
    assert exe == Path("a5") and argued.built == [{4}]
    assert [(d.label, d.not_built) for d in unbuilt] == [("NZ 16x64", True)]
    assert unbuilt[0].detail == "case 5 (NZ 16x64): the A5 code does not build it: " + cause(why)[1]
    # Every case argued: nothing to build or run.
    alone = RuntimeGroup("nz", {"dst": "int8_t"}, ["A5"], cases[1:])
    assert argued._without_unbuilt("tquant", [], alone, why)[:2] == (None, unbuilt)


def test_a_difference_lies_outside_the_valid_region_only_when_no_valid_element_differs() -> None:
    rows = TileShape(rows=2, cols=4, valid_rows=1, valid_cols=3, layout="RowMajor")
    diff = np.zeros(8, dtype=bool)
    diff[[3, 4]] = True  # (0, 3) and (1, 0)
    assert outside_valid(diff, rows)
    diff[2] = True  # (0, 2)
    assert not outside_valid(diff, rows)
    cols = TileShape(rows=2, cols=4, valid_rows=1, valid_cols=3, layout="ColMajor")
    diff = np.zeros(8, dtype=bool)
    diff[1] = True  # column-major storage: element (1, 0)
    assert outside_valid(diff, cols)
    diff[2] = True  # (0, 1)
    assert not outside_valid(diff, cols)
    assert not outside_valid(np.ones(3, dtype=bool), rows)  # storage not the tile's: never outside
    # A 4-bit type's bytes hold two elements each: a byte lies outside when both its elements do.
    packed = TileShape(rows=2, cols=8, valid_rows=2, valid_cols=5, layout="RowMajor")
    diff = np.zeros(8, dtype=bool)
    diff[[3, 7]] = True  # elements (0, 6), (0, 7), (1, 6), (1, 7)
    assert outside_valid(diff, packed)
    diff[2] = True  # elements (0, 4) and (0, 5)
    assert not outside_valid(diff, packed)


def test_a_run_that_stops_silently_is_named_by_its_signal() -> None:
    trap = subprocess.CompletedProcess(["cases"], returncode=-8, stdout="", stderr="")
    assert stop_message(trap).startswith("killed by SIGFPE (")
    assert stop_message(subprocess.CompletedProcess(["cases"], 3, "", "")) == "exit status 3, with no message"
    said = subprocess.CompletedProcess(["cases"], 134, "", "PTO runtime error: vsort32: no control word\n")
    assert stop_message(said) == "PTO runtime error: vsort32: no control word"


def test_an_argued_upstream_bug_reads_back_from_its_note() -> None:
    bug = UpstreamBug(cases="*, scalar -*", dtypes=["half", "float"], reason="A zero keeps its sign.")
    assert UpstreamBug(**UpstreamBug.parse(bug.note)) == bug  # type: ignore[arg-type]
    padding = UpstreamBug(cases="full *", outside_valid=True, reason="A5 leaves the padding.")
    assert "`full *`, outside the valid region): A5" in padding.note
    assert UpstreamBug(**UpstreamBug.parse(padding.note)) == padding  # type: ignore[arg-type]
    assert UpstreamBug.parse("The pages disagree on a zero source.") is None
    results = UpstreamBug(cases="*", operands=["max", "scaling"], outside_valid=True, reason="Scratch.")
    assert "cases `*`, results `max` `scaling`, outside the valid region): Scratch." in results.note
    assert UpstreamBug(**UpstreamBug.parse(results.note)) == results  # type: ignore[arg-type]
    unbuilt = UpstreamBug(cases="NZ *", dtypes=["float"], not_built=True, reason="A5 lacks the form.")
    assert "cases `NZ *`, `float`, not built): A5" in unbuilt.note
    assert UpstreamBug(**UpstreamBug.parse(unbuilt.note)) == unbuilt  # type: ignore[arg-type]
    pairs = UpstreamBug(
        cases="full 16x16 | odd *",
        dtypes=["half"],
        operand_types=[{"src": "float", "dst": "int16_t"}, {"dst": "half"}],
        outside_valid=True,
        reason="A5 wraps.",
    )
    assert "cases `full 16x16 | odd *`, `half`, `src float, dst int16_t`, `dst half`, outside" in pairs.note
    assert UpstreamBug(**UpstreamBug.parse(pairs.note)) == pairs  # type: ignore[arg-type]


def test_every_argued_upstream_bug_names_cases_its_op_runs_on_a5() -> None:
    """An entry that covers none of its op's A5 cases (a renamed case, a type the op lost) would argue
    nothing: a5-check would fail on the difference it was written for, or it argues a stale one. The
    specs as loaded: an entry a class gives its ops (TROWEXPAND*'s) is checked on each of them."""
    argued = [op.spec for op in checkout_specs().ops if op.spec.upstream_bugs]
    assert argued
    for spec in argued:
        path = ROOT / f"generated/tests/{spec.stem}/manifest.json"
        manifest = json.loads(path.read_text(encoding="utf-8"))["manifest"]
        groups = [g for g in manifest["runtime"] if "A5" in g["profiles"]]
        for bug in spec.upstream_bugs:
            # Each glob and each type combination of the entry on its own: none may be stale.
            for glob in bug.case_globs:
                for combo in bug.operand_types or [{}]:
                    one = bug.model_copy(update={"cases": glob, "operand_types": [combo] if combo else []})
                    assert any(
                        one.covers(c["label"], g["dtypes"], True, one.not_built, o)
                        for g in groups
                        for c in g["cases"]
                        for o in bug.operands or [""]
                    ), f"{spec.stem}: upstream_bugs cases `{glob}` {combo or ''} cover none of its A5 cases"
            # The results it names are the op's.
            for o in bug.operands:
                assert any(o in g["dtypes"] for g in groups), f"{spec.stem}: upstream_bugs names no {o}"


def test_a_failed_build_is_named_by_its_first_missing_builtin() -> None:
    diag = (
        "x.hpp:3:5: warning: unused\n"
        "TSel.hpp:45:17: error: use of undeclared identifier 'plds'; did you mean 'vlds'?\n"
        "TSel.hpp:50:1: error: use of undeclared identifier 'pnot'\n"
    )
    assert first_blocker(diag) == "missing builtin plds"
    assert first_blocker("a.hpp:1:1: error: unknown type name 'MaskReg'\n") == "missing type MaskReg"
    assert (
        first_blocker("a.hpp:1:1: error: static assertion failed: only f32\n")
        == "static assertion failed: only f32"
    )
    # The simulation's own check of a builtin call is not upstream's.
    own = "/x/include/pto/vsim/ops.hpp:9:5: error: static assertion failed due to requirement 'a': vshl: b\n"
    assert first_blocker(own) == "builtin check: vshl: b"
    assert cause("builtin check: vshl: b") == (
        "not built",
        "a builtin call of a form the simulation does not take: vshl: b",
    )
    # A static assertion is named by its message, not by its (long) condition.
    condition = "Tile<pto::TileType::Vec, float, 16, 16, pto::BLayout::RowMajor, 16, 16>::ValidCol == 1"
    assert (
        first_blocker(f"T.hpp:2:1: error: static assertion failed due to requirement '{condition}': Fix: 1\n")
        == "static assertion failed: Fix: 1"
    )


def test_a_builtins_type_rule_names_the_builtin_and_the_type_the_a5_code_passes() -> None:
    diag = (
        "ops.hpp:483:19: error: static assertion failed due to requirement 'r00_dtype': vdiv [CPU]: DType "
        "must be one of: float, half, bfloat16_t\n"
        "  483 |     static_assert(r00_dtype, ...);\n"
        "TDiv.hpp:35:13: note: in instantiation of function template specialization "
        "'pto::vsim::ops::vdiv<pto::RegTensor<unsigned short>, pto::RegTensor<unsigned short>>' "
        "requested here\n"
    )
    assert first_blocker(diag) == "type rule: vdiv on uint16_t"
    # A builtin register type names itself.
    register = diag.replace("pto::RegTensor<unsigned short>, pto::RegTensor<unsigned short>", "vector_f8e4m3")
    assert first_blocker(register) == "type rule: vdiv on vector_f8e4m3"
    assert cause(first_blocker(diag)) == (
        "not built",
        "A5 calls vdiv on uint16_t, which its page does not admit",
    )


@pytest.mark.parametrize(
    ("blocker", "status", "phrase"),
    [
        ("missing builtin vmadd", "out of scope", "vmadd has no ISA page"),
        ("missing builtin mad_mx", "out of scope", "cube builtin mad_mx"),
        ("missing builtin load_cbuf_to_ca_mx", "out of scope", "cube builtin load_cbuf_to_ca_mx"),
        ("missing builtin set_loop3_para", "out of scope", "MTE builtin set_loop3_para"),
        ("missing builtin __cce_simd", "out of scope", "SIMT builtin __cce_simd"),
        ("missing builtin set_channel_para", "out of scope", "fixpipe builtin set_channel_para"),
        ("missing builtin Bin_N0", "out of scope", "chistv2's operand Bin_N0 (chistv2 has no ISA page)"),
        (
            "no member named 'Spr' in the global namespace",
            "out of scope",
            "sprclr's register type Spr (sprclr has no ISA page)",
        ),
        ("missing builtin vdup", "not built", "undeclared vdup (a builtin or helper the host build lacks)"),
        ("missing type MaskReg", "not built", "undeclared type MaskReg"),
        (
            "undefined void pto::Int64Binary<...>",
            "not built",
            "A5 helper not linked: void pto::Int64Binary<...>",
        ),
        ("static assertion failed: only f32", "not built", "upstream's static assertion: only f32"),
        (
            "no matching function for call to 'vcvt'",
            "not built",
            "compile error: no matching function for call to 'vcvt'",
        ),
    ],
)
def test_a_failed_build_is_out_of_scope_only_for_the_parts_the_simulation_leaves_out(
    blocker: str, status: str, phrase: str
) -> None:
    assert cause(blocker) == (status, phrase)


def test_a_link_failure_names_the_groups_of_the_types_it_misses() -> None:
    groups = [
        RuntimeGroup("g0", {"dst": "int64_t", "src0": "int64_t"}, ["A5"], []),
        RuntimeGroup("g1", {"dst": "uint32_t", "src0": "uint32_t"}, ["A5"], []),
        RuntimeGroup("g2", {"dst": "uint64_t", "src0": "uint64_t"}, ["A5"], []),
    ]
    diag = (
        "cases.cpp:(.text+0x78): undefined reference to `void pto::Int64Binary<(pto::Int64Op)0, long, 16u, "
        "16u, 16u>(long*, long*, long*, unsigned int, unsigned int)'\n"
    )
    # The parameter list's `unsigned int` is not a template argument: uint32_t's group is not named.
    assert list(unlinked_groups(groups, diag)) == ["g0"]


def test_the_header_that_defines_an_ops_impl_is_found(tmp_path: Path) -> None:
    a5 = tmp_path / "include/pto/npu/a5"
    (a5 / "custom").mkdir(parents=True)
    (a5 / "TBinOp.hpp").write_text("template <typename T>\nvoid Helper(T);\n")
    (a5 / "TAdd.hpp").write_text(
        "template <typename D, typename S>\nPTO_INTERNAL void TADD_IMPL(D& d, S& s)\n{}\n"
    )
    (a5 / "custom/TAdd2.hpp").write_text("PTO_INTERNAL void TADD_IMPL(int);\n")
    (a5 / "TAddS.hpp").write_text("PTO_INTERNAL void TADDS_IMPL(int);\n// calls TADD_IMPL(dst, src)\n")
    headers = [
        "pto/npu/a5/TAddS.hpp",
        "pto/npu/a5/TBinOp.hpp",
        "pto/npu/a5/custom/TAdd2.hpp",
        "pto/npu/a5/TAdd.hpp",
    ]
    assert impl_header(tmp_path, "TADD", headers) == "pto/npu/a5/TAdd.hpp"
    assert impl_header(tmp_path, "TSUB", headers) is None
    # A helper of any return type is found where it is defined, not where a line returns its call.
    (a5 / "utils.hpp").write_text(
        "template <typename T>\nPTO_INTERNAL constexpr DistVST GetDistVst()\n{ return DIST_NORM; }\n"
    )
    (a5 / "TBin.hpp").write_text("auto f() {\n    return GetDistVst();\n}\n")
    helpers = ["pto/npu/a5/TBin.hpp", "pto/npu/a5/utils.hpp"]
    assert defining_header(tmp_path, "GetDistVst", helpers) == "pto/npu/a5/utils.hpp"
    # Of two headers that define it, the one upstream's umbrella header includes, as a device build.
    common = tmp_path / "include/pto/common"
    common.mkdir(parents=True)
    (common / "pto_instr_impl.hpp").write_text('#include "pto/npu/a5/custom/TAdd2.hpp"\n')
    assert impl_header(tmp_path, "TADD", headers) == "pto/npu/a5/custom/TAdd2.hpp"


def _a5_check(*args: str, upstream: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "ptogen.cli", "a5-check", upstream or str(UPSTREAM), *args],
        capture_output=True, text=True, check=False, cwd=ROOT, env=env, timeout=900,
    )  # fmt: skip


def test_a_tree_without_an_a5_backend_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(
        upstream=tmp_path, ops=["tadd"], compile_only=False, cxx=None, jobs=1, build_dir=None
    )
    assert run_cli(Layout.make(root=ROOT), args) == 2
    assert "has no include/pto/npu/a5" in capsys.readouterr().out


@needs_upstream
def test_the_a5_backend_matches_the_simulator_on_tadd() -> None:
    proc = _a5_check("tadd", "-j", "2")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    lines = {tuple(line.split()[:3]) for line in proc.stdout.splitlines()}
    for dtype in ("half", "bfloat16_t", "float", "int8_t", "int16_t", "int32_t", "uint32_t"):
        assert ("tadd", dtype, "match") in lines, proc.stdout


@needs_upstream
def test_a_wrong_a5_result_is_reported_and_fails(tmp_path: Path) -> None:
    """An upstream tree whose TADD subtracts (every other file the real one's) differs on every case."""
    real = Path(str(UPSTREAM)) / "include"
    fake = tmp_path / "include"
    a5 = fake / "pto/npu/a5"
    a5.mkdir(parents=True)
    for entry in (real / "pto").iterdir():
        if entry.name != "npu":
            (fake / "pto" / entry.name).symlink_to(entry)
    for entry in (real / "pto/npu").iterdir():
        if entry.name != "a5":
            (fake / "pto/npu" / entry.name).symlink_to(entry)
    for entry in (real / "pto/npu/a5").iterdir():
        if entry.name != "TAdd.hpp":
            (a5 / entry.name).symlink_to(entry)
    text = (real / "pto/npu/a5/TAdd.hpp").read_text(encoding="utf-8")
    assert "vadd(" in text
    (a5 / "TAdd.hpp").write_text(text.replace("vadd(", "vsub("), encoding="utf-8")
    proc = _a5_check("tadd", "-j", "2", "--build-dir", str(tmp_path / "build"), upstream=str(tmp_path))
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "tadd           float                        differs      case " in proc.stdout, proc.stdout
    total = proc.stdout.splitlines()[-1]
    assert total.startswith("total: ") and " differs" in total, total


@needs_upstream
def test_compile_only_counts_the_a5_headers_that_compile() -> None:
    proc = _a5_check("--compile-only", "-j", "2")
    assert proc.returncode == 0, proc.stderr[-2000:]
    last = proc.stdout.splitlines()[-1]
    ok, total = int(last.split()[0]), int(last.split()[2])
    assert total == len(list((Path(str(UPSTREAM)) / "include/pto/npu/a5").rglob("*.hpp")))
    # The vector-only binary ops compile on the builtins as they stand.
    assert "pto/npu/a5/TAdd.hpp" in proc.stdout and ok >= 60
    for line in proc.stdout.splitlines()[:-1]:
        assert line.split()[1] in ("compiles", "fails:", "out-of-scope:"), line
    assert any(
        line.split()[0] == "pto/npu/a5/TAdd.hpp" and line.split()[1] == "compiles"
        for line in proc.stdout.splitlines()
    )
