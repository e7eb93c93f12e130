import { badParams, unsupported } from "../errors.js";
import { getSceneNode, summarize } from "../nodes.js";
import { reqString, optString, optNumber, reqArray, reqNumber, optEnum } from "../params.js";
import { solidPaint } from "../colors.js";
import { MAX_STICKIES } from "../../shared/contract.js";

const STICKY_COLORS = /** @type {Record<string, string>} */ ({
  YELLOW: "#FFE299",
  BLUE: "#A8DAFF",
  GREEN: "#B3EFBD",
  PINK: "#FFBDF2",
  ORANGE: "#FFC3A3",
  PURPLE: "#D3BDFF",
  RED: "#FFAFA3",
  LIGHT_GRAY: "#E6E6E6",
  GRAY: "#B3B3B3",
});
const SHAPES = /** @type {const} */ (["ROUNDED_RECTANGLE", "DIAMOND", "ELLIPSE", "TRIANGLE_UP", "TRIANGLE_DOWN", "PARALLELOGRAM_RIGHT", "PARALLELOGRAM_LEFT", "ENG_DATABASE", "ENG_QUEUE", "ENG_FILE", "ENG_FOLDER"]);
const MAGNETS = /** @type {const} */ (["AUTO", "TOP", "BOTTOM", "LEFT", "RIGHT"]);

/** @param {string} method @param {string} fn */
function requireBoard(method, fn) {
  if (figma.editorType !== "figjam" || typeof (/** @type {any} */ (figma)[fn]) !== "function") throw unsupported(method, "whiteboard (FigJam)");
}

/** @param {any} node @param {any} p */
function place(node, p) {
  if (typeof p.x === "number") node.x = p.x;
  if (typeof p.y === "number") node.y = p.y;
}

/**
 * One sticky's parameters, checked before anything is created; the error names the entry.
 * @param {any} p @param {number} i @returns {{text: string, color: string, x?: number, y?: number}}
 */
function checkSticky(p, i) {
  const where = "stickies[" + i + "]";
  if (!p || typeof p !== "object") throw badParams(where + " must be an object {text, color?, x?, y?}.");
  if (typeof p.text !== "string") throw badParams(where + ".text is required and must be a string.");
  if (p.color !== undefined && p.color !== null && !Object.prototype.hasOwnProperty.call(STICKY_COLORS, p.color)) {
    throw badParams(where + ".color must be one of " + Object.keys(STICKY_COLORS).join(", ") + ".");
  }
  for (const axis of ["x", "y"]) {
    if (p[axis] !== undefined && p[axis] !== null && (typeof p[axis] !== "number" || !isFinite(p[axis]))) {
      throw badParams(where + "." + axis + " must be a finite number.");
    }
  }
  return { text: p.text, color: p.color || "YELLOW", x: p.x, y: p.y };
}

/** @param {{text: string, color: string, x?: number, y?: number}} p */
async function makeSticky(p) {
  const sticky = figma.createSticky();
  try {
    await figma.loadFontAsync(/** @type {FontName} */ (sticky.text.fontName));
    sticky.text.characters = p.text;
    sticky.fills = [solidPaint(STICKY_COLORS[p.color])];
    place(sticky, p);
  } catch (err) {
    sticky.remove();
    throw err;
  }
  return sticky;
}

/** CREATE_STICKY */
export async function createSticky(/** @type {any} */ params) {
  requireBoard("CREATE_STICKY", "createSticky");
  reqString(params, "text");
  const sticky = await makeSticky(checkSticky(params, 0));
  return { success: true, node: summarize(sticky) };
}

/** CREATE_STICKIES */
export async function createStickies(/** @type {any} */ params) {
  requireBoard("CREATE_STICKIES", "createSticky");
  const list = reqArray(params, "stickies");
  if (!list.length || list.length > MAX_STICKIES) throw badParams("'stickies' must hold 1 to " + MAX_STICKIES + " entries.");
  // All or nothing: every entry is checked before the first sticky exists, and a failure while creating removes the
  // ones already made.
  const checked = list.map(checkSticky);
  /** @type {SceneNode[]} */
  const made = [];
  try {
    for (const p of checked) made.push(await makeSticky(p));
  } catch (err) {
    made.forEach((n) => n.remove());
    throw err;
  }
  return { success: true, nodes: made.map(summarize), count: made.length };
}

