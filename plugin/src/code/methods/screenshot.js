import { PluginError } from "../errors.js";
import { getNode, isHidden } from "../nodes.js";
import { optNumber, optEnum } from "../params.js";

export const DEFAULT_MAX_EDGE = 1568;

/**
 * The box to export: the node's own size, or for a page the union of its top-level layers.
 * @param {any} node
 */
function boundsOf(node) {
  if (node.type !== "PAGE") return { width: node.width, height: node.height };
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  node.children.forEach((/** @type {any} */ c) => {
    if (c.visible === false) return;
    const b = c.absoluteBoundingBox || { x: c.x, y: c.y, width: c.width, height: c.height };
    minX = Math.min(minX, b.x);
    minY = Math.min(minY, b.y);
    maxX = Math.max(maxX, b.x + b.width);
    maxY = Math.max(maxY, b.y + b.height);
  });
  return maxX > minX ? { width: maxX - minX, height: maxY - minY } : { width: 0, height: 0 };
}

/** CAPTURE_SCREENSHOT: exportAsync of a node or the current page as PNG, JPG or SVG, long edge capped. */
export async function captureScreenshot(/** @type {any} */ params) {
  const format = optEnum(params, "format", /** @type {const} */ (["PNG", "JPG", "SVG"]), "PNG");
  const scale = /** @type {number} */ (optNumber(params, "scale", 1, { min: 0.01, max: 4 }));
  const maxEdge = /** @type {number} */ (optNumber(params, "maxEdge", DEFAULT_MAX_EDGE, { min: 16, max: 8192 }));
  /** @type {any} */
  const node = params.nodeId ? await getNode(params.nodeId) : figma.currentPage;
  if (node.type === "DOCUMENT") throw new PluginError("wrong_node_type", "The document cannot be exported; pass a page or a layer id.");
  if (node.type === "PAGE" && node.id !== figma.currentPage.id) {
    throw new PluginError("wrong_node_type", "Page " + node.name + " is not the current page; switch to it or pass a layer id.");
  }
  if (typeof node.exportAsync !== "function") throw new PluginError("wrong_node_type", node.type + " nodes cannot be exported.");
  if (isHidden(node)) {
    throw new PluginError(
      "hidden_node",
      "Node " + node.id + " (" + node.name + ") is hidden (it or a parent has visible=false), so its image would be blank. " +
        "Make it visible or capture another node.",
    );
  }
  const box = boundsOf(node);
  if (!(box.width > 0 && box.height > 0)) {
    throw new PluginError(
      "empty_node",
      (node.type === "PAGE" ? "The current page has no visible layers" : "Node " + node.id + " has zero size") +
        ", so there is nothing to capture.",
    );
  }
  const longEdge = Math.max(box.width, box.height);
  const effective = format === "SVG" ? 1 : Math.min(scale, maxEdge / longEdge);
  /** @type {any} */
  const settings = format === "SVG" ? { format: "SVG" } : { format: format, constraint: { type: "SCALE", value: effective } };
  const bytes = await node.exportAsync(settings);
  if (!bytes || !bytes.length) {
    throw new PluginError(
      "empty_export",
      "The export of " + node.id + " returned no data. The node id may be stale: look it up again and retry.",
    );
  }
  return {
    success: true,
    image: {
      base64: figma.base64Encode(bytes),
      format: format,
      mimeType: format === "PNG" ? "image/png" : format === "JPG" ? "image/jpeg" : "image/svg+xml",
      width: Math.round(box.width * effective),
      height: Math.round(box.height * effective),
      scale: effective,
      requestedScale: scale,
      capped: effective < scale,
      byteLength: bytes.length,
      nodeId: node.id,
      nodeName: node.name,
    },
  };
}
