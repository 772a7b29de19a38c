"""Build hook: compile the message catalogues (.po to .mo) into every wheel and editable install."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def compile_catalogues(translations: Path) -> list[Path]:
    """Write a .mo beside each .po below ``translations``; returns the .mo files."""
    compiled = []
    for po_path in sorted(translations.glob("*/LC_MESSAGES/messages.po")):
        with po_path.open("rb") as po_file:
            catalogue = read_po(po_file)
        mo_path = po_path.with_suffix(".mo")
        with mo_path.open("wb") as mo_file:
            write_mo(mo_file, catalogue)
        compiled.append(mo_path)
    return compiled


class CompileCatalogues(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        for mo_path in compile_catalogues(root / "counter" / "translations"):
            # .mo files are build products, ignored by git: include them explicitly.
            build_data["force_include"][str(mo_path)] = str(mo_path.relative_to(root))
