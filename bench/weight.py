"""What the main page loads before the first tap, and what that weighs as it travels.

One definition for the benchmark's report (bench/run.py) and
tests/integration/test_weight.py: the page, the files it names (styles, scripts, the
manifest), and the modules its scripts import, followed to the end; not the modules a
script loads only when first needed (``import("./ask.js")``).
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable

from counter.web.assets import IMPORT

ASSET = re.compile(r'(?:href|src)="(/(?:static/|manifest)[^"]*)"')


def loaded(get: Callable[[str], bytes]) -> dict[str, bytes]:
    """Each address the main page loads before the first tap, with its body; ``/`` first."""
    bodies = {"/": get("/")}
    waiting = ASSET.findall(bodies["/"].decode())
    while waiting:
        path = waiting.pop(0)
        if path in bodies:
            continue
        bodies[path] = get(path)
        if path.endswith(".js"):
            waiting += [f"/static/{name}" for name in IMPORT.findall(bodies[path].decode())]
    return bodies


def weight(bodies: dict[str, bytes]) -> tuple[int, int]:
    """Their bytes, and their bytes gzipped one by one, as each travels."""
    return sum(map(len, bodies.values())), sum(len(gzip.compress(b)) for b in bodies.values())
