"""Read YAML while remembering the line of every key and list item (libyaml's event parser).

Like torchgen's Location on each parsed entry: Pydantic reports an error at a path such as
("intrinsic", "params", 2, "name"); `SourceMap.line_of` turns that path into a line number.

Specs are plain data, so the loader builds it straight from the parser's events and refuses,
with a located error, everything plain data does not need and an attacker could use: tags
(`!!python/name:...`, `!!timestamp`), anchors and aliases (an alias bomb expands
exponentially), non-scalar keys, and nesting deeper than MAX_DEPTH. The events come from
libyaml's non-recursive parser, so 50,000 levels of `[` cannot overflow a C stack, and the
refusal happens before any large structure exists.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import SpecError

PathKey = tuple[str | int, ...]
# libyaml's parser when available: the pure-Python one is several times slower on a spec tree.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SCALARS = yaml.SafeLoader("")  # only its resolver and scalar constructors are used
# The deepest real spec nests 5 levels; 16 leaves room and stops pathological input early.
MAX_DEPTH = 16
# The largest real spec is under 10 kB; a spec of a megabyte is a mistake, not a spec.
MAX_BYTES = 1 << 20
# Implicit scalar types a spec may use; anything else the resolver guesses (timestamps) stays text.
_PLAIN_TAGS = {
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:null",
}
# A spec file's own name: it lands in comments and banners of every generated file.
_FILE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\.yaml$")


@dataclass
class SourceMap:
    """Line numbers (1-based) of every node in one YAML document, keyed by its path."""

    file: str
    lines: dict[PathKey, int] = field(default_factory=dict)
    # Paths whose value another file supplied (an op class, a named set): path -> (file, line).
    files: dict[PathKey, tuple[str, int | None]] = field(default_factory=dict)
    # How the writer of the file names a resolved path: a rule of the `dtypes:` shorthand is
    # `dtypes.A5`, a rule of the spec's own list `constraints[0]` (its place among the rules the
    # spec writes, not among those its class adds). Path prefix -> that name.
    names: dict[PathKey, str] = field(default_factory=dict)

    def where(self, path: PathKey) -> tuple[str, int | None]:
        """The file and line a reader edits to change the value at `path`."""
        probe = tuple(path)
        while probe:
            if probe in self.files:
                return self.files[probe]
            if probe in self.lines:
                return self.file, self.lines[probe]
            probe = probe[:-1]
        return self.file, self.lines.get((), None)

    def spelled(self, path: PathKey) -> str:
        """`path` as the file's writer names it (`dtypes.A5[4]`, not `constraints[1].dtypes[4]`)."""
        probe = tuple(path)
        while probe:
            if probe in self.names:
                rest = _dotted(tuple(path)[len(probe) :])
                return self.names[probe] + (rest if rest.startswith("[") or not rest else "." + rest)
            probe = probe[:-1]
        return _dotted(path)

    def line_of(self, path: PathKey) -> int | None:
        # Fall back to the closest ancestor that has a line (e.g. a missing field -> its parent).
        probe = tuple(path)
        while probe:
            if probe in self.lines:
                return self.lines[probe]
            probe = probe[:-1]
        return self.lines.get((), None)


@dataclass
class LoadedDoc:
    data: Any
    source: SourceMap


def _dotted(path: PathKey) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def display_path(path: Path, root: Path) -> str:
    """How errors and banners name a spec file: relative to the project root where it is inside."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def unsafe_path_reason(display: str) -> str | None:
    """Why a spec path cannot be printed into generated C++ comments and Markdown, or None.

    Paths are validated, not escaped: the banner names the file a reader should edit, so it
    must be the file's real name."""
    for ch in display:
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"):
            return f"the path contains the control character U+{ord(ch):04X}"
    for marker in ("*/", "/*", "-->", "<", ">", "`", "|", "\\"):
        if marker in display:
            return f"the path contains {marker!r}, which would break out of a comment or page"
    name = display.rsplit("/", 1)[-1]
    if not _FILE_NAME.match(name):
        return "a spec file name has letters, digits, '_', '.' and '-' only, and ends in .yaml"
    return None


