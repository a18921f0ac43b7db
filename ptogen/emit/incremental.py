"""Incremental `gen` and `check`: skip what the inputs say cannot have changed.

Units. Every job of `render.plan` whose extra context has an "op" belongs to that op's unit; every
other job belongs to the project unit. A unit's key hashes what its outputs are made of:

- an op unit: its own spec file, specs/targets.yaml, the op classes, which spec files exist (an op's
  page links the other members of its families that are specified) and the common inputs;
- the project unit: every spec file and the common inputs;
- common inputs: every template, the ptogen package's .py sources and runtime headers, the style
  file and the clang-format binary's identity.

A rendered (and formatted) unit is stored content-addressed by its key under
`.ptogen-cache/gen/units/`; a later run reuses it while the key is the same. An entry carries a
hash of its own text and must list exactly the paths the plan gives the unit, else it is rendered
again: a damaged cache costs time, never a wrong tree.

Fast path. The state file records the whole-project key (all inputs), the unit keys, and the sha256
of every output. When the key is unchanged nothing is parsed: the files in generated/ are hashed
and compared with the record. On a difference the expected text is assembled from the stored units
(no YAML either); only if they are missing or damaged does the full path run. The full path loads
and validates every spec (cross-file checks need them all), plans, and renders the units whose key
changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..paths import PACKAGE_DIR, Layout
from .format import binary_identity, clang_format_binary, write_atomic

if TYPE_CHECKING:
    from ..lower.views import ProjectView

VERSION = "ptogen-incremental-1"
PROJECT_UNIT = "<project>"


def cache_root(layout: Layout) -> Path:
    return layout.root / ".ptogen-cache"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _walk(top: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        found.extend(Path(dirpath, n) for n in sorted(names))
    return found


def _display(path: Path, root: Path) -> str:
    """The path a spec is known by (as spec/load.py names it)."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


@dataclass
class Inputs:
    specs: dict[str, str]  # display path -> sha256 of the file's bytes (every file under specs/)
    targets: str  # display path of specs/targets.yaml
    common: str  # templates, generator source, style, formatter
    project_key: str  # everything

    def op_key(self, spec_path: str) -> str | None:
        own = self.specs.get(spec_path)
        if own is None:
            return None  # unknown spec: never reuse
        # An op's outputs also follow from the op classes (any of which it may use or extend).
        classes = "".join(f"{p}\0{h}\n" for p, h in sorted(self.specs.items()) if "/classes/" in f"/{p}")
        present = "".join(f"{p}\n" for p in sorted(self.specs))
        shared = f"{self.specs.get(self.targets)}|{_sha(classes.encode())}|{_sha(present.encode())}"
        return _sha(f"{VERSION}|op|{self.common}|{shared}|{spec_path}|{own}".encode())

    def project_unit_key(self) -> str:
        listing = "".join(f"{p}\0{h}\n" for p, h in sorted(self.specs.items()))
        return _sha(f"{VERSION}|project|{self.common}|{listing}".encode())


def _generator_files() -> list[Path]:
    files = [p for p in _walk(PACKAGE_DIR) if p.suffix == ".py"]
    runtime = PACKAGE_DIR / "runtime"
    return files + (_walk(runtime) if runtime.is_dir() else [])


def hash_inputs(layout: Layout) -> Inputs:
    """Read and hash every input: specs, templates, generator source, style, formatter."""
    specs: dict[str, str] = {}
    try:  # the display path without resolving each file (a symlinked spec just never matches)
        rel = layout.specs.resolve().relative_to(layout.root.resolve()).as_posix()
        prefix = "" if rel == "." else rel + "/"
    except ValueError:
        prefix = None
    for path in _walk(layout.specs) if layout.specs.is_dir() else []:
        if prefix is not None:
            name = prefix + path.relative_to(layout.specs).as_posix()
        else:
            name = _display(path, layout.root)
        specs[name] = _sha(path.read_bytes())
    common = hashlib.sha256(f"{VERSION}|{sys.version_info[:3]}\n".encode())
    for label, top, files in (
        ("t", layout.templates, _walk(layout.templates) if layout.templates.is_dir() else []),
        ("g", PACKAGE_DIR, _generator_files()),
    ):
        for path in files:
            common.update(f"{label}:{path.relative_to(top).as_posix()}\0".encode())
            common.update(hashlib.sha256(path.read_bytes()).digest())
    try:
        common.update(b"style\0" + hashlib.sha256(layout.style.read_bytes()).digest())
    except OSError:
        common.update(b"style\0missing")
    try:
        common.update(b"clang-format\0" + binary_identity(clang_format_binary()))
    except Exception:  # noqa: BLE001 - no formatter: rendering will say so
        common.update(b"clang-format\0missing")
    common_hex = common.hexdigest()
    listing = "".join(f"{p}\0{h}\n" for p, h in sorted(specs.items()))
    key = _sha(f"{VERSION}|all|{common_hex}|{layout.specs}|{layout.templates}|{listing}".encode())
    return Inputs(specs, _display(layout.specs / "targets.yaml", layout.root), common_hex, key)


