import { installConsoleCapture } from "./console-capture.js";
import { Dispatcher } from "./dispatch.js";
import { watchDocument, selectionEvent } from "./events.js";
import { fileInfo } from "./file-info.js";
import { PLUGIN_VERSION } from "./version.js";
import { executeCode } from "./methods/execute.js";
import { getFileInfo } from "./methods/file.js";
import { readLayers } from "./methods/layers.js";
import * as variables from "./methods/variables.js";
import * as tokens from "./methods/tokens.js";
import { applyTokenChanges } from "./methods/token_import.js";
import { arrangeComponentSet } from "./methods/arrange.js";
import * as components from "./methods/components.js";
import * as annotations from "./methods/annotations.js";
import * as slots from "./methods/slots.js";
import * as edit from "./methods/edit.js";
import { setTextContent } from "./methods/text.js";
import { captureScreenshot } from "./methods/screenshot.js";
import { lintDesign, auditComponentAccessibility, readAuditNodes } from "./methods/audit.js";
import * as board from "./methods/whiteboard.js";
import * as slides from "./methods/slides.js";
import { autoArrange } from "./methods/layout.js";
import { createNodeTree } from "./methods/node_tree.js";

const UI_OPTIONS = { width: 300, height: 240, themeColors: true, title: "Design Desktop Bridge" };

/** @param {{type: string, data: any}} event */
function emit(event) {
  figma.ui.postMessage({ kind: "event", event: event });
}

const diag = installConsoleCapture(emit);

/** REFRESH_VARIABLES answers like GET_VARIABLES_DATA and also pushes the snapshot as an event. */
async function refreshVariables() {
  const snapshot = await variables.variablesSnapshot();
  emit({ type: "VARIABLES_DATA", data: snapshot });
  return snapshot;
}

/** Reloading re-creates the iframe; the reply is sent first, then ui.html asks for the reload (see onMessage). */
async function reloadUi() {
  return { success: true, reloading: true };
}

