"""Write a rendered tree into generated/, or compare it with what is there.

Writing builds the complete new tree beside the old one (`.generated-new-*`) and then switches
the two in one step, so a reader, an error or a kill at any point sees either the old tree or
the new one, never a mix or nothing; files no spec produces disappear.

Why an exchange of two real directories and not a symlink swapped with os.replace: a symlink
swap is atomic too, but `generated/` is committed to git, and git would commit the link, not
the files. Linux's renameat2(RENAME_EXCHANGE) swaps two directories atomically, so
`generated/` stays a real directory. Where it is missing (other systems, file systems without
it) the fallback is two renames with a recovery step: a run that finds `generated/` gone and
`.generated-old` present puts the old tree back before anything else.

Runs that write take an exclusive lock (`.generated.lock` beside the tree), so two `gen`s never
race; a second one waits, and says so. Leftovers of a killed run are removed under that lock.
"""

from __future__ import annotations

import ctypes
import difflib
import errno
import fcntl
import os
import secrets
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# How long a second writer waits for the first before giving up (seconds).
LOCK_TIMEOUT = float(os.environ.get("PTOGEN_LOCK_TIMEOUT", "600"))


class LockHeld(OSError):
    """Another ptogen process kept the output lock longer than LOCK_TIMEOUT."""


def _on_disk(out: Path) -> dict[str, Path]:
    if not out.is_dir():
        return {}
    return {p.relative_to(out).as_posix(): p for p in sorted(out.rglob("*")) if p.is_file()}


def lock_path(out: Path) -> Path:
    return out.parent / f".{out.name}.lock"


@contextmanager
def output_lock(out: Path, exclusive: bool = True) -> Iterator[None]:
    """Hold `out`'s lock: exclusive for writers, shared for readers (`check`). A reader that
    cannot create the lock file (read-only checkout) reads without it: nobody can write there."""
    path = lock_path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        if exclusive:
            raise
        yield
        return
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    try:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            print(
                f"ptogen: another ptogen (pid {holder}) is using {out.name}/; waiting for it "
                f"(lock {path.name}, up to {LOCK_TIMEOUT:g} s)",
                file=sys.stderr,
            )
            deadline = time.monotonic() + LOCK_TIMEOUT
            while True:
                try:
                    fcntl.flock(fd, mode | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise LockHeld(
                            errno.EAGAIN,
                            f"{out.name}/ is still locked by pid {holder} after {LOCK_TIMEOUT:g} s "
                            f"(lock file {path})",
                        ) from None
                    time.sleep(0.1)
        if exclusive:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two directories (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _old(out: Path) -> Path:
    return out.parent / f".{out.name}-old"


def _litter(out: Path) -> list[Path]:
    """Staging and old trees a killed run may have left (only called under the lock)."""
    return sorted(out.parent.glob(f".{out.name}-new-*")) + ([_old(out)] if _old(out).exists() else [])


def recover(out: Path) -> None:
    """Undo what a killed run left: restore the old tree if the two-rename fallback was cut
    between its renames, then remove staging and old trees."""
    old = _old(out)
    if not out.exists() and old.is_dir():
        old.rename(out)
    for path in _litter(out):
        shutil.rmtree(path, ignore_errors=True)


def _keep(old: Path, target: Path) -> None:
    """An unchanged file goes into the new tree as it is, mtime included (compilers' caches use
    it): a hard link, since every written file is a new one and the old tree is only removed; a
    copy where the file system has no links."""
    try:
        os.link(old, target)
    except OSError:
        shutil.copy2(old, target)


def write_tree(out: Path, files: dict[str, str]) -> list[str]:
    """Replace `out` with exactly `files`; returns the relative paths that changed. The caller
    holds `output_lock(out)`."""
    recover(out)
    before = _on_disk(out)
    changed = sorted(
        [p for p, text in files.items() if p not in before or before[p].read_text(encoding="utf-8") != text]
        + [p for p in before if p not in files]
    )
    if not changed and out.is_dir():
        return []  # already exactly `files`: leave every file (and its mtime) alone
    changed_set = set(changed)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}-new-{os.getpid()}-{secrets.token_hex(4)}"
    staging.mkdir()  # honours the umask, unlike tempfile.mkdtemp's 0700
    try:
        for rel, text in files.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if rel in before and rel not in changed_set:
                _keep(before[rel], target)
            else:
                target.write_text(text, encoding="utf-8", newline="\n")
        if out.is_dir() and _exchange(staging, out):
            pass  # `staging` now holds the old tree; removed below
        else:
            old = _old(out)
            if out.exists():
                out.rename(old)
            staging.rename(out)
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return changed


@dataclass
class Drift:
    changed: list[str]
    missing: list[str]
    orphans: list[str]
    diff: str

    @property
    def clean(self) -> bool:
        return not (self.changed or self.missing or self.orphans)


def compare_tree(out: Path, files: dict[str, str], label: str = "generated") -> Drift:
    disk = _on_disk(out)
    changed: list[str] = []
    missing: list[str] = []
    chunks: list[str] = []
    for rel in sorted(files):
        want = files[rel]
        if rel not in disk:
            missing.append(rel)
            have = ""
        else:
            have = disk[rel].read_text(encoding="utf-8", errors="replace")
            if have == want:
                continue
            changed.append(rel)
        chunks.extend(
            difflib.unified_diff(
                have.splitlines(keepends=True),
                want.splitlines(keepends=True),
                fromfile=f"{label}/{rel}" if rel in disk else "/dev/null",
                tofile=f"{label}/{rel} (from specs)",
            )
        )
    orphans = sorted(p for p in disk if p not in files)
    for rel in orphans:
        chunks.append(f"--- {label}/{rel}\n+++ /dev/null\n@@ orphan: no spec produces this file @@\n")
    return Drift(changed, missing, orphans, "".join(c if c.endswith("\n") else c + "\n" for c in chunks))
