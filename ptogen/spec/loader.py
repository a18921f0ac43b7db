"""Read YAML while remembering the line of every key and list item (libyaml composer).

Like torchgen's Location on each parsed entry: Pydantic reports an error at a path such as
("intrinsic", "params", 2, "name"); `SourceMap.line_of` turns that path into a line number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import SpecError

PathKey = tuple[str | int, ...]
# libyaml's composer when available: the pure-Python one is several times slower on a spec tree.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SCALARS = yaml.SafeLoader("")  # only its scalar constructors are used


@dataclass
class SourceMap:
    """Line numbers (1-based) of every node in one YAML document, keyed by its path."""

    file: str
    lines: dict[PathKey, int] = field(default_factory=dict)

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


def _plain(node: yaml.Node, path: PathKey, lines: dict[PathKey, int], file: str) -> Any:
    """Convert composed nodes to plain data, recording each child's line."""
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _plain(key_node, path, {}, file)
            child = (*path, key)
            if key in out:
                raise SpecError(file, key_node.start_mark.line + 1, _dotted(child), "duplicate key")
            lines[child] = key_node.start_mark.line + 1
            out[key] = _plain(value_node, child, lines, file)
        return out
    if isinstance(node, yaml.SequenceNode):
        items = []
        for index, item in enumerate(node.value):
            child = (*path, index)
            lines[child] = item.start_mark.line + 1
            items.append(_plain(item, child, lines, file))
        return items
    value = _SCALARS.construct_object(node, deep=True)
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    return str(value)


def _dotted(path: PathKey) -> str:
    return ".".join(str(p) for p in path)


def load_yaml(path: Path, display: str | None = None) -> LoadedDoc:
    """Load one YAML file; syntax errors become SpecError with the parser's line."""
    name = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise SpecError(name, line, "", f"invalid YAML: {exc.problem or exc.context}") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SpecError(name, None, "", f"cannot read YAML: {exc}") from None
    lines: dict[PathKey, int] = {(): 1}
    data = _plain(node, (), lines, name) if node is not None else None
    return LoadedDoc(data=data, source=SourceMap(name, lines))