/** @type {Record<string, import("./dispatch.js").Handler>} */
const handlers = {
  EXECUTE_CODE: executeCode,
  GET_FILE_INFO: getFileInfo,
  RELOAD_UI: reloadUi,
  GET_VARIABLES_DATA: variables.getVariablesData,
  READ_VARIABLES: variables.readVariables,
  REFRESH_VARIABLES: refreshVariables,
  UPDATE_VARIABLE: variables.updateVariable,
  CREATE_VARIABLE: variables.createVariable,
  DELETE_VARIABLE: variables.deleteVariable,
  RENAME_VARIABLE: variables.renameVariable,
  SET_VARIABLE_DESCRIPTION: variables.setVariableDescription,
  CREATE_VARIABLE_COLLECTION: variables.createCollection,
  DELETE_VARIABLE_COLLECTION: variables.deleteCollection,
  ADD_MODE: variables.addMode,
  RENAME_MODE: variables.renameMode,
  BATCH_CREATE_VARIABLES: tokens.batchCreateVariables,
  BATCH_UPDATE_VARIABLES: tokens.batchUpdateVariables,
  BATCH_DELETE_VARIABLES: tokens.batchDeleteVariables,
  SETUP_DESIGN_TOKENS: tokens.setupDesignTokens,
  APPLY_TOKEN_CHANGES: applyTokenChanges,
  GET_COMPONENT: components.getComponent,
  GET_LOCAL_COMPONENTS: components.getLocalComponents,
  READ_LAYERS: readLayers,
  DEEP_GET_COMPONENT: components.deepGetComponent,
  ANALYZE_COMPONENT_SET: components.analyzeComponentSet,
  SET_NODE_DESCRIPTION: components.setNodeDescription,
  ADD_COMPONENT_PROPERTY: components.addComponentProperty,
  EDIT_COMPONENT_PROPERTY: components.editComponentProperty,
  DELETE_COMPONENT_PROPERTY: components.deleteComponentProperty,
  INSTANTIATE_COMPONENT: components.instantiateComponent,
  CREATE_COMPONENT_SET: components.createComponentSet,
  SET_INSTANCE_PROPERTIES: components.setInstanceProperties,
  ARRANGE_COMPONENT_SET: arrangeComponentSet,
  GET_ANNOTATIONS: annotations.getAnnotations,
  SET_ANNOTATIONS: annotations.setAnnotations,
  GET_ANNOTATION_CATEGORIES: annotations.getAnnotationCategories,
  CREATE_SLOT: slots.createSlot,
  GET_SLOTS: slots.getSlots,
  APPEND_TO_SLOT: slots.appendToSlot,
  RESET_SLOT: slots.resetSlot,
  ADD_SLOT_PROPERTY: slots.addSlotProperty,
  RESIZE_NODE: edit.resizeNode,
  MOVE_NODE: edit.moveNode,
  SET_NODE_FILLS: edit.setFills,
  SET_NODE_STROKES: edit.setStrokes,
  SET_NODE_OPACITY: edit.setOpacity,
  SET_NODE_CORNER_RADIUS: edit.setCornerRadius,
  SET_IMAGE_FILL: edit.setImageFill,
  CLONE_NODE: edit.cloneNode,
  DELETE_NODE: edit.deleteNode,
  RENAME_NODE: edit.renameNode,
  CREATE_CHILD_NODE: edit.createChildNode,
  BATCH_EDIT_NODES: edit.batchEditNodes,
  SET_TEXT_CONTENT: setTextContent,
  CAPTURE_SCREENSHOT: captureScreenshot,
  LINT_DESIGN: lintDesign,
  AUDIT_COMPONENT_ACCESSIBILITY: auditComponentAccessibility,
  READ_AUDIT_NODES: readAuditNodes,
  CREATE_STICKY: board.createSticky,
  CREATE_STICKIES: board.createStickies,
  CREATE_CONNECTOR: board.createConnector,
  CREATE_SHAPE_WITH_TEXT: board.createShapeWithText,
  CREATE_SECTION: board.createSection,
  CREATE_TABLE: board.createTable,
  CREATE_CODE_BLOCK: board.createCodeBlock,
  GET_BOARD_CONTENTS: board.getBoardContents,
  GET_CONNECTIONS: board.getConnections,
  LIST_SLIDES: slides.listSlides,
  GET_SLIDE_CONTENT: slides.getSlideContent,
  CREATE_SLIDE: slides.createSlide,
  DELETE_SLIDE: slides.deleteSlide,
  DUPLICATE_SLIDE: slides.duplicateSlide,
  GET_SLIDE_GRID: slides.getSlideGrid,
  REORDER_SLIDES: slides.reorderSlides,
  SET_SLIDE_TRANSITION: slides.setSlideTransition,
  GET_SLIDE_TRANSITION: slides.getSlideTransition,
  SET_SLIDES_VIEW_MODE: slides.setSlidesViewMode,
  GET_FOCUSED_SLIDE: slides.getFocusedSlide,
  FOCUS_SLIDE: slides.focusSlide,
  SKIP_SLIDE: slides.skipSlide,
  ADD_TEXT_TO_SLIDE: slides.addTextToSlide,
  ADD_SHAPE_TO_SLIDE: slides.addShapeToSlide,
  SET_SLIDE_BACKGROUND: slides.setSlideBackground,
  GET_TEXT_STYLES: slides.getTextStyles,
  AUTO_ARRANGE: autoArrange,
  CREATE_NODE_TREE: createNodeTree,
};

/**
 * The methods that may change the document. Each runs alone and ends with one commitUndo, so one command is one
 * undo step; every other method is a read and commits nothing. EXECUTE_CODE counts as a write: its code may edit.
 */
