"""How an op is spelled in C++: the types and arguments of its check, verify and simulator
functions and of the vector header, and the C++ of its element semantics.

One of the lowering's outputs (as torchgen's `api/cpp.py` spells a native function for C++):
templates reach it as `op.cpp`. It reads only the op's semantic core (`kind_api.OpViewAPI`).
The declarations of the intrinsic itself are spelled by `views.FormView`, one per form.
"""

from __future__ import annotations

from typing import Any

from ..kind_api import OpViewAPI
from ..rules.parts import TypeListing, part, when_values
from ..spec import expr as semantics


def tparam_decl(kind: str, name: str, vtype: str | None) -> str:
    """A template parameter declaration: `typename T`, `typename... Ts` or `int N`."""
    if kind == "pack":
        return f"typename... {name}"
    if kind == "value":
        return f"{vtype} {name}"
    return f"typename {name}"


class OpCpp:
    """The C++ spellings of one op (`op.cpp`)."""

    def __init__(self, op: OpViewAPI):
        self.op = op

    def type_of(self, operand: str) -> str:
        """The C++ type of an operand inside check/verify functions."""
        if self.op.spec.intrinsic is None:
            return f"V_{operand}"
        if operand == self.op.spec.intrinsic.tmp_in_events:
            return "TmpT"
        for p in self.op.spec.intrinsic.params:
            if p.operand == operand:
                return p.type or p.value_type or f"typename {p.dtype_of}::DType"
        raise KeyError(operand)

    def dtype_of(self, operand: str) -> str:
        """C++ spelling of an operand's element type inside the check function."""
        if self.op.operand(operand).kind == "scalar":
            return self.type_of(operand)
        return f"typename {self.type_of(operand)}::DType"

    @property
    def check_template(self) -> list[str]:
        """Template parameter declarations of the profile check function."""
        if self.op.spec.intrinsic is None:
            return [f"typename V_{o.name}" for o in self.op.operands if o.kind == "vreg"]
        # The checks live in namespace pto: a value parameter of an op declared apart (pto::comm's
        # `DmaEngine engine`) is taken as `auto`, which needs no name from that namespace.
        apart = self.op.iset.namespace is not None
        return [
            tparam_decl(t.kind, t.name, "auto" if apart else t.type) for t in self.op.spec.intrinsic.template
        ]

    @property
    def check_args(self) -> list[str]:
        """Arguments that instantiate the check function from the intrinsic's scope."""
        if self.op.spec.intrinsic is None:
            return ["vreg<T, N>" for o in self.op.operands if o.kind == "vreg"]
        return [f"{t.name}..." if t.kind == "pack" else t.name for t in self.op.spec.intrinsic.template]

    @property
    def verify_types(self) -> list[str]:
        """Distinct template types of the tile operands, for the run-time verify function."""
        out: list[str] = []
        for o in self.op.tiles:
            t = self.type_of(o)
            if t not in out:
                out.append(t)
        return out

    @property
    def dependent_type(self) -> str:
        """A type template parameter, to make an always-false static_assert dependent."""
        if self.op.spec.intrinsic is None:
            return self.check_args[0]
        return next(t.name for t in self.op.spec.intrinsic.template if t.kind == "typename")

    def _arg_name(self, operand: str) -> str:
        by_operand = (
            {p.operand: p.name for p in self.op.spec.intrinsic.params} if self.op.spec.intrinsic else {}
        )
        return by_operand.get(operand, operand)

    @property
    def verify_args(self) -> list[str]:
        return [self._arg_name(o) for o in self.op.tiles]

    @property
    def impl_args(self) -> list[str]:
        """Arguments of the simulator implementation: the domain operand, then what the math reads."""
        return [self._arg_name(n) for n in (self.op.domain, *self.op.read_operands)]

    @property
    def vector_outputs(self) -> list[dict[str, str]]:
        """Results of a vector op: the domain first, then extra outputs, with their C++ and numpy math."""
        if not self.op.kind.lanes:
            return []
        outs = [(self.op.domain, self.op.loaded.expr)] + list(self.op.extra_exprs.items())
        return [
            {
                "name": name,
                "kind": self.op.operand(name).kind,
                "type": "pto::vreg<T, N>" if self.op.operand(name).kind == "vreg" else "pto::mask<N>",
                # A reduction's C++ is its kind's fold (pto/vsim/reduce.hpp), not a lane expression.
                "cpp": "" if self.op.lane_fold is not None else self.expr_of(node),
                "numpy": semantics.to_numpy(node, self.op.enums_of, self.op.kind.reduce_axis(self.op)),
            }
            for name, node in outs
        ]

    @property
    def vector_return(self) -> str:
        types = [o["type"] for o in self.vector_outputs]
        return types[0] if len(types) == 1 else f"std::tuple<{', '.join(types)}>"

    @property
    def vector_params(self) -> list[str]:
        """Parameters of a vector op's C++ function, in operand order (dst first when merged)."""
        params = []
        if self.op.spec.semantics.inactive_lanes == "preserve":
            params.append(f"const vreg<T, N>& {self.op.domain}_in")
        for o in self.op.operands:
            if o.role == "dst":
                continue
            spelled = {"vreg": "const vreg<T, N>&", "scalar": "T", "mask": "const mask<N>&"}[o.kind]
            params.append(f"{spelled} {o.name}")
        return params

    @property
    def builtin_params(self) -> list[dict[str, Any]]:
        """Operands of the op's builtin in the order A5 code passes them: predicate results (a
        carry), then register results, then the sources in spec order, the predicate last; each with
        its name, kind and template parameter (sources and results are any register image), and whether
        it is only a shift's count (integers of the result's width, of either signedness)."""
        ops = self.op.operands
        dsts = [o for o in ops if o.role == "dst"]
        order = [o for o in dsts if o.kind == "mask"] + [o for o in dsts if o.kind != "mask"]
        order += [o for o in ops if o.role not in ("dst", "mask")] + [o for o in ops if o.role == "mask"]
        counts = semantics.shift_counts(self.op.loaded.expr) if self.op.kind.lanes else set()
        return [
            {
                "name": o.name,
                "kind": o.kind,
                "role": o.role,
                "tparam": f"A_{o.name}",
                "count": o.name in counts,
            }
            for o in order
        ]

    @property
    def on_pattern(self) -> bool:
        """Whether the builtin's lanes compute on the elements' bit patterns (a bitwise expression)."""
        return self.op.lane_fold is None and semantics.bitwise(self.op.loaded.expr)

    def builtin_checks(self, profile: str, asm: dict[str, str]) -> list[dict[str, str]]:
        """The element-type rules a profile enforces on the builtin, each as its id, the register
        kinds it admits (`pto::vsim::<asm>`) and the message the profile's own check gives."""
        out = []
        for rv in self.op.rules_for(profile, static=True):
            listing = part(rv.rule, TypeListing)
            dtypes: list[str] = []
            for o in rv.rule.rule_operands:
                for d in listing.operand_dtypes(rv, o, when_values(rv.rule)) or []:
                    if d not in dtypes:
                        dtypes.append(d)
            if dtypes:
                kinds = ", ".join(f"pto::vsim::{asm[d]}" for d in dtypes if d in asm)
                out.append({"id": rv.id, "kinds": kinds, "message": rv.message(profile)})
        return out

    def element_at(self, operand: str) -> tuple[str, str]:
        """Row and column (C++, over loop indices r and c) of the element a tile operand supplies."""
        broadcast = self.op.operand(operand).broadcast
        return {"per_row": ("r", "0"), "per_col": ("0", "c")}.get(broadcast or "", ("r", "c"))

    @property
    def roles(self) -> list[dict[str, Any]]:
        """The operand roles the simulator tells apart at run time, each with the C++ condition that
        selects it (None: the remaining one), a name suffix, and the row and column each tile operand
        is read at. One role unless a broadcast operand names a `broadcast_swap` partner: then the
        documented role (the partner full-sized, taken when it has the destination's valid shape)
        and the swapped one. A per-row operand of such an op is read at column `c % w` (w its valid
        columns, hoisted as `<name>_w`), which is column 0 for one column."""
        at = {o.name: self.element_at(o.name) for o in self.op.operands if o.kind == "tile"}
        pair = next(((o.name, o.broadcast_swap) for o in self.op.operands if o.broadcast_swap), None)
        if pair is None:
            return [{"name": "", "condition": None, "at": at, "blocks": []}]
        bcast, full = pair
        dst = self.op.domain
        same = f"{full}.GetValidRow() == {dst}.GetValidRow() && {full}.GetValidCol() == {dst}.GetValidCol()"

        def role(name: str, cond: str | None, per_row: str, whole: str) -> dict[str, Any]:
            return {
                "name": name,
                "condition": cond,
                "at": {**at, per_row: ("r", f"c % {per_row}_w"), whole: ("r", "c")},
                "blocks": [per_row],
            }

        return [role("_documented", same, bcast, full), role("_swapped", None, full, bcast)]

    @property
    def _element_exprs(self) -> list[Any]:
        """The op's element expressions: the main declaration's and each expression form's."""
        exprs = [self.op.loaded.expr, *(f.expr for f in self.op.expr_forms)]
        return [e for e in exprs if e is not None]

    @property
    def stored_operands(self) -> list[str]:
        """The operands an element expression reads as stored (`as_source(x)`): the simulator reads
        them as `<name>_s` in their element type's compute type `U` and computes x there, the first
        one's element type being `S`."""
        return list(dict.fromkeys(n for e in self._element_exprs for n in semantics.stored_operands(e)))

    @property
    def stored_only(self) -> list[str]:
        """The stored operands no element expression reads outside `as_source(...)`: the simulator
        reads them as stored only."""
        outside = {n for e in self._element_exprs for n in semantics.names_outside_as_source(e)}
        return [n for n in self.stored_operands if n not in outside]

    @property
    def flat_runs(self) -> bool:
        """Whether the simulator walks a valid region spanning whole rows of row-major tiles as one
        contiguous run: every tile the element math reads is read at (r, c) as a plain element (no
        broadcast, no packed bits), and the math makes a library call per element. A call-bound loop
        per row lost up to 1.5x to a single loop (TFMOD, TREM, TEXP on x86-64); vectorised math is
        as fast or faster per row, so it keeps that loop."""
        tiles = [n for n in self.op.value_operands if self.op.operand(n).kind == "tile"]
        plain = all(self.element_at(n) == ("r", "c") and not self.op.operand(n).packed for n in tiles)
        return plain and any(semantics.uses_function(self.op.loaded.expr, f) for f in semantics.LIBRARY_CALLS)

    def _max_min_operands(self) -> tuple[str, list[str], list[str]] | None:
        """("true" for max / "false" for min, the two operand names, their kinds) when the whole
        element expression is `max`/`min` of two distinct operands other than the domain, each
        tile among them plain and read at (r, c); else None."""
        node = self.op.loaded.expr
        if node.op != "call" or node.value not in ("max", "min") or len(node.args) != 2:
            return None
        names = [str(a.value) for a in node.args if a.op == "name"]
        if len(names) != 2 or names[0] == names[1] or self.op.domain in names:
            return None
        kinds: list[str] = [self.op.operand(n).kind for n in names]
        for n, kind in zip(names, kinds, strict=True):
            if kind == "tile" and (self.op.operand(n).packed or self.element_at(n) != ("r", "c")):
                return None
        return ("true" if node.value == "max" else "false"), names, kinds

    @property
    def max_min_select(self) -> dict[str, str] | None:
        """For `max(a, b)` or `min(a, b)` of two distinct tile operands read at (r, c): the row loop
        first selects with one compare per element (`sim::max_min_select`, one maxps/minps per
        vector) and redoes a row with the exact `sim::maximum`/`minimum` only when an element of `a`
        was a NaN or a zero, the only cases the select can get wrong (`sim::max_min_unsure`). The
        exact form alone is eight vector instructions per vector. None for any other expression."""
        found = self._max_min_operands()
        if found is None or found[2] != ["tile", "tile"]:
            return None
        pick, names, _ = found
        return {"pick_max": pick, "first": names[0], "second": names[1]}

    @property
    def max_min_kernel(self) -> dict[str, str] | None:
        """For `max(a, b)`/`min(a, b)` of a tile read at (r, c) and a second such tile or a scalar:
        the float tile goes to `sim::maxmin::tile`/`tile_scalar` (sim_maxmin.hpp), which computes
        IEEE maximum/minimum sixteen lanes at a time where the machine has AVX-512DQ and otherwise
        leaves the tile to the generated loops. None for any other expression."""
        found = self._max_min_operands()
        if found is None:
            return None
        pick, names, kinds = found
        if kinds == ["tile", "tile"]:
            return {"fn": "tile", "pick_max": pick, "tiles": ",".join(names), "scalar": ""}
        if kinds == ["tile", "scalar"]:
            return {"fn": "tile_scalar", "pick_max": pick, "tiles": names[0], "scalar": names[1]}
        return None

    @property
    def vector_param_names(self) -> list[str]:
        return [p.rsplit(" ", 1)[1] for p in self.vector_params]

    @property
    def expr(self) -> str:
        return self.expr_of(self.op.loaded.expr)

    def expr_of(self, expr: semantics.Node) -> str:
        """C++ of an expression over `<operand>_v` element values in the compute type `C`."""
        return semantics.to_cpp(expr, lambda n: f"{n}_v", "C", self.op.enums_of, self.op.varying_operands)
