"""The daemon's state: the one console ring, the per-file feeds, filters, validation of event payloads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from fakes.bridge import make_config

from design_console.daemon.state import MAX_CHANGES, ConsoleRing, FileInfo, State
from design_console.engines.console_entry import MAX_MESSAGE_CHARS, ConsoleEntry


def _state(tmp_path: Path, *keys: str, **env: str) -> State:
    state = State(make_config(tmp_path, 20_000, **env))
    for key in keys or ("K",):
        state.identify(FileInfo(file_key=key, file_name=f"File {key}"), key, authenticated=True)
    return state


def _event(state: State, kind: str, data: Any, key: str = "K") -> bool:
    return state.apply_event(key, kind, json.dumps(data).encode())


def _log(state: State, level: str, message: str, timestamp: int, key: str = "K") -> bool:
    payload = {"level": level, "message": message, "args": [1], "timestamp": timestamp}
    return _event(state, "CONSOLE_CAPTURE", payload, key)


def _messages(entries: list[Any]) -> list[str]:
    return [e.message for e in entries]


def test_console_ring_keeps_the_newest_entries(tmp_path: Path) -> None:
    state = _state(tmp_path, MAX_CONSOLE_LOGS="5")
    for i in range(12):
        assert _log(state, "log", f"m{i}", 1000 + i)
    entries = state.console("K", count=None)
    assert [e.message for e in entries] == ["m7", "m8", "m9", "m10", "m11"]
    assert entries[0].source == "design"
    assert state.console_ring.dropped == 7


def test_one_ring_for_every_file_drops_the_oldest_of_any_file(tmp_path: Path) -> None:
    state = _state(tmp_path, "A", "B", MAX_CONSOLE_LOGS="4")
    for i, key in enumerate("AABAB"):
        assert _log(state, "log", f"{key}{i}", 1000 + i, key)
    assert state.console_size() == 4 and state.console_ring.dropped == 1
    assert _messages(state.console("A", count=None)) == ["A1", "A3"]
    assert _messages(state.console("B", count=None)) == ["B2", "B4"]
    for i in range(5, 9):
        _log(state, "warn", f"B{i}", 1000 + i, "B")
    assert state.console("A") == [] and state.console_size("A") == 0
    assert state.console_ring.files() == {"B": ("File B", 4)}, "a file whose entries were all pushed out is forgotten"
    assert state.console_size() == 4 and state.console_ring.dropped == 5


def test_entries_are_tagged_and_read_per_file_or_across_files(tmp_path: Path) -> None:
    state = _state(tmp_path, "A", "B")
    _log(state, "log", "a1", 1, "A")
    _log(state, "error", "b1", 2, "B")
    _log(state, "error", "a2", 3, "A")
    _log(state, "log", "b2", 4, "B")
    per_file = state.console("A")
    assert _messages(per_file) == ["a1", "a2"]
    assert msgspec.to_builtins(per_file[0]) == {"timestamp": 1, "level": "log", "message": "a1", "source": "design"}
    every = state.console_all()
    assert [(e.file_key, e.message) for e in every] == [("A", "a1"), ("B", "b1"), ("A", "a2"), ("B", "b2")]
    assert msgspec.to_builtins(every[1]) == {
        "timestamp": 2,
        "level": "error",
        "message": "b1",
        "source": "design",
        "fileKey": "B",
        "fileName": "File B",
    }
    assert _messages(state.console_all(level="error")) == ["b1", "a2"]
    assert _messages(state.console_all(count=1)) == ["b2"]
    assert _messages(state.console_all(since=2, level="log")) == ["b2"]
    assert state.console_size("A") == 2 and state.console_size() == 4
    state.identify(FileInfo(file_key="A", file_name="Renamed A"), "A", authenticated=True)
    assert state.console_all()[0].file_name == "Renamed A" and state.console_ring.name("A") == "Renamed A"


def test_console_outlives_the_file_state_until_cleared(tmp_path: Path) -> None:
    state = _state(tmp_path, "A", "B")
    _log(state, "error", "crash", 1, "A")
    _log(state, "log", "fine", 2, "B")
    state.remove("A")
    assert state.get("A") is None
    assert _messages(state.console("A")) == ["crash"] and state.console_all()[0].file_name == "File A"
    assert state.apply_event("A", "CONSOLE_CAPTURE", b'{"level":"log","message":"late"}') is False
    assert (
        state.clear_console("A") == 1
        and state.console("A") == []
        and state.console_ring.files() == {"B": ("File B", 1)}
    )
    assert _messages(state.console_all()) == ["fine"]
    _log(state, "log", "again", 3, "B")
    assert state.clear_console() == 2 and state.console_size() == 0 and state.console_all() == []
    assert state.clear_console("B") == 0 and state.clear_console("nobody") == 0


def test_ring_after_clearing_one_file_still_drops_in_order() -> None:
    ring = ConsoleRing(3)
    for i, key in enumerate("ABAB"):
        ring.append(key, key.lower(), ConsoleEntry(timestamp=i + 1, level="log", message=f"{key}{i}"))
    assert ring.clear("A") == 1
    for i in range(4, 6):
        ring.append("C", "c", ConsoleEntry(timestamp=i + 1, level="log", message=f"C{i}"))
    assert [(e.file_key, e.message) for e in ring.read_all(count=None)] == [("B", "B3"), ("C", "C4"), ("C", "C5")]
    assert ring.size() == 3 and ring.size("B") == 1 and ring.dropped == 2


def test_console_filters_by_level_since_and_count_oldest_first(tmp_path: Path) -> None:
    state = _state(tmp_path)
    for i, level in enumerate(["log", "warn", "error", "log", "warn", "info", "debug"]):
        _log(state, level, f"{level}{i}", 1000 + i)
    assert [e.message for e in state.console("K", count=3)] == ["warn4", "info5", "debug6"]
    assert [e.message for e in state.console("K", level="warn")] == ["warn1", "warn4"]
    assert [e.message for e in state.console("K", level="log", count=1)] == ["log3"]
    assert [e.message for e in state.console("K", since=1004)] == ["info5", "debug6"]
    assert state.console("K", level="error", since=1002) == []
    assert state.console("unknown-file") == []
    assert state.console_size("K") == 7 and state.console_size("unknown") == 0 and state.console_size() == 7
    assert state.clear_console("K") == 7
    assert state.console_size("K") == 0
    assert state.console("K") == []


def test_long_console_message_is_capped_and_says_so(tmp_path: Path) -> None:
    state = _state(tmp_path)
    _log(state, "error", "x" * (MAX_MESSAGE_CHARS + 500), 1)
    message = state.console("K")[0].message
    assert message.startswith("x" * MAX_MESSAGE_CHARS)
    assert message.endswith("[truncated 500 characters]")
    assert len(message) < MAX_MESSAGE_CHARS + 40


@pytest.mark.parametrize(
    ("kind", "payload"),
    [
        ("CONSOLE_CAPTURE", b'{"level": "shout", "message": "x"}'),
        ("CONSOLE_CAPTURE", b'{"level": "log", "message": 42}'),
        ("CONSOLE_CAPTURE", b'{"level": "log"}'),
        ("CONSOLE_CAPTURE", b"[1, 2]"),
        ("CONSOLE_CAPTURE", b"{not json"),
        ("SELECTION_CHANGE", b'{"nodes": [{"name": "no id"}]}'),
        ("PAGE_CHANGE", b'{"pageId": 5}'),
        ("DOCUMENT_CHANGE", b'{"changedNodeIds": "1:2"}'),
        ("METADATA_CHANGE", b'{"changes": [{"field": "name"}]}'),
        ("VARIABLES_DATA", b'{"variables": {"a": 1}}'),
    ],
)
def test_malformed_event_is_dropped_and_counted(tmp_path: Path, kind: str, payload: bytes) -> None:
    state = _state(tmp_path)
    assert state.apply_event("K", kind, payload) is False
    assert state.malformed_events == 1
    assert state.console("K") == []
    assert state.selection("K") is None
    assert state.changes("K") == []
    assert state.metadata_changes("K") == []
    assert state.variables("K") is None


def test_event_for_unknown_file_or_type_is_ignored(tmp_path: Path) -> None:
    state = _state(tmp_path)
    assert _log(state, "log", "x", 1) is True
    assert state.apply_event("other", "CONSOLE_CAPTURE", b'{"level":"log","message":"x"}') is False
    assert state.apply_event("K", "NOT_AN_EVENT", b"{}") is False


def test_selection_and_page(tmp_path: Path) -> None:
    state = _state(tmp_path)
    nodes = [{"id": f"1:{i}", "name": f"n{i}", "type": "FRAME", "width": 10, "height": 5.5} for i in range(60)]
    assert _event(state, "SELECTION_CHANGE", {"nodes": nodes, "count": 60, "page": "Page 1", "timestamp": 5})
    selection = state.selection("K")
    assert selection is not None and len(selection.nodes) == 50 and selection.count == 60
    assert selection.nodes[0].height == 5.5
    assert _event(state, "PAGE_CHANGE", {"pageId": "0:2", "pageName": "Page 2", "timestamp": 6})
    data = state.get("K")
    assert data is not None
    assert (data.info.current_page, data.info.current_page_id, data.info.selection_count) == ("Page 2", "0:2", 60)


def test_change_feed_has_increasing_seq_and_is_bounded(tmp_path: Path) -> None:
    state = _state(tmp_path)
    for i in range(MAX_CHANGES + 30):
        change = {"hasNodeChanges": True, "changedNodeIds": [f"1:{i}"] * 70, "changeCount": 1, "timestamp": 10 + i}
        assert _event(state, "DOCUMENT_CHANGE", change)
    changes = state.changes("K")
    assert len(changes) == MAX_CHANGES
    seqs = [c.seq for c in changes]
    assert seqs == sorted(seqs) and seqs[-1] == MAX_CHANGES + 30
    assert len(changes[0].changed_node_ids) == 50
    newest = state.changes("K", since=seqs[-3])
    assert [c.seq for c in newest] == seqs[-2:]
    assert [c.seq for c in state.changes("K", count=1)] == seqs[-1:]
    assert msgspec.to_builtins(newest[0])["changedNodeIds"] == [f"1:{MAX_CHANGES + 28}"] * 50

    assert _event(state, "METADATA_CHANGE", {"changes": [{"node_id": "1:2", "field": "name", "new_value": "B"}]})
    meta = state.metadata_changes("K")
    assert len(meta) == 1 and meta[0].seq > seqs[-1] and meta[0].new_value == "B"
    assert state.clear_changes("K") == MAX_CHANGES + 1
    assert state.changes("K") == [] and state.metadata_changes("K") == []
    assert _event(state, "DOCUMENT_CHANGE", {"hasStyleChanges": True})
    assert state.changes("K")[0].seq > meta[0].seq
    # Clearing the feeds does not reset the count of changes seen, which versions what was read from the plugin.
    assert state.change_seq("K") == MAX_CHANGES + 32 and state.change_seq("other") == 0


def test_variables_snapshot(tmp_path: Path) -> None:
    state = _state(tmp_path)
    variables = [{"id": "VariableID:1", "name": "color/primary"}]
    collections = [{"id": "VariableCollectionId:1", "name": "Brand"}]
    payload = {"success": True, "timestamp": 7, "variables": variables, "variableCollections": collections}
    assert _event(state, "VARIABLES_DATA", payload)
    assert _event(state, "VARIABLES_DATA", {"success": False, "error": "not allowed"})
    snapshot = state.variables("K")
    assert snapshot is not None and snapshot.variables == variables and snapshot.variable_collections == collections


def test_reidentify_keeps_console_and_remove_forgets(tmp_path: Path) -> None:
    state = _state(tmp_path)
    _log(state, "log", "kept", 1)
    data = state.identify(FileInfo(file_key="K", file_name="Renamed", plugin_version="1.2.3"), "K", authenticated=False)
    assert data.info.file_name == "Renamed" and data.info.plugin_version == "1.2.3" and not data.info.authenticated
    assert [e.message for e in state.console("K")] == ["kept"]
    assert msgspec.to_builtins(data.info)["fileName"] == "Renamed"
    state.remove("K")
    assert state.get("K") is None and state.selection("K") is None and state.changes("K") == []
    assert [e.message for e in state.console("K")] == ["kept"], "the console outlives the file's state"


def test_flood_is_bounded_by_the_ring(tmp_path: Path) -> None:
    state = _state(tmp_path)
    frames = [
        json.dumps({"level": "log", "message": f"flood {i}", "timestamp": i + 1}).encode() for i in range(100_000)
    ]
    for frame in frames:
        state.apply_event("K", "CONSOLE_CAPTURE", frame)
    entries = state.console("K", count=None)
    assert len(entries) == state.max_console_logs == 1000
    assert entries[-1].message == "flood 99999"


def test_last_departed_is_the_file_whose_plugin_left_last_with_entries(tmp_path: Path) -> None:
    state = _state(tmp_path, "A", "B", "C")
    _log(state, "error", "crash", 1, "A")
    _log(state, "log", "fine", 2, "B")
    assert state.last_departed() is None and state.left_at("A") is None
    state.mark_left("B")
    state.mark_left("A")
    state.mark_left("C")
    assert state.last_departed() == "A", "C left last but has no entries"
    assert state.left_at("A") is not None
    state.mark_left("B")
    assert state.last_departed() == "B", "leaving again moves a file to the end, within the same millisecond"
    state.identify(FileInfo(file_key="B", file_name="File B"), "B", authenticated=True)
    assert state.last_departed() == "A" and state.left_at("B") is None, "a file that came back has not left"
