"""Case tables several test modules share.

Each ``*_TOOLS`` set names the tools one module of tests/tools runs through the whole chain (the real plugin, or the
tool's real engine); tests/workers/test_every_tool.py runs every other tool of the catalog through the workers. The
audited document is what the design-system report and the dashboard app are tried on.
"""

from __future__ import annotations

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

#: Run by tests/tools/tokens/test_token_sync.py.
TOKEN_TOOLS = frozenset({"design_export_tokens", "design_import_tokens"})

#: Run by tests/tools/test_write_tools.py (variables), tests/tools/nodes/test_nodes_write.py,
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