/** CREATE_CONNECTOR */
export async function createConnector(/** @type {any} */ params) {
  requireBoard("CREATE_CONNECTOR", "createConnector");
  const start = await getSceneNode(params.startNodeId, "startNodeId");
  const end = await getSceneNode(params.endNodeId, "endNodeId");
  const connector = figma.createConnector();
  connector.connectorStart = { endpointNodeId: start.id, magnet: /** @type {any} */ (optEnum(params, "startMagnet", MAGNETS, "AUTO")) };
  connector.connectorEnd = { endpointNodeId: end.id, magnet: /** @type {any} */ (optEnum(params, "endMagnet", MAGNETS, "AUTO")) };
  const label = optString(params, "label");
  if (label) {
    await figma.loadFontAsync(/** @type {FontName} */ (connector.text.fontName));
    connector.text.characters = label;
  }
  return { success: true, node: summarize(connector), startNodeId: start.id, endNodeId: end.id };
}

/** CREATE_SHAPE_WITH_TEXT */
export async function createShapeWithText(/** @type {any} */ params) {
  requireBoard("CREATE_SHAPE_WITH_TEXT", "createShapeWithText");
  const shape = figma.createShapeWithText();
  shape.shapeType = /** @type {any} */ (optEnum(params, "shapeType", SHAPES, "ROUNDED_RECTANGLE"));
  const text = optString(params, "text");
  await figma.loadFontAsync(/** @type {FontName} */ (shape.text.fontName));
  if (text) shape.text.characters = text;
  const fontSize = optNumber(params, "fontSize", undefined, { min: 1, max: 200 });
  if (fontSize) shape.text.fontSize = fontSize;
  const w = optNumber(params, "width", undefined, { min: 1, max: 10000 });
  const h = optNumber(params, "height", undefined, { min: 1, max: 10000 });
  if (w || h) shape.resize(w || shape.width, h || shape.height);
  if (params.fillColor) shape.fills = [solidPaint(params.fillColor, undefined, "fillColor")];
  if (params.strokeColor) shape.strokes = [solidPaint(params.strokeColor, undefined, "strokeColor")];
  if (params.strokeDashPattern) {
    const dashes = String(params.strokeDashPattern).split(/[\s,]+/).filter(Boolean).map(Number);
    if (dashes.some((d) => !isFinite(d) || d < 0)) throw badParams("'strokeDashPattern' must be numbers such as \"10,5\".");
    shape.dashPattern = dashes;
  }
  place(shape, params);
  return { success: true, node: summarize(shape) };
}

/** CREATE_SECTION */
export async function createSection(/** @type {any} */ params) {
  if (typeof figma.createSection !== "function") throw unsupported("CREATE_SECTION", "design or whiteboard");
  const section = figma.createSection();
  const name = optString(params, "name");
  if (name) section.name = name;
  section.resizeWithoutConstraints(
    /** @type {number} */ (optNumber(params, "width", 1000, { min: 1, max: 20000 })),
    /** @type {number} */ (optNumber(params, "height", 800, { min: 1, max: 20000 })),
  );
  if (params.fillColor) section.fills = [solidPaint(params.fillColor, undefined, "fillColor")];
  place(section, params);
  return { success: true, node: summarize(section) };
}

