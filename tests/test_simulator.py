"""Every generated kernel of every op: runtime goldens, compile-fail tests (with their legal twins)
and runtime-fail tests — the same jobs `ptogen test` runs — on the first compiler; a further one
checks one op per op kind and per rule kind (see KIND_REPRESENTATIVES)."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import pytest

from ptogen.paths import Layout
from ptogen.testing import runner
from ptogen.testing.tiers import default_tier

from .compilers import COMPILERS, require
from .helpers import NO_RUNTIME_CASES, checkout_manifest, checkout_project

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = Layout.make(root=ROOT)
OPS = sorted(checkout_manifest().ops)
# Ops with no compile-time rule under any profile (TPREFETCH_ASYNC's pages state none a compiler can
# check): only their legal twins compile. test_every_rule_has_a_failing_case keeps rules covered.
NO_STATIC_RULES = {"tprefetch_async", "syncall"}  # SYNCALL: the pages state no checkable rule
# Scalar builtins: the runtime checks their rules when they run (tests/opkinds/test_builtin.py).
NO_STATIC_RULES |= {op for op, why in NO_RUNTIME_CASES.items() if "scalar builtin" in why}
# The vector register model's builtins: no page states an element-type rule for them yet.
NO_STATIC_RULES |= {op for op, why in NO_RUNTIME_CASES.items() if "vector register model" in why}
# IR forms: their pages state no rule a compiler checks; the spelling compiles as written.
NO_STATIC_RULES |= {op for op, why in NO_RUNTIME_CASES.items() if "IR form" in why}
# The pipe ops: their rules on a pipe's direction and slot size involve the pipe type (a context), so
# the runtime's static_asserts state the slot sizes (tests/opkinds/test_pipe.py) and the per-direction
# locations are prose so far; SET_QUANT_VECTOR's element-type rule is a spec rule.
NO_STATIC_RULES |= {"talloc", "tpush", "tpop", "tfree", "set_quant_scalar"}
# The README command runs the quick tier (fewer dtypes and shapes, every op, profile, rule case and
# overload); .ci/run and `ptogen test` the full one (PTOGEN_TEST_TIER; ptogen/testing/tiers.py).
TIER = default_tier()


def tier_for(compiler: str) -> str:
    """The full dtype x shape matrix runs on the first compiler of PTOGEN_TEST_COMPILERS; a further
    compiler runs the quick tier (what differs between compilers is how they build the kernels, not
    the golden values)."""
    return TIER if compiler == COMPILERS[0] else "quick"


def _kind_representatives() -> set[str]:
    """The first op (by name) of each op kind that has runtime cases."""
    ops = checkout_manifest().ops
    first: dict[str, str] = {}
    for name in OPS:
        if name not in NO_RUNTIME_CASES and ops[name].executable:
            first.setdefault(ops[name].kind, name)
    return set(first.values())


def _rule_kind_representatives() -> set[str]:
    """The first op (by name) with a compile case of each rule kind (a case's rule is `NN_<kind>`)."""
    ops = checkout_manifest().ops
    first: dict[str, str] = {}
    for name in OPS:
        for case in ops[name].compile:
            first.setdefault(case.rule.split("_", 1)[-1], name)
    return set(first.values())


# A further compiler (g++ in CI) builds and runs the runtime kernels of one op per op kind, and
# checks the compile-fail and legal cases of one op per rule kind (each kind's static_assert and
# message under that compiler) and of those ops: its builds and checks of every op took two minutes
# of CI for what its first compiler already checks op by op, and every intrinsic's simulator code is
# instantiated under each compiler by tests/header/test_generated_header.py.
KIND_REPRESENTATIVES = _kind_representatives()
RULE_KIND_REPRESENTATIVES = _rule_kind_representatives()


def runs_kernels(op: str, compiler: str) -> bool:
    return compiler == COMPILERS[0] or op in KIND_REPRESENTATIVES


def checks_rules(op: str, compiler: str) -> bool:
    return runs_kernels(op, compiler) or op in RULE_KIND_REPRESENTATIVES


def _run(compiler: str, ops: list[str], tmp_cache: Path | None = None, **kw: object) -> list[runner.Outcome]:
    settings = runner.Settings(layout=LAYOUT, compilers=[compiler], ops=ops, cache=tmp_cache, **kw)  # type: ignore[arg-type]
    return runner.run(settings)


@functools.cache
def _shared_runner(compiler: str) -> tuple[runner.Runner, runner.Compiler]:
    """One runner per compiler for all of a worker's op tests: building one reads every op's
    manifest and hashes the headers (about 0.2 s, which every op's test paid before)."""
    settings = runner.Settings(layout=LAYOUT, compilers=[compiler], tier=tier_for(compiler))
    return runner.Runner(settings), runner.find_compiler(compiler)


def _op_groups() -> list[object]:
    """(compiler, ops) for each test of the op kernels: the ops whose kernels a compiler builds in
    the groups `ptogen test` builds as one program each (runner.group_ops), then the ops it only
    checks the compile cases of, in groups of the same size."""
    kinds = {name: entry.kind for name, entry in checkout_manifest().ops.items()}
    groups = []
    for compiler in COMPILERS:
        kernels = [op for op in OPS if runs_kernels(op, compiler)]
        rules = [op for op in OPS if checks_rules(op, compiler) and op not in kernels]
        for ops in runner.group_ops(kernels, kinds) + runner.group_ops(rules, kinds):
            groups.append(pytest.param(compiler, ops, id=f"{compiler}-{ops[0]}..{ops[-1]}"))
    return groups


@pytest.mark.parametrize(("compiler", "ops"), _op_groups())
def test_op_kernels(compiler: str, ops: list[str]) -> None:
    """Each op's runtime, runtime-fail, compile-fail and legal cases: a group of ops a test, whose
    kernels are built as one program (a failing op is still reported by name)."""
    require(compiler)
    r, found = _shared_runner(compiler)
    jobs = [j for j in r.jobs([found]) if j.op in ops]
    jobs = [j for j in jobs if j.kind == "verify" or runs_kernels(j.op, compiler)]
    outcomes = [o for results in r.run_jobs(jobs, [found]) for o in results]
    failures = [f"{o.name}: {o.detail}" for o in outcomes if o.status == "fail"]
    assert not failures, "\n".join(failures)
    for op in ops:
        assert any(j.op == op for j in jobs), f"no jobs for {op}"
        mine = [o for o in outcomes if o.name.startswith(f"{op}/")]
        if op not in NO_STATIC_RULES:
            assert any("rejects:" in o.name for o in mine), f"{op}: no compile-fail test ran"
        else:
            assert any("compiles" in o.name or "legal" in o.name for o in mine), [o.name for o in mine][:5]
        if op not in NO_RUNTIME_CASES and runs_kernels(op, compiler):
            assert any(" case " in o.name for o in mine), f"{op}: no runtime case ran"
            assert sum(o.status == "pass" for o in mine) > 10, op


def test_every_rule_has_a_failing_case() -> None:
    """A rule with no compile-fail (or runtime-fail) case is a defect: count rules from the specs."""
    project = checkout_project()
    manifest = checkout_manifest()
    for op in project.ops:
        entry = manifest.ops[op.spec.stem]  # the comm TGATHER's is comm_tgather, beside the tile op's
        cases = {(c.profile, c.rule) for c in entry.compile if c.must_fail}
        fails = {(c.profile, c.rule) for c in entry.runtime_fail}
        for p in project.profiles:
            for rv in op.rules_for(p.name, static=True):
                assert (p.name, rv.id) in cases, f"{op.spec.mnemonic}: rule {rv.id} on {p.name} has no test"
            for rv in op.rules_for(p.name, static=False):
                assert (p.name, rv.id) in fails, (
                    f"{op.spec.mnemonic}: run-time rule {rv.id} on {p.name} untested"
                )
            for v in op.variants:  # a variant's rules (TTRANS's and TEXTRACT's ConvTile calls)
                for rv in v.rules_for(p.name):
                    assert (p.name, rv.id) in cases, f"{op.spec.mnemonic}: {v.name} rule {rv.id} on {p.name}"


def _one_job(r: runner.Runner, op: str, kind: str, compiler: runner.Compiler) -> runner.Job:
    return next(j for j in r.jobs([compiler]) if j.op == op and j.kind == kind)


def test_a_wrong_golden_is_caught() -> None:
    """The checks can fail: a reference that disagrees with the simulator is reported, not absorbed.
    (The session's kernel cache holds executables, never verdicts: every run is judged again.)"""
    compiler = runner.find_compiler(runner.default_compilers()[0])
    require(compiler.name)
    r = runner.Runner(runner.Settings(layout=LAYOUT, compilers=[compiler.name]))
    module = r.reference("tmaxs")
    original = module.reference
    module.reference = lambda C, T, src, scalar: original(C, T, src, scalar) + C(1)
    outcomes = r.run_job(_one_job(r, "tmaxs", "cases", compiler), compiler)
    cases = [o for o in outcomes if " case " in o.name]
    assert cases and all(o.status == "fail" for o in cases)


def test_a_bundle_reports_each_op_on_its_own(tmp_path: Path) -> None:
    """Ops built as one program are judged op by op: a wrong golden of one fails its cases only, and
    a case that stops the program (here an op whose case files are missing) is reported against
    its own op after each op's cases run again alone."""
    compiler = runner.find_compiler(runner.default_compilers()[0])
    require(compiler.name)
    r = runner.Runner(runner.Settings(layout=LAYOUT, compilers=[compiler.name], cache=tmp_path, tier="quick"))
    jobs = [_one_job(r, op, "cases", compiler) for op in ("tadd", "tmaxs")]
    assert r.tasks(jobs) == [jobs]  # one program
    module = r.reference("tmaxs")
    original = module.reference
    module.reference = lambda C, T, src, scalar: original(C, T, src, scalar) + C(1)
    outcomes = r.run_task(jobs, compiler)
    cases = [o for o in outcomes if " case " in o.name]
    assert cases and all((o.status == "fail") == o.name.startswith("tmaxs/") for o in cases), cases
    assert r.builder.invocations["build"] == 1
    module.reference = original
    kind = runner.KINDS[r.manifest.ops["tadd"].kind]
    prepare = kind.prepare_cases
    try:
        kind.prepare_cases = lambda gx, data: [] if gx.op_name == "tadd" else prepare(gx, data)  # type: ignore[method-assign]
        outcomes = r.run_task(jobs, compiler)
    finally:
        kind.prepare_cases = prepare  # type: ignore[method-assign]
    failed = [o for o in outcomes if o.status == "fail"]
    assert failed and all(o.name.startswith("tadd/") for o in failed), [o.name for o in failed]
    assert any(o.status == "pass" and o.name.startswith("tmaxs/") and " case " in o.name for o in outcomes)


def test_a_verify_bundle_reports_each_op_on_its_own(tmp_path: Path) -> None:
    """Ops' verify files are checked as one translation unit; when it does not check clean, each is
    checked alone, so a broken expectation fails its own op's cases only."""
    compiler = runner.find_compiler(runner.default_compilers()[0])
    require(compiler.name)
    r = runner.Runner(runner.Settings(layout=LAYOUT, compilers=[compiler.name], cache=tmp_path / "cache"))
    good = [_one_job(r, op, "verify", compiler) for op in ("tadd", "tmaxs")]
    assert r.tasks(good) == [good]  # one translation unit
    outcomes = r.run_task(good, compiler)
    assert outcomes and all(o.status == "pass" for o in outcomes)
    assert r.builder.invocations["syntax"] == 1
    broken = tmp_path / "tadd_verify.cpp"
    text = (LAYOUT.out / good[0].source).read_text()
    assert "DType must be one of" in text
    broken.write_text(text.replace("DType must be one of", "DType must be any of", 1))
    jobs = [dataclasses.replace(good[0], source=str(broken)), good[1]]
    outcomes = r.run_task(jobs, compiler)
    failed = {o.name.split("/")[0] for o in outcomes if o.status == "fail"}
    assert failed == {"tadd"}, failed
    assert any(o.status == "pass" and o.name.startswith("tmaxs/") for o in outcomes)


def test_a_weakened_rule_is_caught(tmp_path: Path) -> None:
    """A profile check that stops rejecting (or changes its message) fails the verify file."""
    import shutil

    compiler = runner.find_compiler(runner.default_compilers()[0])
    require(compiler.name)
    include = tmp_path / "include"
    shutil.copytree(LAYOUT.generated_include, include)
    checks = include / "pto/profiles/a5_checks.hpp"
    text = checks.read_text()
    want = '"TLRELU [A5]: DType must be one of: half, float"'
    assert want in text
    checks.write_text(text.replace(want, '"TLRELU [A5]: DType must be one of: anything"'))
    layout = runner.Layout.make(root=ROOT)
    r = runner.Runner(runner.Settings(layout=layout, compilers=[compiler.name], cache=tmp_path / "c"))
    r.builder.include_flags = [f"-I{include}", f"-I{runner.RUNTIME_INCLUDE}"]
    outcomes = r.run_job(_one_job(r, "tlrelu", "verify", compiler), compiler)
    assert [o for o in outcomes if o.status == "fail" and "DType" in o.name]


def test_missing_compiler_is_reported_as_skipped() -> None:
    outcomes = _run("no-such-c++-compiler", ["tlrelu"])
    assert [o.status for o in outcomes] == ["skip"]
    assert "not found" in outcomes[0].detail


def test_cli_profile_a5_tlrelu(capsys: pytest.CaptureFixture[str]) -> None:
    """`ptogen test --profile A5 tlrelu`: legal runs, and the int32 call rejected with the message."""
    compiler = runner.default_compilers()[0]
    require(compiler)
    from ptogen.cli import main

    assert main(["test", "tlrelu", "--profile", "A5", "--cxx", compiler]) == 0
    out = capsys.readouterr().out
    assert f"PASS tlrelu/float [A5, {compiler}] case " in out
    rejected = "TLRELU [A5]: DType must be one of: half, float"
    assert f"PASS tlrelu/fail_a5_06_dtype [A5, {compiler}] rejects: {rejected}" in out
    assert out.strip().splitlines()[-1].endswith("0 failed")
    kernel = (LAYOUT.out / "tests/tlrelu/verify.cpp").read_text()
    body = kernel.split("void fail_a5_06_dtype() {", 1)[1].split("\n}\n", 1)[0]
    assert "Tile<TileType::Vec, int32_t" in body and "profiled::TLRELU<profile_a5>" in body


def test_kernels_build_against_another_simulator_include_dir(tmp_path: Path) -> None:
    """`--include DIR` compiles the unchanged kernels against DIR alone (here: a relocated copy of
    this simulator, standing in for another PTO CPU simulator); ptogen's own diagnostics tests are
    reported as skipped, since they pin ptogen's messages."""
    import shutil

    require("g++")
    other = tmp_path / "other-sim"
    shutil.copytree(LAYOUT.generated_include, other, dirs_exist_ok=True)
    shutil.copytree(runner.RUNTIME_INCLUDE, other, dirs_exist_ok=True)
    settings = runner.Settings(
        layout=LAYOUT, compilers=["g++"], ops=["tlrelu"], include=[other], cache=tmp_path / "c"
    )
    outcomes = runner.run(settings)
    assert not [o for o in outcomes if o.status == "fail"]
    assert sum(o.status == "pass" for o in outcomes) > 10
    assert any(o.status == "skip" and "--include" in o.detail for o in outcomes)
    builder = runner.Builder(settings)
    assert builder.include_flags == [f"-I{other}"]


def test_precompiled_header_survives_touched_headers(tmp_path: Path) -> None:
    """A header whose mtime changes but whose content does not (a checkout, `ptogen gen`) must not
    break cached precompiled headers (clang validates them by mtime unless told otherwise)."""
    import os
    import shutil
    import time

    for compiler in COMPILERS:
        if shutil.which(compiler) is None:
            continue
        settings = runner.Settings(
            layout=LAYOUT, compilers=[compiler], ops=["tmaxs"], cache=tmp_path / compiler
        )
        assert not [o for o in runner.run(settings) if o.status == "fail"]
        header = LAYOUT.generated_include / "pto/vector/pto_vec.hpp"
        stat = header.stat()
        try:
            os.utime(header, (time.time() + 5, time.time() + 5))
            failures = [f"{o.name}: {o.detail}" for o in runner.run(settings) if o.status == "fail"]
        finally:
            os.utime(header, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert not failures, failures[:3]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--profile", "A6"], "unknown profile A6 (known: A2A3, A5, CPU)"),
        (["--cxx", "nosuchcxx"], "compiler not found on PATH: nosuchcxx"),
        (["tnosuch"], "unknown op tnosuch ("),
    ],
)
def test_cli_refuses_unknown_profiles_and_missing_compilers(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from ptogen.cli import main

    assert main(["test", "tabs", *argv]) == 2
    captured = capsys.readouterr()
    assert f"ptogen test: {message}" in captured.err
    assert "passed" not in captured.out


def test_the_ops_without_compile_fail_cases_have_no_static_rule() -> None:
    project = checkout_project()
    for op in project.ops:
        if op.spec.stem in NO_STATIC_RULES:
            assert not any(op.rules_for(p.name, static=True) for p in project.profiles), op.spec.stem