class _Builder:
    """Plain data from parser events, with the line of every key and item."""

    def __init__(self, file: str):
        self.file = file
        self.lines: dict[PathKey, int] = {(): 1}

    def fail(self, event: yaml.Event, path: PathKey, message: str) -> SpecError:
        return SpecError(self.file, event.start_mark.line + 1, _dotted(path), message)

    def build(self, events: Any) -> Any:
        # Each open collection: [container, path, pending key (mappings), key line].
        stack: list[list[Any]] = []
        root: Any = None
        documents = 0
        for event in events:
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise self.fail(
                        event, (), "a spec file holds one YAML document (remove the second `---`)"
                    )
                continue
            if isinstance(event, (yaml.StreamStartEvent, yaml.DocumentEndEvent)):
                continue
            if isinstance(event, yaml.StreamEndEvent):
                break
            path = self._child_path(stack)
            if isinstance(event, yaml.AliasEvent):
                raise self.fail(
                    event, path, "YAML aliases (*name) are not allowed in a spec; write the value"
                )
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                done = stack.pop()[0]
                if stack:
                    self._attach(stack, done)
                else:
                    root = done
                continue
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                raise self.fail(event, path, "YAML anchors (&name) are not allowed in a spec")
            tag = getattr(event, "tag", None)
            if tag is not None:
                shown = tag.replace("tag:yaml.org,2002:", "!!")
                raise self.fail(event, path, f"YAML tags ({shown}) are not allowed in a spec")
            if stack and isinstance(stack[-1][0], dict) and stack[-1][2] is None:
                # A mapping key: only plain scalars.
                if not isinstance(event, yaml.ScalarEvent):
                    raise self.fail(event, stack[-1][1], "a key must be a plain name, not a list or mapping")
                key = self._scalar(event, stack[-1][1])
                owner = stack[-1]
                child = (*owner[1], key)
                if key in owner[0]:
                    raise self.fail(event, child, "duplicate key")
                owner[2], owner[3] = key, event.start_mark.line + 1
                continue
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if len(stack) >= MAX_DEPTH:
                    raise self.fail(event, path, f"nested more than {MAX_DEPTH} levels deep")
                self._record(stack, path, event)
                stack.append([{} if isinstance(event, yaml.MappingStartEvent) else [], path, None, 0])
                continue
            assert isinstance(event, yaml.ScalarEvent)
            self._record(stack, path, event)
            value = self._scalar(event, path)
            if stack:
                self._attach(stack, value)
            else:
                root = value
        return root

    @staticmethod
    def _child_path(stack: list[list[Any]]) -> PathKey:
        if not stack:
            return ()
        container, path, key, _ = stack[-1]
        if isinstance(container, dict):
            return path if key is None else (*path, key)
        return (*path, len(container))

    def _record(self, stack: list[list[Any]], path: PathKey, event: yaml.Event) -> None:
        if not stack:
            return
        top = stack[-1]
        # A mapping value's line is its key's line (where a reader looks); an item's is its own.
        self.lines[path] = top[3] if isinstance(top[0], dict) else event.start_mark.line + 1

    @staticmethod
    def _attach(stack: list[list[Any]], value: Any) -> None:
        top = stack[-1]
        if isinstance(top[0], dict):
            top[0][top[2]] = value
            top[2] = None
        else:
            top[0].append(value)

    def _scalar(self, event: yaml.ScalarEvent, path: PathKey) -> Any:
        if not event.implicit[0]:  # quoted or block text: always a string
            return event.value
        tag = _SCALARS.resolve(yaml.ScalarNode, event.value, (True, False))
        if tag not in _PLAIN_TAGS:
            return event.value
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark)
        try:
            value = _SCALARS.construct_object(node, deep=True)
        except (ValueError, yaml.YAMLError) as exc:
            raise self.fail(event, path, f"cannot read the value: {exc}") from None
        return value


