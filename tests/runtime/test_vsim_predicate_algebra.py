"""The predicate builtins (pto/vsim/predicate.hpp) against a model of the pages in Python: every
pattern at every lane width, plt's first-n lanes and post-update, the bitwise algebra under a
governing predicate, psel, ppack/punpack of each half, (de)interleaving at each width, and the loads
and stores of each distribution, offset form and post-update, on random 256-bit images. One program
serves every case: it reads requests on stdin and prints each result's bits, so the cases cost one
compile per compiler."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_program, require

PROGRAM = r"""
#include <pto/vsim/predicate.hpp>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

static vector_bool read_pred(const std::string& hex) {
    vector_bool p{};
    for (int i = 0; i < pto::vsim::PL; ++i)
        p.bits[i] = static_cast<unsigned char>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
    return p;
}

static void print(const vector_bool& p) {
    for (int i = 0; i < pto::vsim::PL; ++i)
        std::printf("%02x", p.bits[i]);
}

static pred_pattern_t pattern_named(const std::string& name) {
    static const struct { const char* name; pred_pattern_t token; } tokens[] = {
        {"PAT_ALL", PAT_ALL}, {"PAT_ALLF", PAT_ALLF}, {"PAT_VL1", PAT_VL1}, {"PAT_VL2", PAT_VL2},
        {"PAT_VL3", PAT_VL3}, {"PAT_VL4", PAT_VL4}, {"PAT_VL8", PAT_VL8}, {"PAT_VL16", PAT_VL16},
        {"PAT_VL32", PAT_VL32}, {"PAT_VL64", PAT_VL64}, {"PAT_VL128", PAT_VL128}, {"PAT_M3", PAT_M3},
        {"PAT_M4", PAT_M4}, {"PAT_H", PAT_H}, {"PAT_Q", PAT_Q},
    };
    for (const auto& t : tokens)
        if (name == t.name)
            return t.token;
    std::fprintf(stderr, "unknown pattern %s\n", name.c_str());
    std::exit(2);
}

static pred_dist_t dist_named(const std::string& name) {
    if (name == "NORM")
        return NORM;
    return name == "PK" ? PK : name == "US" ? US : DS;
}

// A store into, or a load from, 128 bytes of UB; `name` picks the builtin and its offset's form.
static void transfer(const std::string& op, const std::string& name, const std::string& dist, int off,
                     const std::string& data) {
    alignas(32) static uint32_t ub[32];
    std::memset(ub, 0, sizeof ub);
    uint32_t* base = ub;
    vector_address areg{};
    areg.offset = off;
    const pred_dist_t d = dist_named(dist);
    if (op == "st") {
        const vector_bool p = read_pred(data);
        if (name == "psts") psts(p, base, off, d);
        else if (name == "psti") psti(p, base, off, d);
        else if (name == "pst") pst(p, base, areg, d);
        else if (name == "psts_post") psts(p, base, off, d, POST_UPDATE);
        else psti(p, base, off, d, POST_UPDATE);
        const auto* bytes = reinterpret_cast<const unsigned char*>(ub);
        for (std::size_t i = 0; i < sizeof ub; ++i)
            std::printf("%02x", bytes[i]);
    } else {
        auto* bytes = reinterpret_cast<unsigned char*>(ub);
        for (std::size_t i = 0; i < sizeof ub; ++i)
            bytes[i] = static_cast<unsigned char>(std::stoul(data.substr(2 * i, 2), nullptr, 16));
        vector_bool p;
        if (name == "plds") plds(p, base, off, d);
        else if (name == "pldi") pldi(p, base, off, d);
        else if (name == "pld") pld(p, base, areg, d);
        else if (name == "plds_post") plds(p, base, off, d, POST_UPDATE);
        // the distribution as a constant of the device's `Dist`, as TSel.hpp passes it
        else if (name == "plds_const" && dist == "US")
            plds(p, base, off, std::integral_constant<::Dist, Dist::DIST_US>());
        else if (name == "plds_const")
            plds(p, base, off, std::integral_constant<::Dist, Dist::DIST_NORM>());
        else pldi(p, base, off, d, POST_UPDATE);
        print(p);
    }
    const auto moved = reinterpret_cast<unsigned char*>(base) - reinterpret_cast<unsigned char*>(ub);
    std::printf(" %d", static_cast<int>(moved));
}

