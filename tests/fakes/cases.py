"""Case tables several test modules share.

Each ``*_TOOLS`` set names the tools one module of tests/tools runs through the whole chain (the real plugin, or the
tool's real engine); tests/workers/test_every_tool.py runs every other tool of the catalog through the workers. The
audited document is what the design-system report and the dashboard app are tried on.
"""

from __future__ import annotations

from typing import Any

from .design_api import ENTERPRISE_KEY, HISTORY_KEY

#: Run by tests/tools/apps/test_apps.py.
APP_TOOLS = frozenset(
    {
        "design_browse_tokens",
        "design_token_browser_refresh",
        "design_audit_design_system",
        "design_ds_dashboard_refresh",
    }
)

#: Run by tests/tools/audit/test_audits.py.
AUDIT_TOOLS = frozenset({"design_lint_design", "design_audit_component_accessibility", "design_check_design_parity"})

#: Run by tests/tools/board/test_board.py (FigJam) and tests/tools/slides/test_slides.py (Slides).
BOARD_SLIDES_TOOLS = frozenset(
    {
        "design_create_sticky",
        "design_create_stickies",
        "design_create_connector",
        "design_create_shape_with_text",
        "design_create_section",
        "design_create_table",
        "design_create_code_block",
        "design_auto_arrange",
        "design_get_board_contents",
        "design_get_connections",
        "design_list_slides",
        "design_get_slide_content",
        "design_get_slide_grid",
        "design_get_slide_transition",
        "design_get_text_styles",
        "design_get_focused_slide",
        "design_create_slide",
        "design_delete_slide",
        "design_duplicate_slide",
        "design_reorder_slides",
        "design_set_slide_transition",
        "design_skip_slide",
        "design_add_text_to_slide",
        "design_add_shape_to_slide",
        "design_set_slide_background",
        "design_set_slides_view_mode",
        "design_focus_slide",
    }
)

#: Run by tests/tools/audit/test_code_a11y.py.
A11Y_TOOLS = frozenset({"design_scan_code_accessibility"})

#: Run by tests/tools/components/test_component_doc.py.
DOC_TOOLS = frozenset({"design_generate_component_doc"})

#: Run by tests/tools/ds/test_ds_audit.py.
REPORT_TOOLS = frozenset({"design_audit_design_system_report"})

#: Run by tests/tools/ds/test_ds_chain.py.
DS_TOOLS = frozenset(
    {
        "design_ds_analyze",
        "design_ds_extract_tokens",
        "design_ds_scaffold",
        "design_ds_setup_storybook",
        "design_ds_extract_component",
        "design_ds_verify",
        "design_ds_status",
    }
)

#: Run by tests/tools/token_tools/test_token_sync.py.
TOKEN_TOOLS = frozenset({"design_export_tokens", "design_import_tokens"})

#: Run by tests/tools/variables/test_variables_write.py, tests/tools/nodes/test_nodes_write.py,
#: tests/tools/components/test_components_write.py, tests/tools/components/test_slots.py and
#: tests/tools/review/test_annotations.py.
WRITE_TOOLS = frozenset(
    {
        "design_update_variable",
        "design_create_variable",
        "design_create_variable_collection",
        "design_delete_variable",
        "design_delete_variable_collection",
        "design_rename_variable",
        "design_add_mode",
        "design_rename_mode",
        "design_batch_create_variables",
        "design_batch_update_variables",
        "design_batch_delete_variables",
        "design_setup_design_tokens",
        "design_instantiate_component",
        "design_set_description",
        "design_add_component_property",
        "design_edit_component_property",
        "design_delete_component_property",
        "design_resize_node",
        "design_move_node",
        "design_set_fills",
        "design_set_image_fill",
        "design_set_strokes",
        "design_clone_node",
        "design_delete_node",
        "design_rename_node",
        "design_set_text",
        "design_create_child",
        "design_batch_edit_nodes",
        "design_arrange_component_set",
        "design_create_component_set",
        "design_set_instance_properties",
        "design_create_slot",
        "design_get_slots",
        "design_append_to_slot",
        "design_reset_slot",
        "design_add_slot_property",
        "design_get_annotations",
        "design_set_annotations",
        "design_get_annotation_categories",
    }
)

AUDITED_TOKENS = [
    {"name": "color/blue/500", "resolvedType": "COLOR", "values": {"Light": "#3366ff", "Dark": "#6699ff"}},
    {"name": "color/primary", "resolvedType": "COLOR", "values": {"Light": "{color.blue.500}", "Dark": "{color.blue.500}"}},  # noqa: E501
    {"name": "space/4", "resolvedType": "FLOAT", "values": {"Light": 16, "Dark": 16}},
]  # fmt: skip