def _line_of_offset(text: str, position: int | None) -> int | None:
    if position is None:
        return None
    return text.count("\n", 0, position) + 1


@functools.cache
def _loader_identity() -> bytes:
    """This module's source and PyYAML's version: a cached parse is valid only for the code that
    made it."""
    return hashlib.sha256(Path(__file__).read_bytes() + yaml.__version__.encode()).digest()


def _json_plain(x: Any) -> bool:
    """Whether JSON gives `x` back exactly (string keys; str, int, float, bool, None, lists)."""
    if isinstance(x, dict):
        return all(isinstance(k, str) and _json_plain(v) for k, v in x.items())
    if isinstance(x, list):
        return all(_json_plain(v) for v in x)
    return x is None or isinstance(x, str | int | float | bool)


def _cached(cache: Path, key: str, name: str) -> LoadedDoc | None:
    """A parse stored by `_store`: '<sha256 of body>\\n<body>'; anything else is a miss."""
    try:
        digest, _, body = (cache / key[:2] / key).read_bytes().partition(b"\n")
        if hashlib.sha256(body).hexdigest().encode() != digest:
            return None
        entry = json.loads(body)
        lines = {tuple(p): int(line) for p, line in entry["lines"]}
        return LoadedDoc(data=entry["data"], source=SourceMap(name, lines))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(cache: Path, key: str, doc: LoadedDoc) -> None:
    if not _json_plain(doc.data):
        return
    body = json.dumps(
        {"data": doc.data, "lines": [[list(p), n] for p, n in doc.source.lines.items()]}
    ).encode()
    target = cache / key[:2] / key
    partial = target.with_name(f".{key}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):  # the cache only saves time
        target.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
        os.replace(partial, target)
    with contextlib.suppress(OSError):
        partial.unlink(missing_ok=True)


def load_yaml(path: Path, display: str | None = None, cache: Path | None = None) -> LoadedDoc:
    """Load one YAML file as plain data; every problem becomes a SpecError with its line.

    With `cache`, a parse is stored under the hash of the file's bytes (and of this module), so an
    unchanged file is read back from JSON instead of being parsed again (only files that load
    without error are stored; a damaged entry is a miss)."""
    name = display or str(path)
    reason = unsafe_path_reason(name)
    if reason is not None:
        raise SpecError(name, None, "", f"unusable spec file name: {reason}")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecError(name, None, "", f"cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise SpecError(name, None, "", f"{len(raw)} bytes is too large for a spec (limit {MAX_BYTES})")
    key = hashlib.sha256(_loader_identity() + raw).hexdigest() if cache is not None else ""
    if cache is not None:
        hit = _cached(cache, key, name)
        if hit is not None:
            return hit
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad_line = raw.count(b"\n", 0, exc.start) + 1
        raise SpecError(name, bad_line, "", "not UTF-8 text") from None
    builder = _Builder(name)
    try:
        data = builder.build(yaml.parse(text, Loader=_Loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = f"invalid YAML: {exc.problem or exc.context}"
        if mark is not None and text[mark.index : mark.index + 1] == "\t":
            problem = f"invalid YAML: a tab (column {mark.column + 1}); YAML indents with spaces only"
        raise SpecError(name, line, "", problem) from None
    except yaml.reader.ReaderError as exc:
        where = _line_of_offset(text, exc.position)
        raise SpecError(
            name, where, "", f"invalid YAML: character U+{exc.character:04X} is not allowed"
        ) from None
    except yaml.YAMLError as exc:
        raise SpecError(name, None, "", f"invalid YAML: {exc}") from None
    doc = LoadedDoc(data=data, source=SourceMap(name, builder.lines))
    if cache is not None:
        _store(cache, key, doc)
    return doc
