"""A page's further declarations as overloads of the main form: the main operands each passes (or
drops), the operands it adds, and the values the tests pass for those."""

from __future__ import annotations

from typing import Any

from ..spec.model import Targets
from .cpp import take_guard
from .forms import Form
from .operands import carried, enum_operand, match_names, operands_of_params
from .problem import ImportProblem

Rows = dict[str, dict[str, str]]


def read_overloads(
    forms: list[Form],
    intrinsic: dict[str, Any],
    operands: list[dict[str, Any]],
    rows: Rows,
    targets: Targets,
    unplaced: list[str],
) -> None:
    """Each further form the page declares, as an entry of `intrinsic["overloads"]`; a form that
    cannot be one is reported."""
    overloads = []
    for form in forms:
        try:
            overloads.append(overload(form, intrinsic, operands, rows, targets, unplaced))
        except ImportProblem as exc:
            unplaced.append(f"overload {form[3]}({', '.join(x['name'] for x in form[5])}) not kept: {exc}")
    if overloads:
        intrinsic["overloads"] = overloads


def overload(
    form: Form,
    main: dict[str, Any],
    operands: list[dict[str, Any]],
    rows: Rows,
    targets: Targets,
    unplaced: list[str],
) -> dict[str, Any]:
    """A further declaration: it carries the main operands and may add its own (scratch tiles,
    modes, a further result), described by the page's operand table. A parameter named as one of
    the main declaration's (`main`, the intrinsic) passes the same operand."""
    comment, _, _, _, template, params = form
    known = {o["name"] for o in operands}
    kinds = {o["name"]: o["kind"] for o in operands}
    tile_only = [t["name"] for t in template if t.pop("tile_only", False)]
    guard, before_pack = take_guard(template)
    # A form that waits on none of the main form's events (TSYNC's barrier) takes its own operand as
    # a template value instead.
    passed = {p.get("operand") for p in params}
    dropped = [n for n in known if kinds[n] == "events" and n not in passed]
    carried_own = _template_values(template, passed, kinds, main, bool(dropped), targets, rows)
    dropped += _pass_main_operands(form, main, operands, rows, targets)
    _check_kinds(params, kinds)
    match_names(
        [p for p in params if p.get("operand") not in known],
        {n: r for n, r in rows.items() if n not in known},
    )
    own = (
        operands_of_params([p for p in params if p.get("operand") not in known], targets, rows) + carried_own
    )
    ov: dict[str, Any] = {
        "summary": comment or "A further documented form.",
        "template": template,
        "params": params,
    }
    if dropped:
        ov["drops"] = dropped
    if tile_only:
        ov["tile_only"] = tile_only
    if guard:
        ov["guard"] = guard
    if before_pack:
        ov["guard_before_pack"] = True
    if not comment:
        unplaced.append("an overload has no summary comment: `A further documented form.` written")
    results = [o["name"] for o in own if o["role"] == "dst"]
    # A form that drops a main operand computes a result of its own (TGATHER's comparison form and
    # its counts), not the picked values of the main one's.
    if len(results) == 1 and not [n for n in dropped if kinds.get(n) == "tile"]:
        ov["value_output"] = results[0]  # a further result: the picked values of an arg-reduction
    if own:
        ov["operands"] = own
    test_args = _test_args([o for o in own if o not in carried_own], operands, params, targets, unplaced)
    if test_args:
        ov["test_args"] = test_args
    return ov


def _template_values(
    template: list[dict[str, Any]],
    passed: set[Any],
    kinds: dict[str, str],
    main: dict[str, Any],
    drops_events: bool,
    targets: Targets,
    rows: Rows,
) -> list[dict[str, Any]]:
    """Marks the template values that carry an operand; returns the operands of the form's own so
    carried (an op class without a default, TSYNC<Op>, in a form that waits on no events)."""
    enums = {e.name for e in targets.enums}
    main_targs = {t["name"] for t in main["template"]}
    carried_own: list[dict[str, Any]] = []
    for t in template:  # a scalar of the main form passed as a template value (TASSIGN<Addr>)
        name = carried(t)
        if name in kinds and name not in passed and kinds[name] == "scalar":
            t["operand"] = name
        elif (
            drops_events
            and name
            and name not in kinds
            and t["name"] not in main_targs
            and "default" not in t
            and t.get("type") in enums
        ):
            t["operand"] = name
            carried_own.append(enum_operand(name, t["type"], targets, rows))
    return carried_own


