"""The project's prose: the README and the site's guides say what is true, and only what lasts.

- No issue numbers, branch names, session facts or machine paths in the README, the site's
  templates or the spec prose that renders into the op pages.
- The README is a newcomer's page: short, with the set-up commands, and a first kernel that builds
  with `ptogen cflags` and prints what the README shows.
- The user guide's Makefile and CMake snippets build and run a kernel as written.
- The contributor guide and the design notes cover every op kind and keep the hook names in one
  delimited subsection per guide.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from ptogen.opkinds import KINDS
from ptogen.testing.runner import default_launcher

from ..compilers import COMPILERS, cxx_argv, require
from ..helpers import ROOT, quick_sample
from .test_site import _build as build_sample

README = ROOT / "README.md"
DOCS = ROOT / "generated" / "docs"
SITE_TEMPLATES = ROOT / "templates" / "site"

# What marks history rather than documentation: issue references, work-branch names, facts of one
# working session, and paths of one machine.
HISTORY = re.compile(
    r"issues? #?\d+|#2\d\b|\bh-[a-z]+\d*\b|/work/|/tmp/|\bthis (session|branch)\b|\bsession's\b"
    r"|\b(first|second|third|fourth|fifth) session\b|\bstop \d+\b",
    re.I,
)


def _history(text: str) -> list[str]:
    return [m.group(0) for m in HISTORY.finditer(text)]


def _strings(node: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _strings(value, f"{path}[{i}]")


def test_the_pattern_finds_what_it_is_meant_to() -> None:
    for text in [
        "issue #24",
        "(issues #23/#24, h-rules)",
        "h-fp4",
        "/work/upstream",
        "this session's machine",
        "stop 19's machine",
        "the fourth session",
    ]:
        assert _history(text), text
    for text in ["the simulation stops", "TSYNC orders work", "high-order bits", "c1*h*w", "AsyncSession"]:
        assert not _history(text), text


def test_no_history_or_machine_facts_in_readme_and_site_templates() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {hit}"
        for path in [README, *sorted(p for p in SITE_TEMPLATES.rglob("*") if p.is_file())]
        for hit in _history(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_no_history_or_machine_facts_in_spec_prose() -> None:
    """Every string of every spec file: notes, summaries, descriptions and texts render into pages."""
    found = []
    for path in sorted((ROOT / "specs").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for where, text in _strings(data, ""):
            found += [f"{path.relative_to(ROOT)}:{where}: {hit}" for hit in _history(text)]
    assert found == []


# --------------------------------------------------------------------------- the README
def test_readme_is_a_short_page_with_the_set_up_commands_and_links_that_exist() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    assert "    pip install -e . && ptogen gen\n" in text
    assert "    pip install -e '.[dev]' && python -m pytest\n" in text
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert "generated/docs/user-guide.md" in local and "generated/docs/contributing.md" in local
    assert [link for link in local if not (ROOT / link).exists()] == []


def _readme_kernel() -> tuple[str, str, str]:
    """(the C++ source, its build command, the output the README shows)."""
    text = README.read_text(encoding="utf-8")
    code = re.search(r"```cpp\n(.*?)```", text, re.S)
    blocks = re.findall(r"```text\n(.*?)```", text, re.S)
    assert code and len(blocks) >= 2
    return code.group(1), blocks[0], blocks[1]


@pytest.mark.parametrize("cxx", COMPILERS[:1])
def test_readme_first_kernel_builds_with_cflags_and_prints_what_the_readme_shows(
    cxx: str, tmp_path: Path
) -> None:
    compiler = require(cxx)
    code, command, output = _readme_kernel()
    build, run = command.strip().splitlines()
    name = re.search(r"// (\w+\.cpp):", code)
    assert name and build.startswith("g++ -std=c++20 $(ptogen cflags) ") and name.group(1) in build
    assert run == "./" + build.split()[-1]
    # The quick tier builds the README's own profile; the full tier (CI) the NPU profiles too.
    for profile in quick_sample(["CPU", "A2A3", "A5"], key=lambda _profile: "one"):
        built = build_sample(compiler, code, profile, tmp_path)
        assert built.returncode == 0, built.stderr
        exe = tmp_path / f"p_{profile}"
        ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
        assert ran.returncode == 0 and ran.stdout == output, f"{profile}: {ran.stdout}"


def test_readme_kernel_output_is_the_sum_it_computes() -> None:
    """The printed numbers, worked out from the data the kernel builds: a[i] = i, b[i] = i / 2."""
    code, _command, output = _readme_kernel()
    assert "R = 2, C = 8" in code and "a[i] = static_cast<float>(i)" in code and "0.5f *" in code
    rows, cols = 2, 8
    expected = ""
    for r in range(rows):
        c = [1.5 * (r * cols + j) for j in range(cols)]
        expected += f"row {r}: {c[0]:g} {c[1]:g} ... {c[-1]:g}\n"
    assert output == expected


# --------------------------------------------------------------------------- the user guide's builds
def _block(page: Path, lang: str) -> str:
    found = re.findall(rf"```{lang}\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    assert len(found) == 1, f"{page.name}: {len(found)} {lang} blocks"
    return found[0]


@pytest.fixture
def kernel_project(tmp_path: Path) -> tuple[Path, dict[str, str], str]:
    """A directory with the getting-started kernel, an environment whose `ptogen` is this checkout's,
    and the output the getting-started page shows."""
    shutil.copy(SITE_TEMPLATES / "guide" / "first_kernel.cpp", tmp_path / "first_kernel.cpp")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "ptogen"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ptogen.cli "$@"\n')
    shim.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PTOGEN_ROOT": str(ROOT),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    getting_started = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    output = getting_started.split("Output:\n\n```text\n", 1)[1].split("```", 1)[0]
    return tmp_path, env, output


def _run(argv: list[str], cwd: Path, env: dict[str, str], echoed: bool = False) -> str:
    """The command's output (with its standard error too where the shell echoes commands there)."""
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + (done.stderr if echoed else "")


