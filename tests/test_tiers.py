"""Test tiers (ptogen/testing/tiers.py) and the compiler launcher (PTOGEN_CXX_LAUNCHER,
`ptogen test --launcher`): the quick tier is a subset of the full one that keeps every op, profile,
rule case and overload; every compile of `ptogen test` and of the tests goes through the launcher."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ptogen.paths import Layout
from ptogen.testing import runner, tiers

from .compilers import COMPILERS, build_program, cxx_argv, require
from .helpers import ROOT, checkout_manifest

LAYOUT = Layout.make(root=ROOT)
_TYPED = checkout_manifest()
# The tiers choose from the manifest's data, as written to manifest.json.
MANIFEST: dict[str, Any] = {
    "profiles": list(_TYPED.profiles),
    "dtypes": {name: d.to_json() for name, d in _TYPED.dtypes.items()},
    "ops": {name: op.to_json() for name, op in _TYPED.ops.items()},
}
PROFILES = MANIFEST["profiles"]


def _select(entry: dict[str, Any], tier: str, profiles: list[str] = PROFILES) -> dict[str, list[int]]:
    return tiers.select(entry, MANIFEST["dtypes"], profiles, tier)


def _cases(entry: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {int(c["index"]): c for g in entry["runtime"] for c in g["cases"]}


def test_full_is_every_case_and_quick_a_subset_that_keeps_ops_profiles_and_overloads() -> None:
    total = {"quick": 0, "full": 0}
    for op, entry in MANIFEST["ops"].items():
        full, quick = _select(entry, "full"), _select(entry, "quick")
        every = {g["group"]: tiers.case_ids(g) for g in entry["runtime"] + entry["vector"]}
        assert full == every, op
        assert set(quick) <= set(full), op
        for group, ids in quick.items():
            assert ids and set(ids) <= set(full[group]), (op, group)
            # A kept group's first case calls every overload: it always runs.
            assert ids[0] == full[group][0], (op, group)
        for profiles in ([p] for p in PROFILES):  # every profile that runs cases still runs some
            runs_full = set(tiers.run_profiles(entry, profiles)) & set(_select(entry, "full", profiles))
            assert bool(runs_full) == bool(_select(entry, "quick", profiles)), (op, profiles)
        runs = tiers.run_profiles(entry, PROFILES)
        assert {runs[g] for g in full} == {runs[g] for g in quick}, op
        groups = {g["group"]: g for g in entry["runtime"] + entry["vector"]}
        built = [{p for g in chosen for p in groups[g]["profiles"]} for chosen in (full, quick)]
        assert built[0] == built[1], op  # each profile still builds (so proves legal) some cases
        # Every case label (shape, special scalar) of the op runs at least once.
        labels = {c["label"] for c in _cases(entry).values()}
        kept = {_cases(entry)[k]["label"] for g in quick for k in quick[g] if k in _cases(entry)}
        assert labels == kept, (op, labels - kept)
        # Every element kind the op runs (float, int, uint), and a type of each width class.
        classes = {
            (MANIFEST["dtypes"][d]["kind"], tiers.width_class(MANIFEST["dtypes"][d]["bits"]))
            for g in entry["runtime"] + entry["vector"]
            if g["group"] in quick
            for d in (g["dtypes"].values() if "dtypes" in g else [g["dtype"]])
        }
        wanted = {
            (MANIFEST["dtypes"][d]["kind"], tiers.width_class(MANIFEST["dtypes"][d]["bits"]))
            for g in entry["runtime"] + entry["vector"]
            for d in (g["dtypes"].values() if "dtypes" in g else [g["dtype"]])
        }
        assert classes == wanted, op
        total["quick"] += sum(map(len, quick.values()))
        total["full"] += sum(map(len, full.values()))
    assert total["quick"] * 2 < total["full"], total  # the point of the tier


def test_the_selection_is_deterministic_and_comes_from_the_plan_alone() -> None:
    import copy

    for op, entry in MANIFEST["ops"].items():
        again = copy.deepcopy(entry)
        assert _select(entry, "quick") == _select(again, "quick"), op


def test_every_ops_cases_source_slices_with_every_rule_case_kept() -> None:
    """The quick tier compiles only its cases: each op's generated cases.cpp has the shape the slicer
    expects (a template change that breaks it fails here), the runtime-fail cases stay, and line
    numbers are those of the generated file."""
    for op, entry in MANIFEST["ops"].items():
        if not entry["executable"]:
            continue
        text = (LAYOUT.out / entry["executable"]).read_text(encoding="utf-8")
        keep = {k for ids in _select(entry, "quick").values() for k in ids}
        runtime = set(_cases(entry))
        vector = {k for g in entry["vector"] for k in tiers.vector_case_ids(g)}
        sliced = tiers.slice_cases_source(text, keep, runtime, vector, "x.cpp").split("\n")
        assert sliced[0] == '#line 1 "x.cpp"'
        body = sliced[1:]
        assert len(body) == len(text.split("\n")), op
        for k in runtime:
            assert (f"void case_{k}(" in "\n".join(body)) == (k in keep), (op, k)
        for line, original in zip(body, text.split("\n"), strict=True):
            assert not line or line == original or '{"c' in line, (op, line)
        for case in entry["runtime_fail"]:
            assert f'{{"{case["case"]}", {case["case"]}, ' in "\n".join(body), (op, case["case"])
        # A build that runs no runtime-fail case (a5-check) drops their functions and entries, nothing else.
        bare = tiers.slice_cases_source(text, keep, runtime, vector, "x.cpp", runtime_fail=False).split("\n")
        assert len(bare) == len(sliced), op
        assert all(a == b or not a or '{"rf_' in b for a, b in zip(bare, sliced, strict=True)), op
        joined = "\n".join(bare)
        assert all(f"void case_{k}(" in joined for k in keep & runtime), op
        for case in entry["runtime_fail"]:
            assert f"void {case['case']}(" not in joined and f'{{"{case["case"]}"' not in joined, op
        # Dropping nothing changes nothing.
        assert tiers.slice_cases_source(text, runtime | vector, runtime, vector, "x.cpp").split("\n")[1:] == (
            text.split("\n")
        )


def test_a_source_of_another_shape_is_refused() -> None:
    text = (LAYOUT.out / "tests/tabs/cases.cpp").read_text(encoding="utf-8")
    entry = MANIFEST["ops"]["tabs"]
    runtime = set(_cases(entry))
    with pytest.raises(tiers.SliceError, match="not found"):
        tiers.slice_cases_source(text.replace("void case_3(", "void kase_3("), set(), runtime, set(), "x")
    with pytest.raises(tiers.SliceError, match="not a line of case table entries"):
        tiers.slice_cases_source(text.replace('{"c3@', '{ "c3@', 1), set(), runtime, set(), "x")


@pytest.mark.parametrize(
    ("env", "tier"),
    [
        ({}, "quick"),
        ({"CI": "true"}, "full"),
        ({"CI": "false"}, "quick"),
        ({"CI": "true", "PTOGEN_TEST_TIER": "quick"}, "quick"),
        ({"PTOGEN_TEST_TIER": "full"}, "full"),
    ],
)
def test_default_tier(env: dict[str, str], tier: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(tiers.TIER_ENV, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert tiers.default_tier() == tier


def test_an_unknown_tier_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(tiers.TIER_ENV, "fast")
    with pytest.raises(ValueError, match="PTOGEN_TEST_TIER=fast: the tiers are quick, full"):
        tiers.default_tier()


# ----------------------------------------------------------------------------- the launcher


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def guarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path, Path]:
    """(compiler name, launcher, log): a fake launcher that records its argv and execs the rest, and
    a compiler of the same name as the suite's first, first on PATH, that refuses to compile unless
    started by that launcher (so a compile that bypasses the launcher fails)."""
    name = COMPILERS[0]
    real = require(name)
    log = tmp_path / "launcher.log"
    launcher = _script(
        tmp_path / "fake-launcher",
        f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nPTOGEN_VIA_LAUNCHER=1 exec "$@"\n',
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _script(
        bin_dir / name,
        "#!/bin/sh\n"
        f'[ "$1" = --version ] && exec "{real}" "$@"\n'
        # a compile names a C++ source; a link (object files only) need not go through the launcher
        'case "$*" in *.cpp*|*.hpp*) ;; *) exec "' + real + '" "$@";; esac\n'
        '[ "$PTOGEN_VIA_LAUNCHER" = 1 ] || { echo "compiled without the launcher" >&2; exit 97; }\n'
        f'exec "{real}" "$@"\n',
    )
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv(runner.LAUNCHER_ENV, raising=False)
    return name, launcher, log


def test_every_compile_of_a_run_goes_through_the_launcher(
    guarded: tuple[str, Path, Path], tmp_path: Path
) -> None:
    """The PCH, the cases build and the verify compile each start the launcher (the guarded compiler
    refuses anything else); the quick tier's executable holds only its cases, and every compile-fail
    and runtime-fail case of the op is judged as in the full tier."""
    name, launcher, log = guarded
    op = "tabs"
    settings = runner.Settings(
        layout=LAYOUT,
        compilers=[name],
        ops=[op],
        cache=tmp_path / "c",
        tier="quick",
        launcher=[str(launcher)],
    )
    counts: Counter[str] = Counter()
    outcomes = runner.run(settings, invocations=counts)
    assert not [o for o in outcomes if o.status == "fail"], [o.detail for o in outcomes if o.status == "fail"]
    assert set(counts) == {"pch", "build", "syntax", "link"}
    lines = log.read_text().splitlines()
    assert len(lines) == sum(counts.values()) - counts["link"]
    assert all(line.split()[0] == shutil.which(name) for line in lines), lines
    entry = MANIFEST["ops"][op]
    judged = [o.name for o in outcomes]
    for c in entry["compile"]:
        assert any(f"{op}/{c['case']} [" in n for n in judged), c["case"]
    for c in entry["runtime_fail"]:
        assert any(f"{op}/{c['case']} [" in n for n in judged), c["case"]
    # The executable knows only the tier's cases.
    binary = next((tmp_path / "c").glob("*.bin"))
    quick = _select(entry, "quick")
    dropped = sorted(set(_cases(entry)) - {k for ids in quick.values() for k in ids})
    proc = subprocess.run([str(binary), str(tmp_path), f"c{dropped[0]}@CPU"], capture_output=True, text=True)
    assert proc.returncode == 2 and "unknown case" in proc.stderr


def test_the_launcher_comes_from_the_environment_or_the_command_line(
    guarded: tuple[str, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, launcher, log = guarded
    from ptogen.cli import main

    seen: list[runner.Settings] = []
    monkeypatch.setattr(runner, "run", lambda settings, *_a, **_k: seen.append(settings) or [])
    assert main(["test", "tabs", "--cxx", name, "--launcher", f"{launcher} --x"]) == 0
    assert seen[-1].launcher == [str(launcher), "--x"]
    assert runner.Builder(seen[-1]).launcher == [str(launcher), "--x"]
    monkeypatch.setenv(runner.LAUNCHER_ENV, str(launcher))
    assert main(["test", "tabs", "--cxx", name]) == 0
    assert runner.Builder(seen[-1]).launcher == [str(launcher)]
    assert main(["test", "tabs", "--cxx", name, "--launcher", ""]) == 0  # none, whatever the environment
    assert runner.Builder(seen[-1]).launcher == []
    assert main(["test", "tabs", "--cxx", name, "--launcher", "no-such-launcher"]) == 2
    # The tests' own compiles use the same variable.
    assert cxx_argv("g++") == [str(launcher), "g++"]
    build_program(name, "int main() { return 0; }\n", tmp_path, "p")
    assert log.read_text().count(name) == 1


def test_ptogen_test_runs_the_full_tier_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    from ptogen.cli import main

    seen: list[runner.Settings] = []
    monkeypatch.setattr(runner, "run", lambda settings, *_a, **_k: seen.append(settings) or [])
    monkeypatch.setenv(tiers.TIER_ENV, "quick")  # the test suite's variable, not ptogen test's
    assert main(["test", "tabs"]) == 0
    assert seen[-1].tier == "full"
    assert main(["test", "tabs", "--tier", "quick"]) == 0
    assert seen[-1].tier == "quick"


@pytest.mark.skipif(shutil.which("ccache") is None, reason="ccache is not installed (apt-get install ccache)")
def test_ccache_shares_the_kernel_builds_of_two_fresh_clones(tmp_path: Path) -> None:
    """Two runs from an empty .ptogen-cache at the same path (two fresh clones in a CI runner's fixed
    workspace, or two machines of a farm) and one ccache: the second run's precompiled header and
    kernel build are ccache hits. (ccache caches no compile that links, and no -fsyntax-only.)"""
    name = COMPILERS[0]
    require(name)
    env = {
        "CCACHE_DIR": str(tmp_path / "ccache"),
        "CCACHE_SLOPPINESS": "pch_defines,time_macros,include_file_mtime,include_file_ctime",
    }
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        for run in ("a", "b"):
            settings = runner.Settings(
                layout=LAYOUT, compilers=[name], ops=["tabs"], cache=tmp_path / "c", tier="quick",
                launcher=["ccache"], compile_fail=False,
            )  # fmt: skip
            counts: Counter[str] = Counter()
            assert not [o for o in runner.run(settings, invocations=counts) if o.status == "fail"]
            assert counts["pch"] == counts["build"] == 1, (run, counts)
            if run == "a":
                shutil.rmtree(tmp_path / "c")
                subprocess.run(["ccache", "-z"], check=True, capture_output=True)
        stats = subprocess.run(["ccache", "--print-stats"], check=True, capture_output=True, text=True).stdout
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    stats_of = dict(line.split("\t") for line in stats.splitlines() if "\t" in line)
    assert int(stats_of["direct_cache_hit"]) + int(stats_of.get("preprocessed_cache_hit", 0)) == 2, stats
