"""SIGKILL at random points of `gen` leaves generated/ whole (the old tree or the new one), and
the next run leaves no litter; a full or read-only file system gives a one-line error (exit 3)
and keeps the old tree."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..helpers import TLRELU, tree_hash

A = "Leaky ReLU of a tile"
B = "Leaky ReLU of one tile"


def _gen(project: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ptogen.cli", "--root", str(project), *extra, "gen"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _set_summary(project: Path, text: str) -> None:
    path = project / TLRELU
    spec = path.read_text()
    path.write_text(spec.replace(A, text, 1).replace(B, text, 1))


@pytest.mark.thorough
def test_sigkill_during_gen_leaves_a_whole_tree(project: Path) -> None:
    old = tree_hash(project / "generated")
    _set_summary(project, B)
    started = time.monotonic()
    first = _gen(project)
    assert first.wait(timeout=600) == 0, first.communicate()
    span = min(time.monotonic() - started, 3.0)  # later runs reuse the render cache: mostly writing
    new = tree_hash(project / "generated")
    assert new != old
    rng = random.Random(1234)
    seen = set()
    for _ in range(6):
        current = tree_hash(project / "generated")
        assert current in (old, new)
        _set_summary(project, A if current == new else B)  # always something to write
        proc = _gen(project)
        time.sleep(rng.uniform(0.0, span))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        seen.add(proc.returncode)
        assert (project / "generated").is_dir(), "a kill left no generated/"
        assert tree_hash(project / "generated") in (old, new), "a kill left a mixed tree"
    final = _gen(project)
    assert final.wait(timeout=600) == 0, final.communicate()
    assert not list(project.glob(".generated-*")), "litter after the next run"
    assert tree_hash(project / "generated") in (old, new)


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 40 MB tmpfs, room for the generated tree and the ballast the test adds, but not for the
    files a `gen` changes (needs root and mount rights; skipped elsewhere)."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a small file system")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", str(mnt)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _one_line_fault(proc: subprocess.Popen[str], fault: str) -> None:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 3, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and f"({fault})" in lines[0] and "is unchanged" in lines[0], lines
    assert "Traceback" not in err


@pytest.mark.full_tier  # a whole regeneration of a project copy: CI, not the README command
def test_disk_full_and_read_only_keep_the_old_tree(project: Path, small_fs: Path) -> None:
    out = small_fs / "generated"
    shutil.copytree(project / "generated", out)
    before = tree_hash(out)
    _set_summary(project, B)
    # Leave less free space than the changed files need (the unchanged ones enter the new tree as
    # hard links, which take none).
    stat = os.statvfs(small_fs)
    (small_fs / "ballast").write_bytes(b"\0" * (stat.f_bavail * stat.f_frsize - (16 << 10)))
    _one_line_fault(_gen(project, "--out", str(out)), "ENOSPC")
    assert tree_hash(out) == before
    assert sorted(p.name for p in small_fs.iterdir()) == [".generated.lock", "ballast", "generated"]
    (small_fs / "ballast").unlink()
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    _one_line_fault(_gen(project, "--out", str(out)), "EROFS")
    assert tree_hash(out) == before