// One request per line: an op, its lane width in bytes where it has one, then its arguments. With an
// argument, the program makes the one call that named argument stands for (the refused forms).
int main(int argc, char** argv) {
    const std::string refused = argc > 1 ? argv[1] : "";
    alignas(32) static uint32_t ub[16] = {};
    vector_bool any{};
    if (refused == "DS") plds(any, ub, 0, DS);
    if (refused == "US") psts(any, ub, 0, US);
    if (refused == "pstu") {
        vector_align state;
        uint32_t* at = ub;
        pstu(state, any, at);
    }
    if (!refused.empty()) {
        std::puts("survived");
        return 0;
    }
    std::string op;
    while (std::cin >> op) {
        int width = 0;
        std::string a, b, c;
        if (op == "st" || op == "ld") {
            int off = 0;
            std::cin >> a >> b >> off >> c;
            transfer(op, a, b, off, c);
        } else if (op == "pset" || op == "pge") {
            std::cin >> width >> a;
            const pred_pattern_t p = pattern_named(a);
            const vector_bool r = op == "pset"
                ? (width == 1 ? pset_b8(p) : width == 2 ? pset_b16(p) : pset_b32(p))
                : (width == 1 ? pge_b8(p) : width == 2 ? pge_b16(p) : pge_b32(p));
            print(r);
        } else if (op == "plt") {
            uint32_t n = 0;
            std::cin >> width >> n;
            const vector_bool r = width == 1 ? plt_b8(n, POST_UPDATE)
                                  : width == 2 ? plt_b16(n, POST_UPDATE) : plt_b32(n, POST_UPDATE);
            print(r);
            std::printf(" %u", n);
        } else if (op == "pand" || op == "por" || op == "pxor" || op == "psel") {
            std::cin >> a >> b >> c;
            vector_bool r;
            r.bits[0] = 0x5a;  // the builtin writes every bit of its destination
            auto f = op == "pand" ? pand : op == "por" ? por : op == "pxor" ? pxor : psel;
            f(r, read_pred(a), read_pred(b), read_pred(c));
            print(r);
        } else if (op == "pnot") {
            std::cin >> a >> b;
            vector_bool r;
            pnot(r, read_pred(a), read_pred(b));
            print(r);
        } else if (op == "ppack" || op == "punpack") {
            std::cin >> a >> b;
            vector_bool r = read_pred(a);  // in place, as A5 code calls it: ppack(result, result, LOWER)
            (op == "ppack" ? ppack : punpack)(r, r, b == "LOWER" ? LOWER : HIGHER);
            print(r);
        } else if (op == "pintlv" || op == "pdintlv") {
            std::cin >> width >> a >> b;
            vector_bool lo, hi;
            const bool in = op == "pintlv";
            auto f = width == 1 ? (in ? pintlv_b8 : pdintlv_b8)
                     : width == 2 ? (in ? pintlv_b16 : pdintlv_b16) : (in ? pintlv_b32 : pdintlv_b32);
            f(lo, hi, read_pred(a), read_pred(b));
            print(lo);
            std::printf(" ");
            print(hi);
        } else {
            std::fprintf(stderr, "unknown op %s\n", op.c_str());
            return 2;
        }
        std::printf("\n");
    }
    return 0;
}
"""

BITS = 256  # one predicate bit per register byte
WIDTHS = (1, 2, 4)  # bytes per lane: b8, b16, b32
PATTERNS = (
    "PAT_ALL",
    "PAT_ALLF",
    "PAT_VL1",
    "PAT_VL2",
    "PAT_VL3",
    "PAT_VL4",
    "PAT_VL8",
    "PAT_VL16",
    "PAT_VL32",
    "PAT_VL64",
    "PAT_VL128",
    "PAT_M3",
    "PAT_M4",
    "PAT_H",
    "PAT_Q",
)

Pred = list[bool]


def hexed(p: Pred) -> str:
    return bytes(sum(p[8 * i + k] << k for k in range(8)) for i in range(BITS // 8)).hex()


def from_lanes(lanes: list[bool], width: int) -> Pred:
    """A predicate whose lane i (of `width` bits) is all set or all clear."""
    return [lanes[k // width] for k in range(BITS)]


def pattern(width: int, name: str) -> Pred:
    """The lanes the pattern names, as the spec's constraints say."""
    n = BITS // width
    first: dict[str, range] = {
        "PAT_ALL": range(n),
        "PAT_ALLF": range(0),
        "PAT_M3": range(n - n % 3),
        "PAT_M4": range(n - n % 4),
        "PAT_H": range(n // 2, n),
        "PAT_Q": range(n - n // 4, n),
    }
    if name.startswith("PAT_VL"):
        count = int(name.removeprefix("PAT_VL"))
        first[name] = range(count if count <= n else 0)  # longer than the register: no lane
    return from_lanes([i in first[name] for i in range(n)], width)


def lanes_of(p: Pred, width: int) -> list[Pred]:
    return [p[i * width : (i + 1) * width] for i in range(BITS // width)]


def interleave(width: int, a: Pred, b: Pred) -> tuple[Pred, Pred]:
    seq = [lane for pair in zip(lanes_of(a, width), lanes_of(b, width), strict=True) for lane in pair]
    flat = [bit for lane in seq for bit in lane]
    return flat[:BITS], flat[BITS:]


def deinterleave(width: int, a: Pred, b: Pred) -> tuple[Pred, Pred]:
    seq = lanes_of(a, width) + lanes_of(b, width)
    return [bit for lane in seq[0::2] for bit in lane], [bit for lane in seq[1::2] for bit in lane]


def pack(src: Pred, part: str) -> Pred:
    """Lane i at two bits -> lane i at one bit, in the chosen half; the other half clear."""
    half = [src[2 * k] for k in range(BITS // 2)]
    empty = [False] * (BITS // 2)
    return half + empty if part == "LOWER" else empty + half


def unpack(src: Pred, part: str) -> Pred:
    half = src[: BITS // 2] if part == "LOWER" else src[BITS // 2 :]
    return [half[k // 2] for k in range(BITS)]


UB = 128  # bytes of the buffer a transfer case stores into or loads from


def stored(name: str, dist: str, off: int, p: Pred) -> str:
    """The buffer after a store, then how far the pointer moved (POST_UPDATE forms)."""
    at = off if name.startswith("psts") else 8 * off  # psts: bytes; psti, pst: 8-byte units
    post = name.endswith("_post")
    if dist == "NORM":
        data = bytes.fromhex(hexed(p))
    else:  # PK: bit 2k -> bit k, 16 bytes
        data = bytes.fromhex(hexed([p[2 * k] for k in range(BITS // 2)] + [False] * (BITS // 2)))[:16]
    buf = bytearray(UB)
    start = 0 if post else at
    buf[start : start + len(data)] = data
    return f"{buf.hex()} {at if post else 0}"


def loaded(name: str, dist: str, off: int, buf: bytes) -> str:
    at = off if name.startswith("plds") else 8 * off  # plds: bytes; pldi, pld: 8-byte units
    post = name.endswith("_post")
    start = 0 if post else at
    bits = [bool(buf[start + k // 8] >> (k % 8) & 1) for k in range(BITS)]
    p = bits if dist == "NORM" else [bits[k // 2] for k in range(BITS)]  # US: 16 bytes, each bit doubled
    return f"{hexed(p)} {at if post else 0}"


def transfer_cases(rng: random.Random) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for _ in range(4):
        p = [rng.random() < 0.5 for _ in range(BITS)]
        buf = bytes(rng.randrange(256) for _ in range(UB))
        for name, off in (("psts", 40), ("psti", 5), ("pst", 3), ("psts_post", 24), ("psti_post", 2)):
            for dist in ("NORM", "PK"):
                out.append((f"st {name} {dist} {off} {hexed(p)}", stored(name, dist, off, p)))
        loads = (("plds", 48), ("pldi", 7), ("pld", 2), ("plds_post", 16), ("pldi_post", 3))
        for name, off in (*loads, ("plds_const", 32)):
            for dist in ("NORM", "US"):
                out.append((f"ld {name} {dist} {off} {buf.hex()}", loaded(name, dist, off, buf)))
    return out


def cases() -> list[tuple[str, str]]:
    """(request, expected reply) pairs."""
    rng = random.Random(20260601)

    def rand() -> Pred:
        return [rng.random() < 0.5 for _ in range(BITS)]

    out: list[tuple[str, str]] = []
    for w in WIDTHS:
        for name in PATTERNS:
            out.append((f"pset {w} {name}", hexed(pattern(w, name))))
            out.append((f"pge {w} {name}", hexed(pattern(w, name))))
        lanes = BITS // w
        for n in (0, 1, 3, lanes - 1, lanes, lanes + 1, 2 * lanes + 5, 1000, 0xFFFFFFFF):
            taken = min(n, lanes)
            out.append(
                (f"plt {w} {n}", f"{hexed(from_lanes([i < taken for i in range(lanes)], w))} {n - taken}")
            )
    for _ in range(12):
        a, b, m = rand(), rand(), rand()
        out.append(
            (f"pand {hexed(a)} {hexed(b)} {hexed(m)}", hexed([x and y for x, y in zip(a, b, strict=True)]))
        )
        out.append(
            (f"por {hexed(a)} {hexed(b)} {hexed(m)}", hexed([x or y for x, y in zip(a, b, strict=True)]))
        )
        out.append(
            (f"pxor {hexed(a)} {hexed(b)} {hexed(m)}", hexed([x != y for x, y in zip(a, b, strict=True)]))
        )
        out.append((f"pnot {hexed(a)} {hexed(m)}", hexed([not x for x in a])))
        sel = [x if s else y for x, y, s in zip(a, b, m, strict=True)]
        out.append((f"psel {hexed(a)} {hexed(b)} {hexed(m)}", hexed(sel)))
        for part in ("LOWER", "HIGHER"):
            out.append((f"ppack {hexed(a)} {part}", hexed(pack(a, part))))
            out.append((f"punpack {hexed(a)} {part}", hexed(unpack(a, part))))
        for w in WIDTHS:
            lo, hi = interleave(w, a, b)
            out.append((f"pintlv {w} {hexed(a)} {hexed(b)}", f"{hexed(lo)} {hexed(hi)}"))
            lo, hi = deinterleave(w, a, b)
            out.append((f"pdintlv {w} {hexed(a)} {hexed(b)}", f"{hexed(lo)} {hexed(hi)}"))
    return out + transfer_cases(rng)


@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_program(require(request.param), PROGRAM, tmp_path_factory.mktemp("vsim_pa"), "pa")


def test_every_predicate_builtin_matches_the_pages(program: Path) -> None:
    planned = cases()
    run = subprocess.run(
        [str(program)],
        input="\n".join(r for r, _ in planned) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    replies = run.stdout.splitlines()
    assert len(replies) == len(planned)
    wrong = [
        f"{r.split()[0]} #{k}: got {got}, expected {want}"
        for k, ((r, want), got) in enumerate(zip(planned, replies, strict=True))
        if got != want
    ]
    assert not wrong, f"{len(wrong)} of {len(planned)} differ:\n" + "\n".join(wrong[:5])


def test_the_a5_call_shapes_give_the_lanes_their_code_expects() -> None:
    """The model's own reading of two A5 idioms: two packs of a b32 predicate give one bit per lane
    (Int64Binary.hpp), and pdintlv_b8 of two b32 predicates gives one b16 predicate of both
    (TCmp.hpp), so the C++ checked above against the model serves those call sites."""
    rng = random.Random(7)
    lanes = [rng.random() < 0.5 for _ in range(64)]
    b32 = from_lanes(lanes, 4)
    assert pack(pack(b32, "LOWER"), "LOWER") == from_lanes(lanes + [False] * 192, 1)
    more = [rng.random() < 0.5 for _ in range(64)]
    even, _ = deinterleave(1, b32, from_lanes(more, 4))
    assert even == from_lanes(lanes + more, 2)
    assert unpack(from_lanes(lanes + more, 2), "LOWER") == b32


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ("DS", "plds: the simulation loads NORM and US (the pages do not say what DS loads)"),
        ("US", "psts: a store distribution is NORM or PK"),
        ("pstu", "pstu: the simulation has no streaming predicate store (its page defines none)"),
    ],
)
def test_a_transfer_the_pages_leave_undefined_stops_the_program(
    program: Path, form: str, message: str
) -> None:
    run = subprocess.run([str(program), form], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "survived" not in run.stdout
    assert run.stderr == f"PTO runtime error: {message}\n"
