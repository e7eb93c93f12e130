"""What the daemon knows about each file a plugin runs in, fed by the plugin's events.

Every event payload is validated with a msgspec struct before it touches the state; a malformed one is logged
(throttled) and dropped. The console is one ring for the whole daemon (MAX_CONSOLE_LOGS entries, each tagged with its
file) that outlives the files' state; the change feeds are per-file rings. A flood costs memory only up to the caps.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from design_console.config import Config
from design_console.engines.console_entry import ConsoleEntry, cap_message
from design_console.runtime.logs import LogThrottle
from design_console.tools.args import ConsoleLevel

log = logging.getLogger("design_console.bridge")

MAX_CHANGES = 200
MAX_SELECTION_NODES = 50
MAX_CHANGED_IDS = 50


def now_ms() -> int:
    """Milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


# --- event payloads (plugin -> daemon) -------------------------------------------------------------------------


class FileInfo(msgspec.Struct, kw_only=True, rename="camel"):
    """FILE_INFO: which file the plugin runs in."""

    file_key: str | None = None
    file_name: str = ""
    current_page: str = ""
    current_page_id: str = ""
    selection_count: int = 0
    plugin_version: str | None = None
    editor_type: str = ""


class SelectionNode(msgspec.Struct, kw_only=True):
    """One selected node as the plugin reports it."""

    id: str
    name: str = ""
    type: str = ""
    width: float | None = None
    height: float | None = None


class Selection(msgspec.Struct, kw_only=True):
    """SELECTION_CHANGE: the last selection of a file."""

    nodes: list[SelectionNode] = []
    count: int = 0
    page: str | dict[str, Any] | None = None
    timestamp: float | None = None


class PageChange(msgspec.Struct, kw_only=True, rename="camel"):
    """PAGE_CHANGE."""

    page_id: str = ""
    page_name: str = ""
    timestamp: float | None = None


class DocumentChangeEvent(msgspec.Struct, kw_only=True, rename="camel"):
    """DOCUMENT_CHANGE as received."""

    has_style_changes: bool = False
    has_node_changes: bool = False
    changed_node_ids: list[str] = []
    change_count: int = 0
    timestamp: float | None = None


class MetadataItem(msgspec.Struct, kw_only=True):
    """One field change inside METADATA_CHANGE."""

    node_id: str
    node_name: str = ""
    node_type: str = ""
    field: str = ""
    new_value: Any = None
    timestamp: float | None = None


class MetadataChangeEvent(msgspec.Struct, kw_only=True):
    """METADATA_CHANGE as received."""

    changes: list[MetadataItem] = []


class ConsoleCapture(msgspec.Struct, kw_only=True):
    """CONSOLE_CAPTURE as received; ``args`` is not declared so that decoding skips it."""

    level: ConsoleLevel
    message: str
    timestamp: float | None = None


class VariablesData(msgspec.Struct, kw_only=True, rename="camel"):
    """VARIABLES_DATA: a snapshot of the file's local variables and collections."""

    success: bool = True
    timestamp: float | None = None
    file_key: str | None = None
    variables: list[dict[str, Any]] = []
    variable_collections: list[dict[str, Any]] = []
    error: str | None = None


# --- what the daemon keeps --------------------------------------------------------------------------------------


class FileState(msgspec.Struct, kw_only=True, rename="camel"):
    """Identity and liveness of one file with a plugin (connected, or disconnected within the grace period)."""

    file_key: str
    file_name: str = ""
    current_page: str = ""
    current_page_id: str = ""
    editor_type: str = ""
    plugin_version: str = ""
    selection_count: int = 0
    connected_at: int = 0
    last_seen: int = 0
    authenticated: bool = False
    connected: bool = True


class FileConsoleEntry(ConsoleEntry, kw_only=True, rename="camel"):
    """A console entry tagged with the file it came from, as a read across files shows it."""

    file_key: str
    file_name: str


class DesignChange(msgspec.Struct, kw_only=True, rename="camel"):
    """One DOCUMENT_CHANGE in the change feed; ``seq`` grows by one per entry of a file."""

    seq: int
    timestamp: int
    has_style_changes: bool
    has_node_changes: bool
    changed_node_ids: list[str]
    change_count: int


class MetadataChange(msgspec.Struct, kw_only=True, rename="camel"):
    """One field change in the metadata feed; ``seq`` grows by one per entry of a file."""

    seq: int
    timestamp: int
    node_id: str
    node_name: str
    node_type: str
    field: str
    new_value: Any


class VariablesSnapshot(msgspec.Struct, kw_only=True, rename="camel"):
    """The last VARIABLES_DATA of a file and when it arrived."""

    received_at: int
    timestamp: int
    variables: list[dict[str, Any]]
    variable_collections: list[dict[str, Any]]