/** CREATE_TABLE */
export async function createTable(/** @type {any} */ params) {
  requireBoard("CREATE_TABLE", "createTable");
  const rows = reqNumber(params, "rows", { min: 1, max: 100 });
  const columns = reqNumber(params, "columns", { min: 1, max: 50 });
  const table = figma.createTable(rows, columns);
  if (Array.isArray(params.data)) {
    for (let r = 0; r < Math.min(rows, params.data.length); r++) {
      const row = params.data[r];
      if (!Array.isArray(row)) throw badParams("data[" + r + "] must be an array of strings.");
      for (let c = 0; c < Math.min(columns, row.length); c++) {
        const cell = table.cellAt(r, c);
        await figma.loadFontAsync(/** @type {FontName} */ (cell.text.fontName));
        cell.text.characters = String(row[c]);
      }
    }
  }
  place(table, params);
  return { success: true, node: summarize(table), rows: rows, columns: columns };
}

/** CREATE_CODE_BLOCK */
export async function createCodeBlock(/** @type {any} */ params) {
  requireBoard("CREATE_CODE_BLOCK", "createCodeBlock");
  const code = reqString(params, "code");
  const block = figma.createCodeBlock();
  block.code = code;
  const language = optString(params, "language");
  if (language) {
    const lang = language.toUpperCase().replace(/[^A-Z_+]/g, "_");
    try {
      block.codeLanguage = /** @type {any} */ (lang);
    } catch (err) {
      block.remove();
      throw badParams("Language '" + language + "' is not supported by code blocks (for example TYPESCRIPT, PYTHON, CSS, HTML, JSON).");
    }
  }
  place(block, params);
  return { success: true, node: summarize(block) };
}

const BOARD_TYPES = /** @type {const} */ (["STICKY", "SHAPE_WITH_TEXT", "CONNECTOR", "TABLE", "CODE_BLOCK", "SECTION", "FRAME", "TEXT"]);

/** @param {any} n */
function textOf(n) {
  if (n.type === "TEXT") return n.characters;
  if (n.type === "CODE_BLOCK") return n.code;
  if (n.text && typeof n.text.characters === "string") return n.text.characters;
  return undefined;
}

/** The nearest section that holds ``node``, if any. @param {BaseNode} node */
function sectionOf(node) {
  for (let p = node.parent; p && p.type !== "PAGE"; p = p.parent) if (p.type === "SECTION") return p;
  return null;
}

/** GET_BOARD_CONTENTS */
export async function getBoardContents(/** @type {any} */ params) {
  requireBoard("GET_BOARD_CONTENTS", "createSticky");
  const types = params.nodeTypes === undefined ? BOARD_TYPES.slice() : reqArray(params, "nodeTypes");
  types.forEach((t) => {
    if (BOARD_TYPES.indexOf(t) < 0) throw badParams("Unknown node type '" + t + "'. Types: " + BOARD_TYPES.join(", ") + ".");
  });
  const max = /** @type {number} */ (optNumber(params, "maxNodes", 500, { min: 1, max: 1000 }));
  const found = figma.currentPage.findAllWithCriteria({ types: /** @type {any} */ (types) });
  const nodes = found.slice(0, max).map((n) => {
    const out = summarize(n);
    const text = textOf(n);
    if (text !== undefined) out.text = text;
    const section = sectionOf(n);
    if (section) {
      out.sectionId = section.id;
      out.sectionName = section.name;
    }
    if (n.type === "CONNECTOR") {
      const c = /** @type {any} */ (n);
      out.startNodeId = (c.connectorStart && c.connectorStart.endpointNodeId) || null;
      out.endNodeId = (c.connectorEnd && c.connectorEnd.endpointNodeId) || null;
    }
    return out;
  });
  return { success: true, page: figma.currentPage.name, nodes: nodes, total: found.length, truncated: found.length > max };
}

/** GET_CONNECTIONS */
export async function getConnections() {
  requireBoard("GET_CONNECTIONS", "createConnector");
  const connectors = figma.currentPage.findAllWithCriteria({ types: ["CONNECTOR"] });
  const edges = connectors.map((c) => {
    const s = /** @type {any} */ (c.connectorStart);
    const e = /** @type {any} */ (c.connectorEnd);
    return { id: c.id, startNodeId: s.endpointNodeId || null, endNodeId: e.endpointNodeId || null, label: c.text ? c.text.characters : "" };
  });
  return { success: true, connections: edges, count: edges.length };
}

