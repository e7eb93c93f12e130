import { PluginError, badParams, notFound, errorText } from "../errors.js";
import { getNode, requireType, mainComponentOnly } from "../nodes.js";
import { optNumber, optString, optObject } from "../params.js";
import { variantGrid, variantAxes, defaultColumnProperty } from "../variant-grid.js";
import { loadFont } from "./text.js";

export const DEFAULT_GAP = 24;
export const DEFAULT_PADDING = 24;
/** Space between the set and its labels. */
const LABEL_GAP = 16;
const LABEL_FONT = { family: "Inter", style: "Regular" };
const LABEL_SIZE = 14;
/** Plugin data on a labels frame naming its set, so arranging again replaces the labels rather than adding more. */
const LABELS_KEY = "labelsForComponentSet";

/** @typedef {import("../dispatch.js").CommandContext} CommandContext */

/** @param {any} params @returns {Promise<ComponentSetNode>} */
async function findSet(params) {
  /** @type {BaseNode} */
  let node;
  if (params.componentSetId !== undefined && params.componentSetId !== null) {
    node = await getNode(params.componentSetId, "componentSetId");
  } else {
    const name = optString(params, "componentSetName");
    if (!name) throw badParams("Give 'componentSetId' (an id such as \"12:34\") or 'componentSetName'.");
    await figma.loadAllPagesAsync();
    const sets = figma.root.findAllWithCriteria({ types: ["COMPONENT_SET"] }).filter((s) => s.name === name);
    if (!sets.length) throw notFound("No component set named '" + name + "' in this file. Find it with design_search_components and retry with its id.");
    if (sets.length > 1) {
      throw badParams(sets.length + " component sets are named '" + name + "' (" + sets.map((s) => s.id).join(", ") + "); pass 'componentSetId' to choose one.");
    }
    node = sets[0];
  }
  const set = await mainComponentOnly(node, "arrange variants");
  requireType(set, ["COMPONENT_SET"], "arrange variants");
  return /** @type {ComponentSetNode} */ (set);
}

/**
 * Reads and checks arrangement options: gap (between columns, rows and variants sharing a cell), cellPadding
 * (between the set's edge and the grid), columnProperty (the variant property whose values make the columns).
 * @param {Record<string, any>} options
 * @returns {{gap: number, padding: number, columnProperty: string | null}}
 */
export function arrangeOptions(options) {
  return {
    gap: /** @type {number} */ (optNumber(options, "gap", DEFAULT_GAP, { min: 0, max: 10000 })),
    padding: /** @type {number} */ (optNumber(options, "cellPadding", DEFAULT_PADDING, { min: 0, max: 10000 })),
    columnProperty: optString(options, "columnProperty") || null,
  };
}

/** ARRANGE_COMPONENT_SET @param {any} params @param {CommandContext} ctx */
export async function arrangeComponentSet(params, ctx) {
  const set = await findSet(params);
  const options = arrangeOptions(optObject(params, "options") || {});
  return Object.assign({ success: true }, await arrangeSet(set, options, ctx));
}

/**
 * Lays the set's variants out in a grid in place (same node, same position; only its size and its variants'
 * positions change) and labels columns and rows with text in a frame beside it. All or nothing: a failure puts
 * every variant, the size and the layout mode back.
 * @param {ComponentSetNode} set @param {{gap: number, padding: number, columnProperty: string | null}} options
 * @param {CommandContext} ctx
 */
export async function arrangeSet(set, options, ctx) {
  const variants = /** @type {ComponentNode[]} */ (set.children.filter((c) => c.type === "COMPONENT"));
  if (!variants.length) throw new PluginError("empty", "Component set " + set.name + " (" + set.id + ") has no variants to arrange.");
  const items = variants.map((v) => ({ id: v.id, width: v.width, height: v.height, props: Object.assign({}, v.variantProperties || {}) }));
  const axes = variantAxes(items);
  let column = options.columnProperty;
  if (column && axes.order.indexOf(column) < 0) {
    throw badParams("'" + column + "' is not a variant property of " + set.name + ". Its properties: " + (axes.order.join(", ") || "none") + ".");
  }
  if (!column) column = defaultColumnProperty(axes);
  const grid = variantGrid(items, { columnProperty: column, gap: options.gap, padding: options.padding });
  const parent = set.parent;
  if (!parent || !("insertChild" in parent)) throw new PluginError("wrong_node_type", "Component set " + set.name + " has no parent to hold its labels.");
  await loadFont(LABEL_FONT);

  const previous = {
    width: set.width,
    height: set.height,
    layoutMode: set.layoutMode,
    /** @type {Record<string, number[]>} */
    positions: {},
  };
  variants.forEach((v) => (previous.positions[v.id] = [v.x, v.y]));
  const oldLabels = /** @type {SceneNode[]} */ (/** @type {any} */ (parent).children).filter((n) => n.getPluginData(LABELS_KEY) === set.id);
  /** @type {FrameNode | null} */
  let labels = null;
  try {
    if (set.layoutMode !== "NONE") set.layoutMode = "NONE";
    for (let i = 0; i < variants.length; i++) {
      const at = grid.positions[variants[i].id];
      variants[i].x = at.x;
      variants[i].y = at.y;
      await ctx.progress(i + 1, variants.length, "Placed " + (i + 1) + " of " + variants.length + " variants");
    }
    set.resizeWithoutConstraints(grid.width, grid.height);
    labels = makeLabels(set, grid, /** @type {BaseNode & ChildrenMixin} */ (parent));
    oldLabels.forEach((n) => n.remove());
  } catch (err) {
    const undone = putBack(set, variants, previous, labels);
    if (err instanceof PluginError && err.code === "cancelled") throw new PluginError("cancelled", err.message + " " + undone);
    throw new PluginError("plugin_api_error", "Arranging " + set.name + " failed: " + errorText(err) + ". " + undone, { rolledBack: true });
  }
  return {
    componentSet: { id: set.id, name: set.name, x: set.x, y: set.y, width: set.width, height: set.height },
    previous: previous,
    grid: { columnProperty: grid.columnProperty, rowProperties: grid.rowProperties, columns: grid.columns, rows: grid.rows },
    variantCount: variants.length,
    labelsFrameId: labels ? labels.id : null,
    replacedLabelFrames: oldLabels.map((n) => n.id),
  };
}