def _ms(value: float | None) -> int:
    return int(value) if value is not None and value > 0 else now_ms()


def _since(
    entries: Sequence[Any],
    since: int,
    count: int | None,
    stamp: Callable[[Any], int],
    keep: Callable[[Any], bool] | None = None,
) -> list[Any]:
    """The newest ``count`` (None: all) of ``entries`` (in arrival order) with ``stamp(e) > since`` that ``keep``
    accepts (every one when None), oldest first."""
    picked: list[Any] = []
    for item in reversed(entries):
        if stamp(item) <= since:
            break
        if keep is not None and not keep(item):
            continue
        picked.append(item)
        if count is not None and len(picked) >= count:
            break
    picked.reverse()
    return picked


def _console_since(
    entries: Sequence[Any], level: str, since: int, count: int | None, entry: Callable[[Any], ConsoleEntry]
) -> list[Any]:
    """:func:`_since` of console items (``entry`` finds the entry in one) by timestamp, of ``level`` ("all": any)."""
    of_level = None if level == "all" else lambda item: entry(item).level == level
    return _since(entries, since, count, lambda item: entry(item).timestamp, of_level)


class ConsoleRing:
    """The daemon's one console buffer: the newest ``capacity`` entries of every file, each tagged with its file.

    It outlives the files: entries of a file whose plugin disconnected stay readable until they are pushed out, cleared
    or the daemon restarts. Each file's entries are also indexed in a deque of their own, so that a read of one file
    walks only that file's entries; dropping the oldest entry is O(1) because it is also the oldest of its file.
    """

    __slots__ = ("_by_file", "_names", "_ring", "capacity", "dropped")

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        #: Entries pushed out by newer ones since the daemon started.
        self.dropped = 0
        self._ring: deque[tuple[str, ConsoleEntry]] = deque()
        self._by_file: dict[str, deque[ConsoleEntry]] = {}
        self._names: dict[str, str] = {}

    def append(self, key: str, name: str, entry: ConsoleEntry) -> None:
        """Add ``entry`` of file ``key`` (named ``name``), pushing out the oldest entry of any file when full."""
        if len(self._ring) >= self.capacity:
            old_key, _ = self._ring.popleft()
            old = self._by_file[old_key]
            old.popleft()
            if not old:
                del self._by_file[old_key], self._names[old_key]
            self.dropped += 1
        self._ring.append((key, entry))
        self._by_file.setdefault(key, deque()).append(entry)
        self._names[key] = name

    def read(self, key: str, *, level: str = "all", since: int = 0, count: int | None = 100) -> list[ConsoleEntry]:
        """Entries of file ``key``: of ``level`` ("all" for every level), newer than ``since`` (epoch ms), the newest
        ``count`` of them (None: all), oldest first."""
        entries = self._by_file.get(key)
        if not entries:
            return []
        if level == "all" and not since:
            # The common read (the newest ``count``, any level) without a test per entry: every stamp is > 0.
            if count is None:
                return list(entries)
            newest = list(itertools.islice(reversed(entries), count))
            newest.reverse()
            return newest
        return _console_since(entries, level, since, count, _itself)

    def read_all(self, *, level: str = "all", since: int = 0, count: int | None = 100) -> list[FileConsoleEntry]:
        """Like :meth:`read`, across every file, each entry tagged with its file's key and name."""
        picked = _console_since(self._ring, level, since, count, _second)
        names = self._names
        return [
            FileConsoleEntry(
                timestamp=e.timestamp, level=e.level, message=e.message, source=e.source, file_key=k, file_name=names[k]
            )
            for k, e in picked
        ]

    def size(self, key: str | None = None) -> int:
        """How many entries file ``key`` has buffered (None: every file)."""
        if key is None:
            return len(self._ring)
        entries = self._by_file.get(key)
        return len(entries) if entries else 0

    def name(self, key: str) -> str:
        """The name of file ``key`` as its entries show it ("" when it has none)."""
        return self._names.get(key, "")

    def files(self) -> dict[str, tuple[str, int]]:
        """Every file with buffered entries: key → (name, how many)."""
        return {key: (self._names[key], len(entries)) for key, entries in self._by_file.items()}

    def rename(self, key: str, name: str) -> None:
        """The file ``key`` is now called ``name`` (its entries show the new name)."""
        if key in self._names:
            self._names[key] = name

    def clear(self, key: str | None = None) -> int:
        """Remove the entries of file ``key`` (None: of every file); returns how many were removed."""
        if key is None:
            removed = len(self._ring)
            self._ring.clear()
            self._by_file.clear()
            self._names.clear()
            return removed
        entries = self._by_file.pop(key, None)
        if not entries:
            return 0
        del self._names[key]
        self._ring = deque(item for item in self._ring if item[0] != key)
        return len(entries)