def _pass_main_operands(
    form: Form, main: dict[str, Any], operands: list[dict[str, Any]], rows: Rows, targets: Targets
) -> list[str]:
    """Points each parameter that passes a main operand at it; returns the main operands the form
    drops."""
    comment, _, _, _, template, params = form
    known = {o["name"] for o in operands}
    by_name = {p["name"]: p["operand"] for p in main["params"] if "operand" in p}
    for p in params:
        if p.get("operand") is not None and p["name"] in by_name:
            p["operand"] = by_name[p["name"]]
    # One main tile the overload passes under a name of its own (`dstIdx` for `dst`).
    passed_now = {p.get("operand") for p in params}
    missing = [o["name"] for o in operands if o["kind"] == "tile" and o["name"] not in passed_now]
    structs = {st.name for st in targets.structs}  # a struct parameter passes no main tile
    strays = [
        p
        for p in params
        if "operand" in p
        and "type" in p
        and p["type"] not in structs
        and "Global" not in p["type"]  # a tensor never passes a main tile
        and p["operand"] not in known | rows.keys()
    ]
    if len(strays) > 1:  # the comment names what the form adds (`dstVal`); the rest is a main one
        strays = [p for p in strays if f"`{p['name']}`" not in comment]
    if len(missing) == 1 and len(strays) == 1:
        strays[0]["operand"] = missing[0]
    elif len(missing) == 2 and len(strays) == 1:  # an in-place form (see `forms`): the first
        strays[0]["operand"] = missing[0]  # tile is passed, the second (its input) is dropped
        return [missing[1]]
    elif missing and not strays:
        # A form without some main operands (TSCATTER's mask form: `indexes`; TMRGSORT's lists:
        # `src` and `blockLen`), which it drops.
        values = {carried(t) for t in template}
        return [
            o["name"]
            for o in operands
            if o["kind"] in ("tile", "scalar") and o["name"] not in passed_now and o["name"] not in values
        ]
    return []


def _check_kinds(params: list[dict[str, Any]], kinds: dict[str, str]) -> None:
    """A parameter passes a main operand as what it is (a tile as a tile); a scalar may arrive as a tile."""
    for p in params:
        tile_param = "type" in p and not p.get("events")
        if tile_param and kinds.get(p.get("operand", "")) == "scalar":
            p["from_tile"] = True  # the scalar arrives as a tile (TCMPS's tile form reads its (0, 0))
            continue
        if p.get("operand") in kinds and tile_param != (kinds[p["operand"]] in ("tile", "global", "context")):
            raise ImportProblem(f"it passes {p['operand']} as a {'tile' if tile_param else 'scalar'}")


def _test_args(
    own: list[dict[str, Any]],
    operands: list[dict[str, Any]],
    params: list[dict[str, Any]],
    targets: Targets,
    unplaced: list[str],
) -> dict[str, str]:
    """The value the tests pass for each operand a form adds as a function parameter (a template
    argument takes the enum's first value, a struct the tests declare), each reported as a guess."""
    test_args = {}
    for o in own:
        if o["kind"] in ("context", "tile"):
            continue
        if o["kind"] == "attr":
            enum = next((e for e in targets.enums if e.name == o["enum"]), None)
            if enum is None:
                raise ImportProblem(
                    f"overload operand {o['name']} takes {o['enum']}, no enum of targets.yaml"
                )
            test_args[o["name"]] = f"{o['enum']}::{enum.values[0]}"
        elif o["kind"] == "global":
            other = next((x["name"] for x in operands if x["kind"] == "global"), None)
            if other is None:  # none to stand in: the spec check asks for one unless the kind plans it
                continue
            test_args[o["name"]] = other
        else:
            vtype = next(p.get("value_type") for p in params if p.get("operand") == o["name"])
            if vtype == "bool":
                test_args[o["name"]] = "false"
            elif targets.has_dtype(str(vtype)) and targets.dtype(str(vtype)).kind != "float":
                test_args[o["name"]] = "0"  # an integer parameter, e.g. TSTORE's preQuantScalar
            else:
                raise ImportProblem(f"no test value can be written for the {vtype} operand {o['name']}")
        unplaced.append(f"test value of the overload operand {o['name']} guessed: {test_args[o['name']]}")
    return test_args