const WRITE_METHODS = [
  "EXECUTE_CODE",
  "UPDATE_VARIABLE",
  "CREATE_VARIABLE",
  "DELETE_VARIABLE",
  "RENAME_VARIABLE",
  "SET_VARIABLE_DESCRIPTION",
  "CREATE_VARIABLE_COLLECTION",
  "DELETE_VARIABLE_COLLECTION",
  "ADD_MODE",
  "RENAME_MODE",
  "BATCH_CREATE_VARIABLES",
  "BATCH_UPDATE_VARIABLES",
  "BATCH_DELETE_VARIABLES",
  "SETUP_DESIGN_TOKENS",
  "APPLY_TOKEN_CHANGES",
  "SET_NODE_DESCRIPTION",
  "ADD_COMPONENT_PROPERTY",
  "EDIT_COMPONENT_PROPERTY",
  "DELETE_COMPONENT_PROPERTY",
  "INSTANTIATE_COMPONENT",
  "CREATE_COMPONENT_SET",
  "SET_INSTANCE_PROPERTIES",
  "ARRANGE_COMPONENT_SET",
  "SET_ANNOTATIONS",
  "CREATE_SLOT",
  "APPEND_TO_SLOT",
  "RESET_SLOT",
  "ADD_SLOT_PROPERTY",
  "RESIZE_NODE",
  "MOVE_NODE",
  "SET_NODE_FILLS",
  "SET_NODE_STROKES",
  "SET_NODE_OPACITY",
  "SET_NODE_CORNER_RADIUS",
  "SET_IMAGE_FILL",
  "CLONE_NODE",
  "DELETE_NODE",
  "RENAME_NODE",
  "CREATE_CHILD_NODE",
  "BATCH_EDIT_NODES",
  "SET_TEXT_CONTENT",
  "CREATE_STICKY",
  "CREATE_STICKIES",
  "CREATE_CONNECTOR",
  "CREATE_SHAPE_WITH_TEXT",
  "CREATE_SECTION",
  "CREATE_TABLE",
  "CREATE_CODE_BLOCK",
  "CREATE_SLIDE",
  "DELETE_SLIDE",
  "DUPLICATE_SLIDE",
  "REORDER_SLIDES",
  "SET_SLIDE_TRANSITION",
  "SKIP_SLIDE",
  "ADD_TEXT_TO_SLIDE",
  "ADD_SHAPE_TO_SLIDE",
  "SET_SLIDE_BACKGROUND",
  "AUTO_ARRANGE",
  "CREATE_NODE_TREE",
];

/**
 * PROGRESS (ours) travels like an event, tagged with the route of the command it belongs to:
 * {"type":"PROGRESS","data":{"id":<command id>,"progress":n,"total":m,"message":"…"}}.
 * @param {string} route @param {import("./dispatch.js").Progress} progress
 */
function sendProgress(route, progress) {
  figma.ui.postMessage({ kind: "event", route: route, event: { type: "PROGRESS", data: progress } });
}

function commitUndo() {
  try {
    figma.commitUndo();
  } catch (err) {
    diag.warn("[design bridge] commitUndo failed:", err);
  }
}

const dispatcher = new Dispatcher(handlers, { writes: WRITE_METHODS, commitUndo: commitUndo, onProgress: sendProgress });
let watching = false;

/** Called when ui.html has loaded (again): it needs the file's identity before it can say HELLO. */
function onUiReady() {
  figma.ui.postMessage({ kind: "init", pluginVersion: PLUGIN_VERSION, fileInfo: fileInfo() });
  if (!watching) {
    watching = true;
    watchDocument(emit, diag.warn);
  }
  selectionEvent(emit);
  variables
    .variablesSnapshot()
    .then((snapshot) => emit({ type: "VARIABLES_DATA", data: snapshot }))
    .catch((err) => diag.warn("[design bridge] variables snapshot failed:", err));
}

/** @param {any} msg */
function onMessage(msg) {
  if (!msg || typeof msg !== "object") return;
  if (msg.kind === "ui-ready") {
    onUiReady();
  } else if (msg.kind === "command") {
    const route = String(msg.route);
    const command = msg.command;
    dispatcher.run(command, route).then((reply) => {
      if (!reply) return;
      const then = command && command.method === "RELOAD_UI" && !reply.error ? "reload" : undefined;
      figma.ui.postMessage({ kind: "reply", route: route, reply: reply, then: then });
    });
  } else if (msg.kind === "reload") {
    figma.showUI(__html__, UI_OPTIONS);
  } else if (msg.kind === "notify" && typeof msg.text === "string") {
    figma.notify(msg.text.slice(0, 200));
  }
}

figma.showUI(__html__, UI_OPTIONS);
figma.ui.onmessage = onMessage;
