"""The README and docs/ say what the code does: the tools reference is what its generator writes from the registry
now, every count of tools is the registry's, and every link, command, repository path and tool name points at
something that exists."""

from __future__ import annotations

import contextlib
import difflib
import importlib.util
import io
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from design_console.config import load_config
from design_console.remote.listing import STATES, listed_tools
from design_console.remote.tools import remote_catalog
from design_console.tools import catalog

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def _words(text: str) -> str:
    """``text`` with every run of white space made one space, so a figure may wrap across lines."""
    return " ".join(text.split())


def _first_screen() -> str:
    readme = README.read_text()
    return readme[: readme.index("\n## Install")]


def _generator() -> ModuleType:
    path = ROOT / "scripts" / "tools_reference.py"
    spec = importlib.util.spec_from_file_location("tools_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tools_reference_is_what_the_generator_writes_from_the_registry() -> None:
    generator = _generator()
    written = (DOCS / "tools.md").read_text()
    made = generator.render()
    diff = "".join(difflib.unified_diff(written.splitlines(True), made.splitlines(True), "docs/tools.md", "now", n=1))
    assert written == made, f"docs/tools.md is stale: run .venv/bin/python scripts/tools_reference.py\n{diff[:4000]}"
    for name in catalog():
        assert f"### `{name}`\n" in made, f"{name} is missing from the reference"


def test_the_first_screen_keeps_the_two_commands() -> None:
    blocks = re.findall(r"```sh\n(.*?)```", _first_screen(), re.S)
    commands = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    assert "bash scripts/serve" in commands and "bash scripts/test" in commands


def test_the_first_screen_says_how_many_tools_a_default_install_lists() -> None:
    text = _words(_first_screen())
    default = catalog(load_config({}))
    every = catalog()
    core = [spec for spec in every.values() if spec.toolset == "core"]
    found = re.findall(r"A default install lists (\d+) tools", text)
    assert found == [str(len(default))], f"the README says {found}; the registry lists {len(default)} by default"
    assert f"{len(every)} with `ENABLE_MCP_APPS=true`" in text, f"{len(every)} tools with MCP Apps"
    assert f"starts with the {len(core)} core tools" in text, f"{len(core)} core tools"


def test_remote_modes_tool_counts_are_the_registrys() -> None:
    config = load_config({})
    remote = remote_catalog(config)
    counts = {(state.paired, state.browser): len(listed_tools(remote, state)) for state in STATES}
    signed_in, paired, most = counts[False, False], counts[True, False], counts[True, True]
    local = catalog(config)
    never = [local[name] for name in local.keys() - remote.keys()]
    state_only = sum(1 for spec in never if "daemon" in spec.needs)
    disk = [spec for spec in never if "disk" in spec.needs]
    assert {spec.toolset for spec in disk} == {"code"}
    text = _words((DOCS / "remote" / "README.md").read_text())
    for claim in [
        f"with the default toolsets, {signed_in} tools that read the design API",
        f"{paired - signed_in} more that send commands to the Desktop Bridge plugin",
        f"{most - paired} more while the server runs its headless browser: {most} at most",
        f"open files: {state_only})",
        f"files on your machine ({len(disk)}, all of the `code` toolset)",
    ]:
        assert claim in text, f"docs/remote/README.md should say: {claim}"


# Links, commands and names in the README and docs/: each points at something that exists.

#: Where a path named in the docs is a path of this repository.
REPO_PATH = re.compile(r"^(?:\./)?(?:scripts|bench|tests|design_console|plugin|docs|systemd|\.ci|\.github)/")
#: The commands of a virtualenv made by scripts/setup (``.venv/bin/X``; ``.venv\Scripts\X`` on Windows).
VENV_COMMAND = re.compile(r"^(?:\./)?\.venv/(?:bin|Scripts)/([^/]+?)(?:\.exe)?$")
#: The commands the package installs.
PROJECT_SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
SHELL_BLOCKS = ("bash", "sh", "shell", "console", "powershell", "ps1")
SEPARATORS = {";", "&&", "||", "|", "&", "(", ")"}
PYTHONS = re.compile(r"^(?:python3?(?:\.\d+)?|py)$")
#: Words of the form design_… that are not tools: the package, prefixes written as ``design_ds_*``, metric names.
NOT_TOOLS = re.compile(r"^design_(?:console(?:_mcp)?|remote_\w+|\w+_)$")


def _documents() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def _split_fences(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The text outside fenced code blocks (each block left as a blank line, so line counts hold), and the blocks
    as (language, body)."""
    prose: list[str] = []
    blocks: list[tuple[str, str]] = []
    fence: tuple[str, str, list[str]] | None = None
    for line in text.splitlines():
        opening = re.match(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)", line)
        if fence is None and opening:
            fence = (opening.group(1), opening.group(2).lower(), [])
            prose.append("")
        elif fence is not None and line.strip().startswith(fence[0]) and not line.strip().strip(fence[0][0]):
            blocks.append((fence[1], "\n".join(fence[2])))
            fence = None
            prose.append("")
        elif fence is not None:
            fence[2].append(line)
        else:
            prose.append(line)
    return "\n".join(prose), blocks


def _without_code_spans(text: str) -> str:
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", text, flags=re.S)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: link text kept, lower case, punctuation dropped, spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(text: str) -> set[str]:
    """The anchors of a Markdown document's headings (a repeated heading's get -1, -2, …)."""
    prose, _ = _split_fences(text)
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", prose, re.M):
        slug = _slug(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def _ignored(paths: list[str]) -> set[str]:
    """The paths git ignores: made by running something (a bench's download, a build), never in a clone. Each is
    also asked with a trailing slash, as a folder that does not exist here matches a folder's pattern only so."""
    if not paths:
        return set()
    done = subprocess.run(
        ["git", "check-ignore", "--stdin"],
        input="".join(f"{path}\n{path}/\n" for path in paths),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return {path.rstrip("/") for path in done.stdout.split()}


def _missing_paths(named: list[str]) -> list[str]:
    """Of repository paths as the docs write them (``tests/x.py::test_y`` names a test in that file), those that
    point at nothing. A path git ignores is made by running something (``bench/.reference/``, a build's output) and
    is not looked for."""
    wanted = {name: name.partition("::")[0].rstrip("/").removeprefix("./") for name in named}
    ignored = _ignored(sorted(set(wanted.values())))
    missing = []
    for name, path in wanted.items():
        if path in ignored:
            continue
        found = sorted(ROOT.glob(path)) if any(c in path for c in "*?[") else [ROOT / path]
        if not found or not all(p.exists() for p in found):
            missing.append(name)
            continue
        _, _, test = name.partition("::")
        if test and not re.search(rf"^(?:async )?def {re.escape(test.split('[')[0])}\(", found[0].read_text(), re.M):
            missing.append(name)
    return missing


def _link_problems(doc: Path, text: str) -> list[str]:
    """Relative links of ``text`` (the document ``doc``) to no file, to a file no clone has, or to no heading."""
    prose, _ = _split_fences(text)
    links = re.findall(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", _without_code_spans(prose))
    local = [target for target in links if not re.match(r"^[a-z][a-z0-9+.-]*:", target)]
    resolved = {target: (doc.parent / target.partition("#")[0]).resolve() for target in local}
    ignored = _ignored([str(path.relative_to(ROOT)) for path in resolved.values() if path.is_relative_to(ROOT)])
    broken = []
    for target in local:
        path, anchor = resolved[target], target.partition("#")[2]
        if target.startswith("#"):
            if anchor not in _anchors(text):
                broken.append(f"{target} (no such heading)")
        elif path.is_relative_to(ROOT) and str(path.relative_to(ROOT)) in ignored:
            broken.append(f"{target} (not in the repository)")
        elif not path.is_relative_to(ROOT) or not path.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path.read_text()):
            broken.append(f"{target} (no such heading)")
    return broken


def _commands(language: str, body: str) -> list[list[str]]:
    """The simple commands of a shell block: comments dropped, continued lines joined, split at ; && || | and
    parentheses, leading VAR=value assignments dropped."""
    if language in ("powershell", "ps1"):
        body = body.replace("\\", "/")
    lines = body.replace("\\\n", " ").splitlines()
    if language == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    commands: list[list[str]] = []
    for line in lines:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        current: list[str] = []
        for token in [*lexer, ";"]:
            if token in SEPARATORS:
                while current and re.match(r"^[A-Za-z_]\w*=", current[0]):
                    current.pop(0)
                if current:
                    commands.append(current)
                current = []
            else:
                current.append(token)
    return commands


def _designctl_problem(args: list[str]) -> str | None:
    """What is wrong with designctl's arguments, or None: designctl's own parser reads them."""
    from design_console.cli import build_parser

    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            opts = build_parser().parse_args(args)
    except SystemExit as done:
        if done.code == 0:  # --help, --version
            return None
        last = errors.getvalue().strip().splitlines()[-1]
        return re.sub(r"^designctl(?: [\w-]+)?: error: ", "", last)
    if opts.command == "call" and opts.tool not in _tool_names():
        return f"there is no tool {opts.tool}"
    return None


def _command_problems(command: list[str]) -> list[str]:
    problems: list[str] = []
    paths = [token for token in command if REPO_PATH.match(token)]
    problems += [f"{path}: no such path in the repository" for path in _missing_paths(paths)]
    for token in command:
        venv = VENV_COMMAND.match(token)
        if venv and venv.group(1) not in PROJECT_SCRIPTS and not (Path(sys.executable).parent / venv.group(1)).exists():
            problems.append(f"{token}: neither a command of the package nor of its virtualenv")
    word = Path(command[0]).name.removesuffix(".exe")
    if PYTHONS.match(word) and "-m" in command[:-1]:
        module = command[command.index("-m") + 1]
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # a parent package that does not exist
            found = False
        if not found:
            problems.append(f"python -m {module}: no such module")
    names = [Path(token).name.removesuffix(".exe") for token in command]
    if "designctl" in names:
        problem = _designctl_problem(command[names.index("designctl") + 1 :])
        if problem:
            problems.append(f"designctl: {problem}")
    return problems


def _shell_problems(text: str) -> tuple[list[str], int]:
    """What is wrong with the commands of the shell blocks of ``text``, and how many commands there are."""
    _, blocks = _split_fences(text)
    commands = [
        command for language, body in blocks if language in SHELL_BLOCKS for command in _commands(language, body)
    ]
    wrong = [f"{' '.join(command)}: {problem}" for command in commands for problem in _command_problems(command)]
    return wrong, len(commands)


def _text_problems(text: str) -> list[str]:
    """Repository paths written in code spans that point at nothing, and ``designctl`` subcommands it lacks."""
    prose, _ = _split_fences(text)
    spans = re.findall(r"`([^`]+)`", prose)
    paths = [word for span in spans for word in span.split() if REPO_PATH.match(word) and "…" not in word]
    wrong = [f"{path}: no such path in the repository" for path in _missing_paths(paths)]
    for span in spans:
        words = span.split()
        if len(words) > 1 and Path(words[0]).name == "designctl" and re.fullmatch(r"[a-z][a-z-]*", words[1]):
            problem = _designctl_problem(words[1:2])
            if problem and "required" not in problem:
                wrong.append(f"{span}: {problem}")
    return wrong


def _tool_names() -> set[str]:
    """Every tool some mode lists: the registry's, design_toolsets (DESIGN_TOOLSETS=auto), design_pair_plugin
    (Remote Mode)."""
    from design_console.daemon.mcp_front import TOOLSETS_TOOL
    from design_console.remote.tools import PAIR_PLUGIN

    return {*catalog(), TOOLSETS_TOOL, PAIR_PLUGIN.name}


def _unknown_tools(text: str) -> list[str]:
    tools = _tool_names()
    return [
        f"{name}: no such tool"
        for name in sorted(set(re.findall(r"\bdesign_\w+", text)))
        if name not in tools and not NOT_TOOLS.match(name)
    ]


def _each_document(check: Callable[[Path, str], list[str]]) -> list[str]:
    return [f"{doc.relative_to(ROOT)}: {problem}" for doc in _documents() for problem in check(doc, doc.read_text())]


def test_every_link_points_at_a_file_and_heading_that_exist() -> None:
    broken = _each_document(_link_problems)
    assert not broken, "\n".join(broken)


def test_every_command_of_a_shell_block_names_what_exists() -> None:
    wrong = _each_document(lambda doc, text: _shell_problems(text)[0])
    assert not wrong, "\n".join(wrong)
    assert _shell_problems(README.read_text())[1] >= 20, "the README's shell blocks were not found"


def test_every_repository_path_and_designctl_command_written_in_the_text_exists() -> None:
    wrong = _each_document(lambda doc, text: _text_problems(text))
    assert not wrong, "\n".join(wrong)


def test_every_tool_the_docs_name_exists() -> None:
    unknown = _each_document(lambda doc, text: _unknown_tools(text))
    assert not unknown, "\n".join(unknown)


def test_the_checks_see_each_kind_of_mistake() -> None:
    doc = DOCS / "sample.md"
    sample = """# Sample

## A `heading`, with punctuation!

[ok](#a-heading-with-punctuation) [ok](security.md#threat-model) [ok](../README.md) ![ok](plugin-ui/connected.png)
[ok](https://example.com/nowhere) `[not a link](nowhere.md)` [bad](nowhere.md) [bad](security.md#no-such-heading)
[bad](#no-such-heading) [bad](../node_modules) `tests/test_docs.py::test_the_checks_see_each_kind_of_mistake`
`tests/test_docs.py::test_nothing` `bench/no_such_bench.py` `bench/.reference/` `designctl doctor` `designctl frob`
`design_get_status`, `design_no_such_tool`, `design_console`, `design_ds_*`, `design_remote_requests_total`.

```sh
bash scripts/test tests/test_docs.py -k docs   # a comment: scripts/no_such_script
DESIGN_TOOLSETS=auto .venv/bin/designctl call design_get_status probe=true && designctl service install
.venv/bin/python -m design_console --help; .venv/bin/pytest tests/test_docs.py
bash scripts/no_such_script; python -m no_such_module; designctl frob; designctl config notepad
designctl call design_no_such_tool; .venv/bin/no-such-command; bench/no_such_bench.py --seconds 5
```

```powershell
.venv\\Scripts\\python -m pip install -e .
.venv\\Scripts\\designctl doctor
```
"""
    assert _link_problems(doc, sample) == [
        "nowhere.md (no such file)",
        "security.md#no-such-heading (no such heading)",
        "#no-such-heading (no such heading)",
        "../node_modules (not in the repository)",
    ]
    wrong, count = _shell_problems(sample)
    assert count == 14
    expected = [
        "scripts/no_such_script: no such path in the repository",
        "python -m no_such_module: no such module",
        "designctl: argument command: invalid choice: 'frob'",
        "designctl: argument app: invalid choice: 'notepad'",
        "designctl: there is no tool design_no_such_tool",
        ".venv/bin/no-such-command: neither a command of the package nor of its virtualenv",
        "bench/no_such_bench.py: no such path in the repository",
    ]
    assert len(wrong) == len(expected) and all(e in w for w, e in zip(wrong, expected, strict=True)), wrong
    wrong = _text_problems(sample)
    expected = [
        "tests/test_docs.py::test_nothing: no such path in the repository",
        "bench/no_such_bench.py: no such path in the repository",
        "designctl frob: argument command: invalid choice: 'frob'",
    ]
    assert len(wrong) == len(expected) and all(e in w for w, e in zip(wrong, expected, strict=True)), wrong
    assert _unknown_tools(sample) == ["design_no_such_tool: no such tool"]
