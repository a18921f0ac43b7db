"""Make an imported spec valid by giving up the parts of it the model refuses.

A real page states things the spec model cannot hold (a declaration without the events pack, a
dtype rule that names an operand the declaration lacks, an overload carrying an operand under
another kind). Rather than refusing the whole page, each refused part is dropped or completed and
reported as unplaced, so the user sees exactly what to write by hand. What cannot be repaired
that way stays a problem and the page is refused with it.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from ..spec.load import check_op
from ..spec.model import OpSpec, Targets

Path_ = tuple[str | int, ...]

# Lists whose items may be dropped one by one; the value is what is left when all are gone.
_DROPPABLE = ("constraints", "prose_constraints", "profile_notes", "notes", "examples", "exceptions")
_PROSE_FIELDS = ("summary", "mechanism", "side_effects", "description", "text", "note")
_NOT_IN_ORDER = "is not in the `order:`"


def problems(spec: dict[str, Any], targets: Targets) -> list[tuple[Path_, str]]:
    try:
        model = OpSpec.model_validate(spec)
    except ValidationError as exc:
        return [(tuple(e["loc"]), e["msg"]) for e in exc.errors()]
    return check_op(model, targets)


def order_advice(spec: dict[str, Any], targets: Targets) -> str | None:
    """The one step left when the op is not yet listed in its set's `order:`."""
    iset = next((s for s in targets.instruction_sets if s.id == spec.get("instruction_set")), None)
    if iset is None or spec.get("mnemonic") in iset.order:
        return None
    return (
        f"add {spec['mnemonic']} to the `order:` of instruction set {iset.id} in specs/targets.yaml "
        "(where its page belongs in the set) before `ptogen gen`"
    )


def _get(spec: Any, path: Path_) -> Any:
    for key in path:
        spec = spec[key]
    return spec


def _fix(spec: dict[str, Any], path: Path_, message: str, unplaced: list[str]) -> bool:
    """Repair one problem in place; False when this kind of problem has no repair."""
    if path and path[0] in _DROPPABLE and len(path) >= 2 and isinstance(path[1], int):
        items = spec[path[0]]
        gone = items.pop(path[1])
        unplaced.append(f"{path[0]} item not kept ({message}): {gone}")
        if path[0] == "exceptions" and not items:
            items.append("The page documents no exceptions.")
        return True
    if path[:2] == ("intrinsic", "overloads") and len(path) >= 3 and isinstance(path[2], int):
        gone = spec["intrinsic"]["overloads"].pop(path[2])
        unplaced.append(f"overload not kept ({message}): {gone.get('summary', '')}")
        if not spec["intrinsic"]["overloads"]:
            del spec["intrinsic"]["overloads"]
        return True
    if path[-1:] and path[-1] in _PROSE_FIELDS and "HTML" in message:
        owner = _get(spec, path[:-1])
        # Outside code spans, `<` becomes an entity: shown the same, never a tag.
        parts = re.split(r"(`[^`\n]*`)", owner[path[-1]])
        owner[path[-1]] = "".join(p if i % 2 else p.replace("<", "&lt;") for i, p in enumerate(parts))
        unplaced.append(f"raw HTML in {'.'.join(map(str, path))} was escaped")
        return True
    intr: dict[str, Any] = spec.get("intrinsic") or {}
    no_pack = bool(intr) and not any(t["kind"] == "pack" for t in intr["template"])
    # A declaration without the events pack (the params problem is the same one): add the pack.
    if no_pack and path == ("intrinsic", "template") and "`pack`" in message:
        intr["template"].append({"name": "WaitEvents", "kind": "pack"})
        intr["params"].append({"name": "events", "type": "WaitEvents", "events": True})
        unplaced.append("the declaration has no `WaitEvents&... events` pack: one was added")
        return True
    return False


def repair(spec: dict[str, Any], targets: Targets, unplaced: list[str]) -> list[str]:
    """Repair `spec` in place as far as possible; returns the problems left (as `path: message`)."""
    for _ in range(50):  # each round drops or completes at least one part
        found = [(p, m) for p, m in problems(spec, targets) if _NOT_IN_ORDER not in m]
        if not found:
            return []
        # Later list items first, so earlier indices stay valid within the round.
        found.sort(key=lambda pm: [(-x if isinstance(x, int) else 0) for x in pm[0]])
        fixed = False
        for path, message in found:
            try:
                fixed = _fix(spec, path, message, unplaced) or fixed
            except (KeyError, IndexError, TypeError):
                continue
            if fixed:
                break
        if not fixed:
            return [f"{'.'.join(map(str, p))}: {m}" for p, m in found]
    return ["the spec could not be repaired"]