#: A card with 10 px grey text on white (2.8:1), a hard-coded red box, and an undocumented 16x16 button.
AUDITED_DOCUMENT = """
await figma.loadFontAsync({ family: "Inter", style: "Regular" });
const card = figma.createFrame();
card.name = "Card";
card.fills = [{ type: "SOLID", color: { r: 1, g: 1, b: 1 } }];
figma.currentPage.appendChild(card);
const label = figma.createText();
label.characters = "Hello";
label.fontSize = 10;
label.fills = [{ type: "SOLID", color: { r: 0.6, g: 0.6, b: 0.6 } }];
card.appendChild(label);
const box = figma.createRectangle();
box.fills = [{ type: "SOLID", color: { r: 1, g: 0, b: 0 } }];
card.appendChild(box);
const button = figma.createComponent();
button.name = "Button";
button.resize(16, 16);
figma.currentPage.appendChild(button);
return { card: card.id, label: label.id, box: box.id, button: button.id };
"""

#: The design-to-code tools, run through the whole chain by tests/tools/code/test_{metadata,design_context,
#: variable_defs,mappings}.py.
CODE_TOOLS = frozenset(
    {
        "design_get_metadata",
        "design_get_design_context",
        "design_get_variable_defs",
        "design_set_code_mapping",
        "design_get_code_mappings",
        "design_suggest_code_mappings",
    }
)
#: The page-to-design tool, run through the whole chain by tests/tools/code/test_from_web.py.
WEB_TOOLS = frozenset({"design_generate_from_web"})

ENT = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"
HIST = f"https://www.figma.com/design/{HISTORY_KEY}/History"
MISSING = "https://www.figma.com/design/NoSuchFile0000000000099/Gone"
OLD, NEW = "1000001", "1000060"
#: A file no plugin runs in and that has no console entries.
ELSEWHERE = "NoPluginHere00000000007"

#: The tools tests/workers/test_every_tool.py runs through the workers: tool → (arguments that succeed, arguments
#: that fail).
CHAIN_CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "design_get_file_data": ({"fileUrl": ENT}, {"fileUrl": MISSING}),
    "design_get_file_for_plugin": ({"fileUrl": ENT}, {"fileUrl": MISSING}),
    "design_get_variables": ({"fileUrl": ENT}, {"fileUrl": ENT, "format": "full", "collection": "x"}),
    "design_get_styles": ({"fileUrl": ENT}, {"fileUrl": MISSING}),
    "design_get_component": ({"fileUrl": ENT, "nodeId": "1:2"}, {"fileUrl": ENT, "nodeId": "9:99"}),
    "design_get_component_image": ({"fileUrl": ENT, "nodeId": "1:3"}, {"fileUrl": MISSING, "nodeId": "1:3"}),
    "design_get_component_for_development": (
        {"fileUrl": ENT, "nodeId": "1:2", "includeImage": False},
        {"fileUrl": ENT, "nodeId": "9:99"},
    ),
    "design_get_library_components": ({"libraryFileUrl": ENT}, {"libraryFileUrl": MISSING}),
    "design_get_library_component_by_key": ({"componentKey": "key-1:3"}, {"componentKey": "no-such-key"}),
    "design_get_design_system_kit": ({"fileKey": ENTERPRISE_KEY}, {"fileKey": "NoSuchFile0000000000099"}),
    "design_search_components": ({"libraryFileUrl": ENT, "query": "Button"}, {"libraryFileUrl": MISSING}),
    "design_get_comments": ({"fileUrl": HIST}, {"fileUrl": MISSING}),
    "design_post_comment": ({"fileUrl": HIST, "message": "Looks good"}, {"fileUrl": HIST, "message": ""}),
    "design_delete_comment": ({"fileUrl": HIST, "comment_id": "101"}, {"fileUrl": HIST, "comment_id": "../x"}),
    "design_get_file_versions": ({"fileUrl": HIST}, {"fileUrl": MISSING}),
    "design_get_file_at_version": ({"fileUrl": HIST, "version_id": OLD}, {"fileUrl": HIST, "version_id": "nope"}),
    "design_diff_versions": (
        {"fileUrl": HIST, "from_version": OLD, "to_version": NEW},
        {"fileUrl": HIST, "from_version": "nope", "to_version": NEW},
    ),
    "design_get_changes_since_version": (
        {"fileUrl": HIST, "since_version": OLD},
        {"fileUrl": HIST, "since_version": "nope"},
    ),
    "design_generate_changelog": (
        {"fileUrl": HIST, "from_version": OLD, "to_version": NEW},
        {"fileUrl": MISSING, "from_version": OLD, "to_version": NEW},
    ),
    "design_blame_node": ({"fileUrl": HIST, "node_id": "1:2"}, {"fileUrl": MISSING, "node_id": "1:2"}),
    "design_take_screenshot": ({"fileUrl": ENT, "nodeId": "1:3"}, {"fileUrl": MISSING, "nodeId": "1:3"}),
    "design_capture_screenshot": ({"nodeId": "1:3"}, {"nodeId": "1:3", "scale": 9}),
    "design_get_design_system_summary": ({}, {"forceRefresh": "sometimes"}),
    "design_get_component_details": ({"componentName": "Input"}, {"componentName": "Nothing like it"}),
    "design_get_token_values": ({"type": "all"}, {"type": "shadows"}),
    "design_get_library_variables": ({}, {"resolvedType": "IMAGE"}),
    "design_import_library_variable": ({"variableKey": "lv-red"}, {"variableKey": ""}),
    "design_get_component_for_development_deep": ({"nodeId": "5:1"}, {"nodeId": "9:9"}),
    "design_analyze_component_set": ({"nodeId": "6:0"}, {"nodeId": "7:7"}),
    # Answered by designd itself.
    "design_get_status": ({"probe": True}, {"probe": "yes"}),
    "design_diagnose": ({"verbose": True}, {"verbose": "very"}),
    "design_list_open_files": ({}, {"fileKey": ENTERPRISE_KEY}),
    "design_navigate": ({"url": ENT, "lock": True}, {"url": ELSEWHERE}),
    "design_execute": ({"code": "return 1"}, {"code": 'throw new Error("broken on purpose")'}),
    "design_execute_across_files": ({"code": "return 1", "allFiles": True}, {"code": "return 1"}),
    "design_get_console_logs": ({"allFiles": True}, {"fileKey": ELSEWHERE}),
    "design_watch_console": ({"duration": 1}, {"duration": 0.5}),
    "design_clear_console": ({}, {"fileKey": ENTERPRISE_KEY, "allFiles": True}),
    "design_reload_plugin": ({"clearConsole": True}, {"fileKey": ELSEWHERE}),
    "design_reconnect": ({}, {"fileKey": ELSEWHERE}),
    "design_get_selection": ({}, {"fileKey": ELSEWHERE}),
    "design_get_design_changes": ({"clear": True}, {"count": 0}),
}