def _itself(entry: ConsoleEntry) -> ConsoleEntry:
    return entry


def _second(item: tuple[str, ConsoleEntry]) -> ConsoleEntry:
    return item[1]


class FileData:
    """What is kept for one file, but its console, while its plugin is connected or within the grace period."""

    __slots__ = ("changes", "info", "metadata", "next_seq", "selection", "variables")

    def __init__(self, info: FileState) -> None:
        self.info = info
        self.selection: Selection | None = None
        self.changes: deque[DesignChange] = deque(maxlen=MAX_CHANGES)
        self.metadata: deque[MetadataChange] = deque(maxlen=MAX_CHANGES)
        self.variables: VariablesSnapshot | None = None
        self.next_seq = 1

    def _seq(self) -> int:
        seq = self.next_seq
        self.next_seq += 1
        return seq


_decoders: dict[str, msgspec.json.Decoder[Any]] = {
    "SELECTION_CHANGE": msgspec.json.Decoder(Selection),
    "PAGE_CHANGE": msgspec.json.Decoder(PageChange),
    "DOCUMENT_CHANGE": msgspec.json.Decoder(DocumentChangeEvent),
    "METADATA_CHANGE": msgspec.json.Decoder(MetadataChangeEvent),
    "CONSOLE_CAPTURE": msgspec.json.Decoder(ConsoleCapture),
    "VARIABLES_DATA": msgspec.json.Decoder(VariablesData),
}
_file_info_decoder = msgspec.json.Decoder(FileInfo)

#: Event types that :meth:`State.apply_event` understands (FILE_INFO is handled by :meth:`State.identify`).
EVENT_TYPES = frozenset(_decoders)


