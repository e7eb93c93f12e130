"""The import diff: creates, updates per mode, renames, alias changes, deletes, mappings and conflict policies."""

from __future__ import annotations

import pytest

from design_console.tokens.diff import Change, DiffOptions, OnConflict, diff
from design_console.tokens.model import Alias, Collection, Token, TokenSet, from_variables, to_variables
from design_console.tokens.values import Color

RED = Color(1, 0, 0)
BLUE = Color(0, 0, 1)


def design() -> TokenSet:
    return TokenSet(
        [
            Collection(
                "Core",
                ["light", "dark"],
                [
                    Token("color/red", "color", {"light": RED, "dark": RED}),
                    Token("color/blue", "color", {"light": BLUE, "dark": Color(0, 0, 0.5)}),
                    Token("space/s", "dimension", {"light": 4.0, "dark": 4.0}),
                    Token("space/m", "dimension", {"light": 8.0, "dark": 8.0}),
                    Token("link", "color", {"light": Alias("color/blue", "Core"), "dark": Alias("color/blue", "Core")}),
                ],
            )
        ]
    )


def code() -> TokenSet:
    """The design set after a code change: a new token, a changed dark value, a renamed token, a changed alias,
    a deleted token (space/s)."""
    return TokenSet(
        [
            Collection(
                "Core",
                ["light", "dark"],
                [
                    Token("color/red", "color", {"light": RED, "dark": Color(0.5, 0, 0)}),
                    Token("color/ocean", "color", {"light": BLUE, "dark": Color(0, 0, 0.5)}),
                    Token("space/m", "dimension", {"light": 8.0, "dark": 8.0}),
                    Token("space/l", "dimension", {"light": 16.0, "dark": 16.0}),
                    Token("link", "color", {"light": Alias("color/ocean", "Core"), "dark": Alias("color/red", "Core")}),
                ],
            )
        ]
    )


def by_kind(changes: list[Change]) -> dict[str, list[Change]]:
    out: dict[str, list[Change]] = {}
    for c in changes:
        out.setdefault(c.kind, []).append(c)
    return out


def test_every_kind_of_change_is_found() -> None:
    result = diff(code(), design(), DiffOptions(on_conflict="code-wins"))
    kinds = by_kind(result.changes)
    assert result.counts == {"update": 1, "rename": 1, "create": 1, "alias": 1, "delete": 1}
    (update,) = kinds["update"]
    assert (update.name, [(v.mode, v.before, v.after) for v in update.values]) == (
        "color/red",
        [("dark", RED, Color(0.5, 0, 0))],
    )
    (rename,) = kinds["rename"]
    assert (rename.from_name, rename.name, rename.action) == ("color/blue", "color/ocean", "apply")
    (create,) = kinds["create"]
    assert (create.name, create.type, create.action) == ("space/l", "dimension", "apply")
    # The light alias points at the renamed token: not a change; the dark one now points elsewhere.
    (alias,) = kinds["alias"]
    assert [(v.mode, v.before, v.after) for v in alias.values] == [
        ("dark", Alias("color/ocean", "Core"), Alias("color/red", "Core"))
    ]
    (delete,) = kinds["delete"]
    assert (delete.name, delete.action) == ("space/s", "list")
    assert result.changes[-1].kind == "delete"


def test_replace_applies_deletes() -> None:
    (delete,) = by_kind(diff(code(), design(), DiffOptions(replace=True)).changes)["delete"]
    assert delete.action == "apply"


@pytest.mark.parametrize(
    ("policy", "action"), [("ask", "ask"), ("figma-wins", "keep-design"), ("code-wins", "apply"), ("skip", "skip")]
)
def test_conflict_policy_sets_the_action_of_conflicts_only(policy: OnConflict, action: str) -> None:
    changes = diff(code(), design(), DiffOptions(on_conflict=policy)).changes
    for change in changes:
        if change.kind in ("update", "alias", "rename"):
            assert change.action == action
        elif change.kind == "create":
            assert change.action == "apply"


def test_mappings_rename_collections_and_modes() -> None:
    theirs = TokenSet(
        [Collection("Tokens", ["Light", "Dark"], [Token("color/red", "color", {"Light": RED, "Dark": BLUE})])]
    )
    ours = TokenSet([Collection("core", ["day", "night"], [Token("color/red", "color", {"day": RED, "night": RED})])])
    opts = DiffOptions(collection_mapping={"core": "Tokens"}, mode_mapping={"day": "Light", "night": "Dark"})
    result = diff(ours, theirs, opts)
    assert [(c.kind, c.collection, c.name, [v.mode for v in c.values]) for c in result.changes] == [
        ("update", "Tokens", "color/red", ["Dark"])
    ]
    unmapped = diff(ours, theirs)
    assert [c.kind for c in unmapped.changes] == ["create-collection", "create"]


def test_new_mode_and_new_collection() -> None:
    ours = design()
    ours.collections[0].modes.append("contrast")
    ours.collections[0].tokens[0].values["contrast"] = BLUE
    ours.collections.append(Collection("Extra", ["default"], [Token("x", "number", {"default": 1.0})]))
    result = diff(ours, design())
    assert [(c.kind, c.collection, c.modes) for c in result.changes if c.kind.startswith("create-")] == [
        ("create-mode", "Core", ["contrast"]),
        ("create-collection", "Extra", ["default"]),
    ]


def test_ambiguous_rename_is_create_and_delete() -> None:
    before = TokenSet([Collection("C", ["m"], [Token("a", "number", {"m": 1.0}), Token("b", "number", {"m": 1.0})])])
    after = TokenSet([Collection("C", ["m"], [Token("c", "number", {"m": 1.0})])])
    assert sorted(c.kind for c in diff(after, before).changes) == ["create", "delete", "delete"]


def test_type_change_is_skipped_with_a_reason() -> None:
    before = TokenSet([Collection("C", ["m"], [Token("a", "number", {"m": 1.0})])])
    after = TokenSet([Collection("C", ["m"], [Token("a", "color", {"m": RED})])])
    (change,) = diff(after, before, DiffOptions(on_conflict="code-wins")).changes
    assert change.action == "skip" and "type changes" in change.reason


def test_no_changes_between_a_set_and_its_variables() -> None:
    ours = design()
    assert diff(ours, from_variables(to_variables(ours))).changes == []