/**
 * Undoes a failed arrangement step by step, so one step that fails does not keep the others from being undone.
 * @param {ComponentSetNode} set @param {ComponentNode[]} variants
 * @param {{width: number, height: number, layoutMode: string, positions: Record<string, number[]>}} previous
 * @param {FrameNode | null} labels
 * @returns {string} the sentence that says what was put back
 */
function putBack(set, variants, previous, labels) {
  /** @type {string[]} */
  const failed = [];
  /** @param {string} what @param {() => void} fn */
  const attempt = (what, fn) => {
    try {
      fn();
    } catch (err) {
      failed.push(what + " (" + errorText(err) + ")");
    }
  };
  if (labels) attempt("removing the new labels", () => /** @type {FrameNode} */ (labels).remove());
  variants.forEach((v) =>
    attempt("moving " + v.name + " back", () => {
      if (v.x !== previous.positions[v.id][0]) v.x = previous.positions[v.id][0];
      if (v.y !== previous.positions[v.id][1]) v.y = previous.positions[v.id][1];
    }),
  );
  if (set.width !== previous.width || set.height !== previous.height) {
    attempt("restoring the set's size", () => set.resizeWithoutConstraints(previous.width, previous.height));
  }
  if (set.layoutMode !== previous.layoutMode) {
    attempt("restoring the set's layout", () => (set.layoutMode = /** @type {any} */ (previous.layoutMode)));
  }
  return failed.length ? "Putting the set back failed at: " + failed.join("; ") + "." : "The set was put back as it was.";
}

/**
 * Column headers above the set and row labels to its left, in one transparent frame just below the set in the
 * layer order, so the labels can be moved or deleted as one.
 * @param {ComponentSetNode} set @param {import("../variant-grid.js").Grid} grid @param {BaseNode & ChildrenMixin} parent
 */
function makeLabels(set, grid, parent) {
  const frame = figma.createFrame();
  try {
    parent.insertChild(parent.children.indexOf(set), frame);
    frame.name = set.name + " labels";
    frame.fills = [];
    frame.clipsContent = false;
    frame.setPluginData(LABELS_KEY, set.id);
    const p = /** @type {any} */ (parent);
    if (p.layoutMode && p.layoutMode !== "NONE") frame.layoutPositioning = "ABSOLUTE";
    /** @type {Array<{node: TextNode, x: number, y: number}>} */
    const placed = [];
    const text = (/** @type {string} */ characters) => {
      const t = figma.createText();
      frame.appendChild(t);
      t.fontName = LABEL_FONT;
      t.fontSize = LABEL_SIZE;
      t.characters = characters;
      return t;
    };
    if (grid.columnProperty) {
      grid.columns.forEach((value, c) => {
        const t = text(value || "(no " + grid.columnProperty + ")");
        t.name = grid.columnProperty + "=" + value;
        placed.push({ node: t, x: set.x + grid.colX[c], y: set.y - LABEL_GAP - t.height });
      });
    }
    if (grid.rowProperties.length) {
      grid.rows.forEach((label, r) => {
        const t = text(label);
        t.name = grid.rowProperties.join(" / ") + ": " + label;
        placed.push({ node: t, x: set.x - LABEL_GAP - t.width, y: set.y + grid.rowY[r] + (grid.rowH[r] - t.height) / 2 });
      });
    }
    const minX = Math.min(set.x, ...placed.map((l) => l.x));
    const minY = Math.min(set.y, ...placed.map((l) => l.y));
    frame.x = minX;
    frame.y = minY;
    frame.resizeWithoutConstraints(Math.max(1, set.x + set.width - minX), Math.max(1, set.y + set.height - minY));
    placed.forEach((l) => {
      l.node.x = l.x - minX;
      l.node.y = l.y - minY;
    });
    return frame;
  } catch (err) {
    frame.remove();
    throw err;
  }
}
