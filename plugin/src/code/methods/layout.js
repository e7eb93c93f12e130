import { badParams } from "../errors.js";
import { getSceneNode } from "../nodes.js";
import { reqArray, optNumber, optEnum } from "../params.js";
import { MAX_ARRANGED } from "../../shared/contract.js";

const LAYOUTS = /** @type {const} */ (["grid", "horizontal", "vertical"]);

/**
 * AUTO_ARRANGE: lay nodes of one parent out in a grid, a row or a column, starting at the top left of their current
 * bounds. Each column is as wide as its widest node and each row as tall as its tallest, so no two nodes overlap
 * whatever their sizes. Connectors are left alone: they stay attached to the nodes they join and follow them.
 */
export async function autoArrange(/** @type {any} */ params) {
  const ids = reqArray(params, "nodeIds");
  if (!ids.length || ids.length > MAX_ARRANGED) throw badParams("'nodeIds' must hold 1 to " + MAX_ARRANGED + " node ids.");
  const layout = /** @type {string} */ (optEnum(params, "layout", LAYOUTS, "grid"));
  const spacing = /** @type {number} */ (optNumber(params, "spacing", 40, { min: 0, max: 10000 }));
  const seen = new Set();
  /** @type {any[]} */
  const nodes = [];
  const skipped = [];
  for (const id of ids) {
    if (seen.has(id)) throw badParams("Node " + id + " is listed twice in 'nodeIds'.");
    seen.add(id);
    const node = /** @type {any} */ (await getSceneNode(id, "nodeIds"));
    if (node.type === "CONNECTOR") skipped.push(node.id);
    else nodes.push(node);
  }
  if (!nodes.length) throw badParams("'nodeIds' names only connectors; they follow the nodes they join, so list those.");
  const parent = nodes[0].parent;
  const stray = nodes.find((n) => n.parent !== parent);
  if (stray) throw badParams("Nodes to arrange must share one parent; " + stray.id + " is not in " + (parent ? parent.name : "the page") + ".");
  const columns =
    layout === "horizontal" ? nodes.length : layout === "vertical" ? 1 : /** @type {number} */ (optNumber(params, "columns", Math.ceil(Math.sqrt(nodes.length)), { min: 1, max: 100 }));
  const rows = Math.ceil(nodes.length / columns);
  const widths = new Array(Math.min(columns, nodes.length)).fill(0);
  const heights = new Array(rows).fill(0);
  nodes.forEach((n, i) => {
    widths[i % columns] = Math.max(widths[i % columns], n.width);
    heights[Math.floor(i / columns)] = Math.max(heights[Math.floor(i / columns)], n.height);
  });
  const left = Math.min(...nodes.map((n) => n.x));
  const top = Math.min(...nodes.map((n) => n.y));
  /** @param {number[]} sizes @param {number} index */
  const offset = (sizes, index) => sizes.slice(0, index).reduce((sum, size) => sum + size + spacing, 0);
  const moved = nodes.map((n, i) => {
    const from = { x: n.x, y: n.y };
    n.x = left + offset(widths, i % columns);
    n.y = top + offset(heights, Math.floor(i / columns));
    return { id: n.id, from: from, to: { x: n.x, y: n.y } };
  });
  /** @type {Record<string, any>} */
  const out = { success: true, layout: layout, columns: Math.min(columns, nodes.length), rows: rows, spacing: spacing, nodes: moved };
  if (skipped.length) out.skippedConnectors = skipped;
  return out;
}
