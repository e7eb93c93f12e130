import { badParams, unsupported } from "../errors.js";
import { getSceneNode, summarize } from "../nodes.js";
import { reqString, optString, optNumber, reqArray, reqNumber, optEnum } from "../params.js";
import { solidPaint } from "../colors.js";

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
export const MAX_STICKIES = 200;

/** @param {string} method @param {string} fn */
function requireBoard(method, fn) {
  if (figma.editorType !== "figjam" || typeof (/** @type {any} */ (figma)[fn]) !== "function") throw unsupported(method, "whiteboard (FigJam)");
}

/** @param {any} node @param {any} p */
function place(node, p) {
  if (typeof p.x === "number") node.x = p.x;
  if (typeof p.y === "number") node.y = p.y;
}

/** @param {any} p @param {number} i */
async function makeSticky(p, i) {
  if (!p || typeof p.text !== "string") throw badParams("stickies[" + i + "].text is required.");
  const color = optEnum(p, "color", /** @type {any} */ (Object.keys(STICKY_COLORS)), "YELLOW");
  const sticky = figma.createSticky();
  await figma.loadFontAsync(/** @type {FontName} */ (sticky.text.fontName));
  sticky.text.characters = p.text;
  sticky.fills = [solidPaint(STICKY_COLORS[/** @type {string} */ (color)])];
  place(sticky, p);
  return sticky;
}

/** CREATE_STICKY */
export async function createSticky(/** @type {any} */ params) {
  requireBoard("CREATE_STICKY", "createSticky");
  reqString(params, "text");
  const sticky = await makeSticky(params, 0);
  return { success: true, node: summarize(sticky) };
}

/** CREATE_STICKIES */
export async function createStickies(/** @type {any} */ params) {
  requireBoard("CREATE_STICKIES", "createSticky");
  const list = reqArray(params, "stickies");
  if (!list.length || list.length > MAX_STICKIES) throw badParams("'stickies' must hold 1 to " + MAX_STICKIES + " entries.");
  const made = [];
  for (let i = 0; i < list.length; i++) made.push(summarize(await makeSticky(list[i], i)));
  return { success: true, nodes: made, count: made.length };
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

/** GET_BOARD_CONTENTS */
export async function getBoardContents(/** @type {any} */ params) {
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
    return out;
  });
  return { success: true, page: figma.currentPage.name, nodes: nodes, total: found.length, truncated: found.length > max };
}

/** GET_CONNECTIONS */
export async function getConnections() {
  const connectors = figma.currentPage.findAllWithCriteria({ types: ["CONNECTOR"] });
  const edges = connectors.map((c) => {
    const s = /** @type {any} */ (c.connectorStart);
    const e = /** @type {any} */ (c.connectorEnd);
    return { id: c.id, startNodeId: s.endpointNodeId || null, endNodeId: e.endpointNodeId || null, label: c.text ? c.text.characters : "" };
  });
  return { success: true, connections: edges, count: edges.length };
}