# ---------------------------------------------------------------------------- outputs on disk


def hash_tree(out: Path) -> dict[str, str]:
    """relative posix path -> sha256 of every file under `out`."""
    found: dict[str, str] = {}
    if not out.is_dir():
        return found
    base = len(str(out)) + 1
    for dirpath, _dirs, names in os.walk(out):
        rel_dir = dirpath[base:].replace(os.sep, "/")
        for name in names:
            with open(os.path.join(dirpath, name), "rb") as fh:
                found[f"{rel_dir}/{name}" if rel_dir else name] = _sha(fh.read())
    return found


def output_hashes(files: dict[str, str]) -> dict[str, str]:
    return {p: _sha(t.encode("utf-8")) for p, t in files.items()}


# ---------------------------------------------------------------------------- stored units and state


class Store:
    def __init__(self, layout: Layout):
        self.dir = cache_root(layout) / "gen"
        tag = _sha(f"{layout.specs}|{layout.templates}".encode())[:16]
        self.state_file = self.dir / f"state-{tag}.json"

    def _unit_file(self, key: str) -> Path:
        return self.dir / "units" / key[:2] / key

    def load_unit(self, key: str | None, paths: set[str] | None = None) -> dict[str, str] | None:
        """The stored outputs of a unit, or None if absent, damaged, or not covering `paths`."""
        if key is None:
            return None
        try:
            data = self._unit_file(key).read_bytes()
        except OSError:
            return None
        digest, sep, body = data.partition(b"\n")
        if not sep or _sha(body).encode() != digest:
            return None
        try:
            files = json.loads(body)
        except ValueError:
            return None
        if not isinstance(files, dict) or not all(isinstance(t, str) for t in files.values()):
            return None
        if paths is not None and set(files) != paths:
            return None
        return files

    def save_unit(self, key: str | None, files: dict[str, str]) -> None:
        if key is None:
            return
        body = json.dumps(files, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        with contextlib.suppress(OSError):  # the cache only saves time
            write_atomic(self._unit_file(key), _sha(body).encode() + b"\n" + body)

    def load_state(self) -> dict[str, object] | None:
        try:
            state = json.loads(self.state_file.read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(state, dict) or state.get("version") != VERSION:
            return None
        if not isinstance(state.get("outputs"), dict) or not isinstance(state.get("units"), dict):
            return None
        return state

    def save_state(self, key: str, units: dict[str, str | None], outputs: dict[str, str]) -> None:
        state = {"version": VERSION, "key": key, "units": units, "outputs": outputs}
        with contextlib.suppress(OSError):  # the cache only saves time
            write_atomic(self.state_file, json.dumps(state, separators=(",", ":")).encode())


# ---------------------------------------------------------------------------- the two paths


@dataclass
class Result:
    files: dict[str, str] | None  # None: the fast path found generated/ as recorded (not read)
    count: int
    rendered_units: list[str]
    project: ProjectView | None = None  # the full path's view of the specs


def fast(layout: Layout, inputs: Inputs, store: Store) -> Result | None:
    """Without parsing any spec: the recorded outputs, if the inputs are those recorded.

    Returns Result(files=None) if generated/ holds exactly the recorded outputs, Result(files=...)
    assembled from the stored units if it differs, or None if the full path must run."""
    state = store.load_state()
    if state is None or state.get("key") != inputs.project_key:
        return None
    recorded: dict[str, str] = state["outputs"]  # type: ignore[assignment]
    if hash_tree(layout.out) == recorded:
        return Result(None, len(recorded), [])
    files: dict[str, str] = {}
    units: dict[str, object] = state["units"]  # type: ignore[assignment]
    for key in units.values():
        unit = store.load_unit(key if isinstance(key, str) else None)
        if unit is None:
            return None
        files.update(unit)
    if output_hashes(files) != recorded:
        return None
    return Result(files, len(files), [])


def unit_of(extra: dict[str, object]) -> str:
    op = extra.get("op")
    if op is None:
        return PROJECT_UNIT
    path = getattr(op, "path", None)
    return path if isinstance(path, str) else f"<op {getattr(op, 'name', op)!r}>"


def full(layout: Layout, inputs: Inputs, store: Store) -> Result:
    """Load and validate every spec; render the units whose key changed, reuse the others."""
    from ..lower.views import ProjectView
    from ..spec.load import load_specs
    from .render import check_unique, environment, plan, render_jobs
    from .site import check_catalog, load_catalog

    specs = load_specs(layout.specs, layout.root)
    project = ProjectView(specs)
    check_catalog(project, load_catalog(layout.templates))  # an input error: stop before rendering
    # An op unit found in the store is taken whole, so its tests are not planned again (most of a
    # `gen` after a one-spec edit). Its entry must list the op's other outputs, which `plan` gives,
    # and the test files `test_paths` names; one that does not is planned and rendered again.
    from ..testing.plan import op_test_jobs, test_paths

    entries: dict[str, tuple[str | None, dict[str, str]]] = {}
    for op in project.ops:
        unit = unit_of({"op": op})
        key = inputs.op_key(unit)
        hit = store.load_unit(key)
        if hit is not None:
            entries[unit] = (key, hit)
    ops = {unit_of({"op": op}): op for op in project.ops}
    jobs = plan(project, reuse=frozenset(ops[u].mnemonic for u in entries))
    planned: dict[str, set[str]] = {}
    for path, _template, extra in jobs:
        planned.setdefault(unit_of(extra), set()).add(path)
    reused: dict[str, dict[str, str]] = {}
    reused_keys: dict[str, str | None] = {}
    for unit, (key, hit) in entries.items():
        always, maybe = test_paths(ops[unit])
        wanted = planned.get(unit, set()) | always
        if wanted <= set(hit) <= wanted | maybe:
            reused[unit], reused_keys[unit] = hit, key
        else:
            jobs.extend(op_test_jobs(project, ops[unit]))
    jobs = [job for job in jobs if unit_of(job[2]) not in reused]
    check_unique(jobs + [(path, "", {}) for files in reused.values() for path in files])
    by_unit: dict[str, list[tuple[str, str, dict[str, object]]]] = {}
    for job in jobs:
        by_unit.setdefault(unit_of(job[2]), []).append(job)
    keys: dict[str, str | None] = {
        unit: inputs.project_unit_key() if unit == PROJECT_UNIT else inputs.op_key(unit) for unit in by_unit
    }
    stored: dict[str, dict[str, str]] = {}
    stale: list[str] = []
    for unit, unit_jobs in by_unit.items():
        hit = store.load_unit(keys[unit], {path for path, _t, _e in unit_jobs})
        if hit is None:
            stale.append(unit)
        else:
            stored[unit] = hit
    fresh: dict[str, str] = {}
    if stale:
        env = environment(layout.templates, cache_root(layout) / "jinja")
        todo = [job for unit in stale for job in by_unit[unit]]
        fresh = render_jobs(env, project, todo, layout.style, cache=cache_root(layout) / "format")
        for unit in stale:
            store.save_unit(keys[unit], {path: fresh[path] for path, _t, _e in by_unit[unit]})
    files: dict[str, str] = {
        path: text for unit_files in reused.values() for path, text in unit_files.items()
    }
    for path, _template, extra in jobs:
        unit = unit_of(extra)
        files[path] = stored[unit][path] if unit in stored else fresh[path]
    keys.update(reused_keys)
    store.save_state(inputs.project_key, keys, output_hashes(files))
    return Result(files, len(files), stale, project)


def build(layout: Layout, allow_fast: bool = True) -> Result:
    inputs = hash_inputs(layout)
    store = Store(layout)
    if allow_fast:
        result = fast(layout, inputs, store)
        if result is not None:
            return result
    return full(layout, inputs, store)