class State:
    """Per-file state of every file a plugin has identified, keyed by file_key, and the daemon's console ring."""

    def __init__(self, config: Config) -> None:
        self.max_console_logs = config.max_console_logs
        self.console_ring = ConsoleRing(config.max_console_logs)
        self._files: dict[str, FileData] = {}
        #: When each file's plugin last left (epoch ms), kept past the grace period for the console's sake.
        self._left: dict[str, int] = {}
        self.malformed_events = 0
        self._throttle = LogThrottle(log)

    # --- identity -----------------------------------------------------------------------------------------------

    @staticmethod
    def parse_file_info(data: bytes) -> FileInfo:
        """Decode a FILE_INFO payload; raises msgspec.DecodeError when it is malformed."""
        return _file_info_decoder.decode(data)

    def identify(self, info: FileInfo, key: str, *, authenticated: bool) -> FileData:
        """Create or refresh the state of file ``key`` from FILE_INFO, keeping its console and feeds."""
        now = now_ms()
        data = self._files.get(key)
        if data is None:
            data = FileData(FileState(file_key=key, connected_at=now))
            self._files[key] = data
        elif not data.info.connected:
            data.info.connected_at = now
        fs = data.info
        fs.file_name = info.file_name
        fs.current_page = info.current_page
        fs.current_page_id = info.current_page_id
        fs.selection_count = info.selection_count
        fs.editor_type = info.editor_type
        fs.plugin_version = info.plugin_version or fs.plugin_version
        fs.authenticated = authenticated
        fs.connected = True
        fs.last_seen = now
        self._left.pop(key, None)
        self.console_ring.rename(key, info.file_name)
        return data

    def mark_left(self, key: str) -> None:
        """The plugin of file ``key`` disconnected now."""
        # Re-inserted so that the dict's order is the order of departure, even within one millisecond.
        self._left.pop(key, None)
        self._left[key] = now_ms()

    def left_at(self, key: str) -> int | None:
        """When the plugin of file ``key`` left (epoch ms), or None while it is connected or was never seen."""
        return self._left.get(key)

    def last_departed(self) -> str | None:
        """The file with console entries whose plugin left last: the one a crash most likely took away."""
        return next((key for key in reversed(self._left) if self.console_ring.size(key)), None)

    def get(self, key: str) -> FileData | None:
        """The state of file ``key``, or None when no plugin runs (or recently ran) there."""
        return self._files.get(key)

    def keys(self) -> list[str]:
        """Keys of every file with state."""
        return list(self._files)

    def remove(self, key: str) -> None:
        """Forget the state of file ``key`` (after its grace period); its console entries stay in the ring."""
        self._files.pop(key, None)

    # --- events -------------------------------------------------------------------------------------------------

    def apply_event(self, key: str, kind: str, payload: bytes) -> bool:
        """Validate one event payload (JSON bytes) of file ``key`` and apply it; False when it was dropped."""
        data = self._files.get(key)
        decoder = _decoders.get(kind)
        if data is None or decoder is None:
            return False
        try:
            event = decoder.decode(payload)
        except msgspec.DecodeError as exc:
            self.malformed_events += 1
            self._throttle.warning("malformed:" + kind, "dropped a malformed %s event from file %s: %s", kind, key, exc)
            return False
        data.info.last_seen = now_ms()
        if kind == "CONSOLE_CAPTURE":
            self.console_ring.append(
                key,
                data.info.file_name,
                ConsoleEntry(timestamp=_ms(event.timestamp), level=event.level, message=cap_message(event.message)),
            )
        elif kind == "SELECTION_CHANGE":
            del event.nodes[MAX_SELECTION_NODES:]
            data.selection = event
            data.info.selection_count = event.count
        elif kind == "PAGE_CHANGE":
            data.info.current_page = event.page_name
            data.info.current_page_id = event.page_id
        elif kind == "DOCUMENT_CHANGE":
            data.changes.append(
                DesignChange(
                    seq=data._seq(),
                    timestamp=_ms(event.timestamp),
                    has_style_changes=event.has_style_changes,
                    has_node_changes=event.has_node_changes,
                    changed_node_ids=event.changed_node_ids[:MAX_CHANGED_IDS],
                    change_count=event.change_count,
                )
            )
        elif kind == "METADATA_CHANGE":
            for item in event.changes:
                data.metadata.append(
                    MetadataChange(
                        seq=data._seq(),
                        timestamp=_ms(item.timestamp),
                        node_id=item.node_id,
                        node_name=item.node_name,
                        node_type=item.node_type,
                        field=item.field,
                        new_value=item.new_value,
                    )
                )
        elif kind == "VARIABLES_DATA":
            if event.success:
                data.variables = VariablesSnapshot(
                    received_at=now_ms(),
                    timestamp=_ms(event.timestamp),
                    variables=event.variables,
                    variable_collections=event.variable_collections,
                )
            else:
                log.info("file %s reported no variables: %s", key, event.error or "no reason given")
        return True

    # --- reads --------------------------------------------------------------------------------------------------

    def console(self, key: str, *, level: str = "all", since: int = 0, count: int | None = 100) -> list[ConsoleEntry]:
        """Console entries of file ``key`` (connected or not): see :meth:`ConsoleRing.read`."""
        return self.console_ring.read(key, level=level, since=since, count=count)

    def console_all(self, *, level: str = "all", since: int = 0, count: int | None = 100) -> list[FileConsoleEntry]:
        """Console entries of every file, each tagged with its file: see :meth:`ConsoleRing.read_all`."""
        return self.console_ring.read_all(level=level, since=since, count=count)

    def console_size(self, key: str | None = None) -> int:
        """How many console entries file ``key`` (None: every file) has buffered, without copying them."""
        return self.console_ring.size(key)

    def clear_console(self, key: str | None = None) -> int:
        """Remove the console entries of file ``key`` (None: of every file); returns how many were removed."""
        return self.console_ring.clear(key)

    def selection(self, key: str) -> Selection | None:
        """The last SELECTION_CHANGE of file ``key``."""
        data = self._files.get(key)
        return data.selection if data else None

    def changes(self, key: str, *, since: int = 0, count: int | None = None) -> list[DesignChange]:
        """DOCUMENT_CHANGE entries of file ``key`` with ``seq > since``, the newest ``count``, oldest first."""
        data = self._files.get(key)
        return _since(data.changes, since, count, lambda e: e.seq) if data else []

    def change_seq(self, key: str) -> int:
        """How many document and metadata changes the plugin has reported in file ``key`` (0 for a file without
        one): it grows with every edit, so it versions what was read from the plugin."""
        data = self._files.get(key)
        return data.next_seq - 1 if data else 0

    def clear_changes(self, key: str) -> int:
        """Empty both change feeds (document and metadata) of file ``key``; returns how many entries were removed."""
        data = self._files.get(key)
        if data is None:
            return 0
        removed = len(data.changes) + len(data.metadata)
        data.changes.clear()
        data.metadata.clear()
        return removed

    def metadata_changes(self, key: str, *, since: int = 0, count: int | None = None) -> list[MetadataChange]:
        """METADATA_CHANGE entries of file ``key`` with ``seq > since``, the newest ``count``, oldest first."""
        data = self._files.get(key)
        return _since(data.metadata, since, count, lambda e: e.seq) if data else []

    def variables(self, key: str) -> VariablesSnapshot | None:
        """The last VARIABLES_DATA snapshot of file ``key``."""
        data = self._files.get(key)
        return data.variables if data else None