#: Where the browser tools' cases go: the page the test serves, put in place of this marker.
PAGE = "<page>"

#: The arguments that succeed for each tool Remote Mode lists without a paired plugin, on the fake design API (the
#: browser's three take the remote variant's arguments, on a page the test serves).
#: tests/remote/test_every_listed_tool.py calls each listed tool with these, and fails for a listed tool without one.
REMOTE_CASES: dict[str, dict[str, Any]] = {
    **{name: good for name, (good, _) in CHAIN_CASES.items()},
    # A few versions back: walking all 60 of the fake file is slow on a loaded machine and proves no more.
    "design_blame_node": {"fileUrl": HIST, "node_id": "1:2", "max_versions_to_walk": 5},
    "design_get_status": {},
    "design_diagnose": {"verbose": True},
    "design_pair_plugin": {},
    "design_navigate": {"url": PAGE},
    "design_get_console_logs": {"level": "all"},
    "design_take_screenshot": {"url": PAGE, "format": "png"},
    "design_audit_design_system_report": {"fileUrl": ENT},
    "design_check_design_parity": {
        "fileUrl": ENT,
        "nodeId": "1:2",
        "codeSpec": {"visual": {"backgroundColor": "#2f5fd0"}, "spacing": {"paddingLeft": 12}},
    },
    "design_generate_component_doc": {"fileUrl": ENT, "nodeId": "1:2"},
    "design_scan_code_accessibility": {"html": '<main><img src="a.png"><button></button></main>'},
}

#: The tools tests/remote/test_every_listed_tool.py calls on the real plugin paired through the relay: the write tools,
#: each on what an earlier call made, the tools that read the document the way only the real plugin answers (code,
#: audits, tokens, the design-system report), and the FigJam and Slides tools in a board and a deck.
PAIRED_REAL_PLUGIN_TOOLS = (
    WRITE_TOOLS
    | BOARD_SLIDES_TOOLS
    | TOKEN_TOOLS
    | REPORT_TOOLS
    # Suggesting mappings reads the user's codebase: not listed remotely.
    | (CODE_TOOLS - {"design_suggest_code_mappings"})
    | {"design_lint_design", "design_audit_component_accessibility"}
)


#: The tools Remote Mode lists to a user with a paired plugin that tests/remote/test_every_listed_tool.py does not
#: call (none today): the test fails for a listed tool that is neither called nor named here, and for a name here that
#: is no longer listed, so a gap is visible and cannot grow silently.
PAIRED_NOT_CALLED: frozenset[str] = frozenset()
