"""The counter page's script travels as one file; its parts stay files of their own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from counter.web.assets import ENTRY, CannotBundle, _versions, bundle, script

STATIC = Path(__file__).parents[1] / "static"


def served(client: FlaskClient, path: str) -> str:
    with client.get(path) as response:
        assert response.status_code == 200, path
        return response.get_data(as_text=True)


def test_the_page_script_holds_the_modules_it_imports_in_the_order_they_run() -> None:
    assert list(bundle(STATIC)) == [
        "standing.js",
        "changes.js",
        "api.js",
        "sender.js",
        "outbox.js",
        "board.js",
        ENTRY,
    ]


def test_the_page_script_travels_with_no_import_of_its_own(client: FlaskClient) -> None:
    script = served(client, f"/static/{ENTRY}")
    assert "function fold(" in script  # standing.js
    assert "function enqueue(" in script  # outbox.js
    assert "function merge(" in script  # changes.js, which outbox.js imports
    assert "function draw(" in script  # board.js
    assert 'from"./' not in script


@pytest.mark.parametrize(
    "module", ["standing.js", "changes.js", "api.js", "sender.js", "outbox.js", "board.js"]
)
def test_a_module_of_the_page_script_asked_for_alone_is_that_script(
    client: FlaskClient, module: str
) -> None:
    """So that settings.js, loaded later, shares the page's one outbox and board."""
    assert served(client, f"/static/{module}") == f'export * from "./{ENTRY}";'


def test_a_module_loaded_later_travels_on_its_own(client: FlaskClient) -> None:
    script = served(client, "/static/settings.js")
    assert 'from"./board.js"' in script
    assert "function fold(" not in script


def write(folder: Path, **modules: str) -> Path:
    for name, text in modules.items():
        (folder / f"{name}.js").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("modules", "said"),
    [
        (
            {
                "counter": 'import { a } from "./one.js";\nconst b = a;\n',
                "one": "export const b = 1;\n",
            },
            "b is declared in one.js and in counter.js",
        ),
        (
            {"counter": 'import * as one from "./one.js";\n', "one": "export const a = 1;\n"},
            "only `import { … }",
        ),
        (
            {"counter": 'import { a as b } from "./one.js";\n', "one": "export const a = 1;\n"},
            "renamed with `as`",
        ),
        (
            {
                "counter": 'import { a } from "./one.js";\n',
                "one": 'export { b } from "./two.js";\n',
            },
            "only `import { … }",
        ),
        (
            {
                "counter": 'import { a } from "./one.js";\n',
                "one": 'export * as b from "./two.js";\n',
            },
            "only `import { … }",
        ),
        (
            {"counter": 'import "./one.js";\n', "one": "export const a = 1;\n"},
            "only `import { … }",
        ),
        (
            {
                "counter": 'import { a } from "./one.js";\n',
                "one": 'import { c } from "./counter.js";\n',
            },
            "import each other",
        ),
    ],
    ids=[
        "a name declared twice",
        "a namespace import",
        "a renamed import",
        "a re-export",
        "a namespace re-export",
        "an import for its effect",
        "a cycle",
    ],
)
def test_what_one_module_cannot_hold_is_said(
    tmp_path: Path, modules: dict[str, str], said: str
) -> None:
    with pytest.raises(CannotBundle, match=re.escape(said)):
        bundle(write(tmp_path, **modules))


def test_a_word_that_starts_with_import_in_a_comment_is_no_import(tmp_path: Path) -> None:
    write(tmp_path, counter="/*\nimportant: this says nothing\n*/\nconst a = 1;\n")
    assert list(bundle(tmp_path)) == [ENTRY]


def test_an_editors_hidden_file_beside_the_scripts_is_none_of_them(tmp_path: Path) -> None:
    """Emacs keeps a lock as a dangling link, .#counter.js, while the file is edited."""
    write(tmp_path, counter="const a = 1;\n")
    (tmp_path / ".#counter.js").symlink_to(tmp_path / "nowhere")
    assert [name for name, _time in _versions(tmp_path)] == [ENTRY]


def test_a_bundle_that_cannot_be_made_fails_the_page_script_alone(tmp_path: Path) -> None:
    write(tmp_path, counter='import * as one from "./one.js";\n', one="export const a = 1;\n")
    write(tmp_path, other="export const b = 2;\n")
    versions = _versions(tmp_path)
    assert script(tmp_path / "other.js", versions) == b"export const b=2;"
    with pytest.raises(CannotBundle):
        script(tmp_path / ENTRY, versions)
