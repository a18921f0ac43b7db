"""The pre-commit hook manifest names a command that exists and runs on the files it should."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest
import yaml

from ptogen.cli import parser

from ..helpers import ROOT

MANIFEST = ROOT / ".pre-commit-hooks.yaml"


def _hook() -> dict:
    hooks = yaml.safe_load(MANIFEST.read_text())
    assert [h["id"] for h in hooks] == ["ptogen-check"]
    return hooks[0]


def test_the_manifest_has_the_fields_pre_commit_requires() -> None:
    hook = _hook()
    assert {"id", "name", "entry", "language"} <= hook.keys()
    assert hook["language"] == "python"  # pre-commit installs this repository (pyproject) for it
    assert hook["pass_filenames"] is False  # the check covers the whole tree, not the staged files
    pc = pytest.importorskip("pre_commit.clientlib", reason="pre-commit validates its own schema")
    pc.load_manifest(str(MANIFEST))


def test_the_entry_is_the_installed_check_command() -> None:
    argv = shlex.split(_hook()["entry"])
    assert argv[0] == "ptogen"
    args = parser().parse_args(argv[1:])
    assert args.func.__name__ == "cmd_check"


@pytest.mark.parametrize(
    ("path", "runs"),
    [
        ("specs/ops/x/tadd.yaml", True),
        ("templates/cpp/a.j2", True),
        ("generated/include/a.hpp", True),
        ("README.md", False),
        ("ptogen/cli.py", False),
    ],
)
def test_the_hook_runs_on_changes_to_specs_templates_and_output(path: str, runs: bool) -> None:
    assert bool(re.search(_hook()["files"], path)) is runs


def test_the_entry_passes_on_this_tree() -> None:
    argv = shlex.split(_hook()["entry"])
    done = subprocess.run(
        [sys.executable, "-m", "ptogen.cli", *argv[1:]], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
