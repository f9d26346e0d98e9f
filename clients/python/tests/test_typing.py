"""What a type checker makes of the clients' calls: upscale's overloads answer a Job when waiting and a create view
(or a replayed Job) otherwise, and refuse an option that does not exist or a value outside its literal type."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

CASES = Path(__file__).parent / "typing" / "upscale_calls.py"


def top_level_typeddicts(revealed: str) -> list[str]:
    """The TypedDicts a revealed type is a union of (not those nested in their fields)."""
    names, depth = [], 0
    for i, ch in enumerate(revealed):
        if depth == 0 and revealed.startswith("TypedDict(upscaler.types.", i):
            names.append(re.match(r"TypedDict\(upscaler\.types\.(\w+)", revealed[i:]).group(1))  # type: ignore[union-attr]
        depth += {"(": 1, "{": 1, "[": 1, ")": -1, "}": -1, "]": -1}.get(ch, 0)
    return names


def test_upscale_overloads_type_what_each_call_answers() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--hide-error-context", "--no-error-summary", str(CASES)],
        capture_output=True,
        text=True,
    )
    lines = [l for l in run.stdout.splitlines() if not l.startswith(" ") and "note:     def" not in l and "Possible overload" not in l]
    found: list[tuple[int, str]] = []
    for line in lines:
        m = re.match(r".*?:(\d+): (note|error): (.*)", line)
        if not m:
            continue
        at, kind, text = int(m.group(1)), m.group(2), m.group(3)
        if kind == "note":
            revealed = re.match(r'Revealed type is "(.*)"', text)
            if revealed:
                names = top_level_typeddicts(revealed.group(1))
                # a Job has every field of a create view, so mypy may simplify JobCreate | Job to JobCreate
                found.append((at, "JobCreate | Job" if "JobCreate" in names else " | ".join(names)))
        else:
            found.append((at, "error"))
    assert sorted(set(found)) == [
        (7, "Job"),
        (8, "JobCreate | Job"),
        (9, "Job"),
        (10, "error"),
        (11, "error"),
        (15, "Job"),
        (16, "JobCreate | Job"),
    ], run.stdout
