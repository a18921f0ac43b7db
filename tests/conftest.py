"""Fixtures shared by the test modules."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import io
import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import ROOT

# Content-addressed caches (each entry keyed by a hash of everything that makes it, and checked
# when read), so every project copy of a test session may share them: a test that edits one spec
# then formats a few files instead of all of them.
SHARED_CACHES = ("format", "jinja", "yaml")

# `gen` compiles the pages' examples before it writes (emit/examples.py); the suite compiles and runs
# them in tests/header instead, so the project copies' many `gen` runs skip it. The tests of that
# check itself (tests/cli) turn it back on.
os.environ.setdefault("PTOGEN_SKIP_EXAMPLE_CHECK", "1")


THOROUGH = os.environ.get("PTOGEN_TEST_THOROUGH") == "1"


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Which kernel tier runs and through which compiler launcher (README "Tests")."""
    from ptogen.testing.runner import LAUNCHER_ENV, default_launcher
    from ptogen.testing.tiers import TIER_ENV, default_tier

    tier = default_tier()
    what = "every runtime case" if tier == "full" else f"fewer dtypes and shapes; {TIER_ENV}=full runs all"
    launcher = " ".join(default_launcher()) or f"none ({LAUNCHER_ENV} sets one, e.g. ccache)"
    return [f"ptogen kernel tier: {tier} ({what})", f"ptogen compiler launcher: {launcher}"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The op kernels first: they are most of the work and need no project copy, so while the
    first test that does warms the shared caches, the other worker keeps compiling instead of
    waiting (and the short tests even the workers out at the end).

    Tests marked `thorough` (kills, fuzzing: robustness checks that take long) run where
    PTOGEN_TEST_THOROUGH=1, as `.ci/run` sets; tests marked `full_tier` (a whole regeneration of a
    project copy) and the tests of the built site run with the full kernel tier, as in CI; the
    README's local test command skips them, saying so."""
    items.sort(
        key=lambda item: 0 if item.nodeid.startswith("tests/test_simulator.py::test_op_kernels") else 1
    )
    from ptogen.testing.tiers import TIER_ENV, default_tier

    if default_tier() != "full":
        whole = pytest.mark.skip(
            reason=f"full-tier test (a whole regeneration): runs with {TIER_ENV}=full, as in CI"
        )
        # The tests of the built site (a strict MkDocs build of every page, then its links, menu and
        # search index, and Chromium's visits) took a minute and a half of a local run: the full tier
        # runs them, as CI does; `ptogen docs` builds the same site strict.
        built_site = pytest.mark.skip(reason=f"built-site test: runs with {TIER_ENV}=full, as in CI")
        for item in items:
            if "full_tier" in item.keywords:
                item.add_marker(whole)
            elif "site" in getattr(item, "fixturenames", ()):
                item.add_marker(built_site)
    if THOROUGH:
        return
    skip = pytest.mark.skip(reason="thorough test: runs with PTOGEN_TEST_THOROUGH=1 (as in CI)")
    for item in items:
        if "thorough" in item.keywords:
            item.add_marker(skip)


def _warm_root_caches() -> None:
    """Fill the checkout's own format and template caches once (a fresh clone has none), so that
    project copies format from the cache instead of each running clang-format over everything.
    pytest-xdist's workers take turns on a lock; the second finds the work done."""
    from ptogen.cli import main

    cache = ROOT / ".ptogen-cache"
    cache.mkdir(exist_ok=True)
    with open(cache / "warm.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (cache / "format").is_dir():
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                main(["--root", str(ROOT), "check"])


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _warm_root_caches()
    root = tmp_path_factory.mktemp("ptogen-cache")
    for name in SHARED_CACHES:
        seed = ROOT / ".ptogen-cache" / name
        if seed.is_dir():
            shutil.copytree(seed, root / name)
        else:
            (root / name).mkdir()
    return root


@pytest.fixture
def project(tmp_path: Path, shared_cache: Path) -> Iterator[Path]:
    """A private copy of the project (specs, templates, generated tree, style) to edit freely."""
    copy = copy_project(tmp_path, shared_cache)
    yield copy
    _check_links(copy / "generated")


@pytest.fixture
def spec_project(tmp_path: Path, shared_cache: Path) -> Path:
    """A private copy of the specs and templates with an empty output tree: for tests whose edit
    must be refused before anything is written (a copy of the generated tree costs far more)."""
    for name in ("specs", "templates"):
        shutil.copytree(ROOT / name, tmp_path / name, copy_function=shutil.copyfile)
    shutil.copy(ROOT / ".clang-format", tmp_path / ".clang-format")
    (tmp_path / "generated").mkdir()
    (tmp_path / ".ptogen-cache").mkdir()
    for name in SHARED_CACHES:
        (tmp_path / ".ptogen-cache" / name).symlink_to(shared_cache / name, target_is_directory=True)
    return tmp_path


def copy_project(tmp_path: Path, shared_cache: Path) -> Path:
    """The `project` fixture's copy, for fixtures of a wider scope."""
    for name in ("specs", "templates"):
        # copyfile, not copy2: copying each file's metadata took two thirds of this fixture's time.
        shutil.copytree(ROOT / name, tmp_path / name, copy_function=shutil.copyfile)
    _checkout_stamps()  # before any test of this process can have written through a link
    shutil.copytree(ROOT / "generated", tmp_path / "generated", copy_function=_link)
    shutil.copy(ROOT / ".clang-format", tmp_path / ".clang-format")
    (tmp_path / ".ptogen-cache").mkdir()
    for name in SHARED_CACHES:
        (tmp_path / ".ptogen-cache" / name).symlink_to(shared_cache / name, target_is_directory=True)
    seed_units(tmp_path / ".ptogen-cache" / "gen" / "units")
    return tmp_path


def _link(src: str, dst: str) -> None:
    """The generated tree is linked, not copied (tens of megabytes a copy): `gen` never writes into a
    file, it builds a new tree and swaps it in, so a copy's tree stays its own. A test that edits a
    generated file replaces it (`helpers.rewrite`); `_check_links` catches one that writes through."""
    try:
        os.link(src, dst)
    except OSError:  # another file system, or no hard links
        shutil.copyfile(src, dst)


@functools.lru_cache(maxsize=1)
def _checkout_stamps() -> dict[str, tuple[int, int, int, str]]:
    """The checkout's generated files as (inode, size, mtime, content hash) when this process first
    copied them (hashing them all takes a fraction of a second)."""
    out: dict[str, tuple[int, int, int, str]] = {}
    for path in (ROOT / "generated").rglob("*"):
        st = path.stat()
        if stat.S_ISREG(st.st_mode):
            rel = path.relative_to(ROOT / "generated").as_posix()
            out[rel] = (st.st_ino, st.st_size, st.st_mtime_ns, hashlib.sha1(path.read_bytes()).hexdigest())
    return out


def _check_links(tree: Path) -> None:
    """Fail the test that wrote through a link into the checkout's generated tree (the file is then
    wrong in the checkout too: `ptogen gen` restores it). A file only touched (a new mtime, the same
    bytes, as a test of mtime-proof caches does) is not written."""
    written = []
    for rel, (ino, size, mtime, digest) in _checkout_stamps().items():
        try:
            st = (tree / rel).stat()
        except FileNotFoundError:
            continue
        if st.st_ino != ino or (st.st_size, st.st_mtime_ns) == (size, mtime):
            continue
        if st.st_size != size or hashlib.sha1((tree / rel).read_bytes()).hexdigest() != digest:
            written.append(rel)
    assert not written, (
        f"the test wrote into generated/{written[0]} of its project copy, which shares the file with "
        "the checkout: replace the file instead (tests.helpers.rewrite), then run `ptogen gen` here"
    )


def seed_units(target: Path) -> None:
    """Rendered units are content-addressed too: each copy gets the units the checkout's current state
    names (not the whole store, which grows with every edit), so its first `gen` renders only what its
    edits change. They are hard links (tens of megabytes a copy otherwise): a unit is only ever
    replaced whole, and the test that damages units on purpose unlinks each one before it writes."""
    store = ROOT / ".ptogen-cache" / "gen"
    for state in store.glob("state-*.json"):
        try:
            keys = json.loads(state.read_text())["units"].values()
        except (OSError, ValueError, KeyError, AttributeError):
            continue  # a damaged state only costs time
        for key in keys:
            entry = store / "units" / key[:2] / key
            if entry.is_file():
                (target / key[:2]).mkdir(parents=True, exist_ok=True)
                try:
                    os.link(entry, target / key[:2] / key)
                except OSError:  # another file system, or no hard links: a copy
                    shutil.copyfile(entry, target / key[:2] / key)
