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


def test_every_module_loaded_later_is_kept_for_offline_use() -> None:
    """A module the page imports only when needed is in the service worker's list, so that
    it loads offline too; but plain-http.js and awake.js, which are only ever needed where
    there is no service worker (no secure context)."""
    static = Path(__file__).parents[2] / "static"
    later = {
        name
        for script in static.glob("*.js")
        for name in re.findall(r'import\("\./([^"]+\.js)"\)', script.read_text(encoding="utf-8"))
    }
    kept = (static / "sw.js").read_text(encoding="utf-8")
    plain_http_only = {"plain-http.js", "awake.js"}
    assert later - plain_http_only
    assert [
        name for name in sorted(later - plain_http_only) if f'"/static/{name}"' not in kept
    ] == []