def _snippet_build(tool: str, compiler: str, work: Path) -> tuple[list[list[str]], Path, Path | None]:
    """(the commands the user guide gives for `tool`, the program they build, the file that records
    its compile flags where the build's output does not show them), with the test's compiler, for A5."""
    if tool == "make":
        (work / "Makefile").write_text(_block(DOCS / "user-guide.md", "make"))
        return [["make", "PROFILE=A5", f"CXX={' '.join(cxx_argv(compiler))}"]], work / "first_kernel", None
    if tool == "pkg-config":
        # The shell lines as written, with the test's compiler and A5; -x echoes the expanded command.
        script = f"PROFILE=a5\nCXX='{' '.join(cxx_argv(compiler))}'\n" + _block(DOCS / "user-guide.md", "sh")
        return [["sh", "-xc", script]], work / "first_kernel", None
    (work / "CMakeLists.txt").write_text(_block(DOCS / "user-guide.md", "cmake"))
    configure = ["cmake", "-S", ".", "-B", "build", "-DPTO_PROFILE=A5", f"-DCMAKE_CXX_COMPILER={compiler}"]
    if default_launcher():
        configure.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={';'.join(default_launcher())}")
    flags = work / "build/CMakeFiles/first_kernel.dir/flags.make"
    return [configure, ["cmake", "--build", "build"]], work / "build/first_kernel", flags


# The quick tier builds one of the three snippets (each is a compile of the same kernel); CI all three.
@pytest.mark.parametrize("tool", quick_sample(["cmake", "make", "pkg-config"], key=lambda _tool: "one"))
@pytest.mark.parametrize("cxx", COMPILERS[:1])
def test_user_guide_build_snippet_builds_the_first_kernel(
    cxx: str, tool: str, kernel_project: tuple[Path, dict[str, str], str]
) -> None:
    compiler = require(cxx)
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not found on PATH (apt-get install {tool})")
    work, env, output = kernel_project
    commands, program, flags = _snippet_build(tool, compiler, work)
    log = "".join(_run(command, work, env, echoed=tool == "pkg-config") for command in commands)
    if flags is not None:
        log += flags.read_text()
    assert "-DPTO_TARGET_PROFILE=PTO_PROFILE_A5" in log
    if tool != "make":  # the package and the .pc file carry the flag the simulator needs
        assert "-ffp-contract=off" in log
    assert _run([str(program)], work, env) == output


# --------------------------------------------------------------------------- the guides
def test_user_guide_lists_every_command() -> None:
    from ptogen.cli import parser

    sub = next(a for a in parser()._actions if a.dest == "command")
    table = (DOCS / "user-guide.md").read_text(encoding="utf-8").split("## Command line", 1)[1]
    missing = [name for name in sub.choices if f"| `ptogen {name}" not in table]  # type: ignore[union-attr]
    assert missing == []


def test_design_notes_have_a_section_for_every_op_kind() -> None:
    headings = re.findall(r"^## (.*)$", (DOCS / "design-notes.md").read_text(encoding="utf-8"), re.M)
    named = {name for h in headings for name in re.findall(r"`([a-z_0-9]+)`", h)}
    assert sorted(set(KINDS) - named) == []
    assert sorted(named - set(KINDS)) == []


def test_contributor_guide_keeps_hook_names_in_one_subsection_per_kind_guide() -> None:
    text = (DOCS / "contributing.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## (.*?)\n(.*?)(?=^## |\Z)", text, re.M | re.S))
    for title in ("Adding a rule kind", "Adding an op kind"):
        assert sections[title].count("### Hook names") == 1, title
        principles = sections[title].split("### Hook names")[0]
        assert "One module per kind" in principles, title
