"""What a tool handler may use, by the process it runs in: the contexts designd and the workers hand it.

Where a tool runs (its ``runs_in``) is chosen by what it needs:

- ``daemon`` (designd): a tool that forwards to the plugin or reads what the plugin pushed (console, selection,
  changes, connected files). It does no blocking I/O and little CPU work, because every session shares designd's
  event loop; it gets a :class:`DaemonContext`.
- ``api`` (the api worker): a tool that calls the design API, or shapes large answers (deep trees, manifests,
  paging over big lists), even when its data comes from the plugin; it gets an :class:`ApiContext`.
- ``media`` (the media worker): a tool that decodes, checks or re-encodes images; it gets a :class:`MediaContext`.
- ``tokens`` (the tokens worker): a tool that converts, diffs or audits design tokens; it gets a
  :class:`TokensContext`.

A worker reaches the plugin through designd (``ctx.bridge`` sends a BridgeCall), so a tool that needs only the
plugin belongs in designd. :func:`~design_console.tools.base.tool` checks, as far as the type system can, that a
handler takes the context of the process its ``runs_in`` names; a handler typed with :class:`Context` runs anywhere.

These are protocols: designd (``daemon/core.py``) and the workers (``workers/main.py``) implement them, and a test
may hand any object that has what the handler uses.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from design_console.clients.design_api import DesignApi
    from design_console.config import Config
    from design_console.runtime.user_files import FileScope

#: Receives a long call's progress: (done, total or None, message). The same shape from the plugin to designd to
#: the AI app, whichever process the tool runs in.
ProgressFn = Callable[[float, float | None, str], Awaitable[None]]

#: What a worker may ask designd about plugin-fed state (the workers cannot see designd's memory).
StateQueryName = Literal["metadata_changes", "change_seq"]


class Context(Protocol):
    """What every handler gets, wherever it runs."""

    @property
    def config(self) -> Config:
        """The settings of this run."""
        ...

    @property
    def active_file_key(self) -> str | None:
        """The file the plugin is active in (at the time of the call), if any."""
        ...

    @property
    def file_scope(self) -> FileScope:
        """Where this call may read and write the user's files (set for tools declared with ``uses_files``)."""
        ...

    async def bridge(
        self, method: str, params: dict[str, Any] | None = None, *, file_key: str = "", timeout: float = 0.0
    ) -> dict[str, Any]:
        """Send one command to the plugin (of ``file_key``, else the active file) and return its result object.

        ``timeout`` 0 uses the method's own timeout. Raises DesignError.
        """
        ...

    async def progress(self, progress: float, total: float | None = None, message: str = "") -> None:
        """Report progress of a long call (a no-op when the caller did not ask for it)."""
        ...


# designd ----------------------------------------------------------------------------------------------------------


class FileInfo(Protocol):
    """A file a plugin runs in (or ran in, within the reconnect grace period), as designd knows it."""

    @property
    def file_key(self) -> str: ...
    @property
    def file_name(self) -> str: ...
    @property
    def current_page(self) -> str: ...
    @property
    def editor_type(self) -> str: ...
    @property
    def plugin_version(self) -> str: ...
    @property
    def connected(self) -> bool: ...
    @property
    def connected_at(self) -> int:
        """When the plugin last identified itself, in ms since the epoch."""
        ...


class FileRecord(Protocol):
    """What designd keeps of one file: its identity here; its feeds through :class:`DaemonState`."""

    @property
    def info(self) -> FileInfo: ...


class Timestamped(Protocol):
    """A console entry: when it was logged, in ms since the epoch."""

    @property
    def timestamp(self) -> int: ...


class Sequenced(Protocol):
    """An entry of a change feed, numbered per file."""

    @property
    def seq(self) -> int: ...


class NodeRef(Protocol):
    """A node the plugin named."""

    @property
    def id(self) -> str: ...


class SelectionInfo(Protocol):
    """The last selection the plugin reported."""

    @property
    def nodes(self) -> Sequence[NodeRef]: ...

    @property
    def count(self) -> int:
        """How many layers are selected: the plugin reports the first 50 of them in ``nodes``."""
        ...


class ConsoleRingView(Protocol):
    """The daemon-wide console ring: ``MAX_CONSOLE_LOGS`` entries of every file, oldest dropped first."""

    @property
    def capacity(self) -> int: ...
    @property
    def dropped(self) -> int:
        """How many entries were pushed out by newer ones since start."""
        ...

    def size(self, key: str | None = None) -> int: ...
    def name(self, key: str) -> str:
        """The file name last seen for ``key`` (its entries outlive its plugin)."""
        ...

    def files(self) -> dict[str, tuple[str, int]]:
        """Every file with entries: key → (file name, entry count)."""
        ...


