"""The page's scripts as files: which modules the counter page's script imports (and so
preloads), and which modules loaded later are kept for offline use. (The scripts as they
are served: tests/integration/test_assets.py and test_weight.py.)"""

from __future__ import annotations

import re
from pathlib import Path

from counter.web.assets import imported

STATIC = Path(__file__).parents[2] / "static"


def test_a_module_loaded_when_first_needed_is_not_preloaded() -> None:
    assert "settings.js" not in imported(STATIC, "counter.js")


def test_every_module_the_counter_page_runs_is_kept_for_offline_use() -> None:
    """The modules counter.js imports, those it loads when first needed and theirs are in
    the service worker's list, so that the page's script runs offline; but plain-http.js and
    awake.js, which are only ever needed where there is no service worker (no secure
    context)."""
    later = {
        name
        for script in STATIC.glob("*.js")
        for name in re.findall(r'import\("\./([^"]+\.js)"\)', script.read_text(encoding="utf-8"))
    } - {"plain-http.js", "awake.js"}
    assert later
    needed = {"counter.js", *imported(STATIC, "counter.js")}
    for name in later:
        needed |= {name, *imported(STATIC, name)}
    kept = set(re.findall(r'"/static/([\w-]+\.js)"', (STATIC / "sw.js").read_text("utf-8")))
    assert sorted(needed - kept) == []