class DaemonState(Protocol):
    """The plugin-fed state of each file, read (and cleared) by designd's tools. Entries are msgspec structs."""

    def get(self, key: str) -> FileRecord | None:
        """The file's record, or None when no plugin is (or recently was) connected in it."""
        ...

    def console(
        self, key: str, *, level: str = "all", since: int = 0, count: int | None = 100
    ) -> Sequence[Timestamped]:
        """Console entries of one level (or "all"), newer than ``since``, the newest ``count`` (None: all)."""
        ...

    def console_all(self, *, level: str = "all", since: int = 0, count: int | None = 100) -> Sequence[Timestamped]:
        """Like :meth:`console` over every file's entries, each tagged with its file."""
        ...

    def console_size(self, key: str | None = None) -> int:
        """How many console entries are buffered for one file (None: all files)."""
        ...

    def clear_console(self, key: str | None = None) -> int:
        """Empty one file's console entries (None: every file's); returns how many there were."""
        ...

    def left_at(self, key: str) -> int | None:
        """When the file's plugin left (ms since the epoch), or None while it is connected or never was."""
        ...

    def last_departed(self) -> str | None:
        """The file with console entries whose plugin left last."""
        ...

    @property
    def console_ring(self) -> ConsoleRingView:
        """The daemon-wide console ring itself, for its capacity and which files it holds entries of."""
        ...

    def selection(self, key: str) -> SelectionInfo | None:
        """The last selection, if the plugin reported one."""
        ...

    def changes(self, key: str, *, since: int = 0, count: int | None = None) -> Sequence[Sequenced]:
        """Document changes with ``seq`` above ``since``."""
        ...

    def metadata_changes(self, key: str, *, since: int = 0, count: int | None = None) -> Sequence[Sequenced]:
        """Name, description and property edits with ``seq`` above ``since``."""
        ...

    def clear_changes(self, key: str) -> int:
        """Empty both change feeds; returns how many entries they held."""
        ...


class DaemonContext(Context, Protocol):
    """What a handler running in designd gets: the plugin-fed state and the bridge's view of the files."""

    @property
    def state(self) -> DaemonState: ...

    @property
    def port(self) -> int | None:
        """The port the bridge listens on (None before it bound one)."""
        ...

    @property
    def locked(self) -> bool:
        """Whether commands stay on the active file until it disconnects (design_navigate with lock)."""
        ...

    def files(self) -> Sequence[FileInfo]:
        """The files a plugin is connected in (or was, within the grace period)."""
        ...

    def is_connected(self) -> bool:
        """Whether any plugin is connected."""
        ...

    def navigate(self, file_key: str, lock: bool) -> FileInfo:
        """Make a connected file the active one; raises DesignError for a file with no plugin."""
        ...

    def bridge_stats(self) -> dict[str, Any]:
        """The bridge's counters (connections, refusals, frames)."""
        ...

    def setup_report(self) -> dict[str, Any]:
        """The ``setup`` and ``bridge`` part of a status report, with setup steps when no plugin is connected."""
        ...

    def worker_status(self) -> list[dict[str, object]]:
        """Each worker process's pid, state, uptime and restarts."""
        ...

    def session_count(self) -> int:
        """How many AI app sessions are open."""
        ...


# Workers ----------------------------------------------------------------------------------------------------------


class ApiContext(Context, Protocol):
    """What a handler running in the api worker gets: the design API client and designd's plugin-fed state."""

    @property
    def api(self) -> DesignApi: ...

    async def state(self, what: StateQueryName, file_key: str = "") -> Any:
        """State the plugin pushed to designd (``metadata_changes``: a list of dicts; ``change_seq``: how many changes
        it has reported, a version of the file's data), of ``file_key`` or the active file."""
        ...


class MediaContext(Context, Protocol):
    """What a handler running in the media worker gets: the design API client (renders), besides the plugin."""

    @property
    def api(self) -> DesignApi: ...


class TokensContext(Context, Protocol):
    """What a handler running in the tokens worker gets: the plugin (through designd), progress and the user's
    files. Token formats, diffs and audits run there, so converting thousands of tokens never stalls designd."""
