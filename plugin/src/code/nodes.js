import { notFound, badParams, readOnly, PluginError } from "./errors.js";
import { toHex } from "./colors.js";

/**
 * Looks a node up by id with the async API. Ids are per file and per session, so a miss says how to get a fresh one.
 * @param {unknown} id
 * @param {string} [param]
 * @returns {Promise<BaseNode>}
 */
export async function getNode(id, param) {
  const key = param || "nodeId";
  if (typeof id !== "string" || id.length === 0) {
    throw badParams("Parameter '" + key + "' is required: a node id such as \"12:34\".");
  }
  const node = await figma.getNodeByIdAsync(id);
  if (!node || node.removed) {
    throw notFound(
      "Node " + id + " was not found in this file (" + figma.root.name + "). Node ids are specific to a file and " +
        "session and go stale: look the node up again (design_get_selection, design_get_file_data, or design_execute with " +
        "figma.currentPage.findAll) and retry with the new id.",
    );
  }
  return node;
}

/**
 * A node that lives on the canvas (not the document or a page).
 * @param {unknown} id @param {string} [param]
 * @returns {Promise<SceneNode>}
 */
export async function getSceneNode(id, param) {
  const node = await getNode(id, param);
  if (node.type === "DOCUMENT" || node.type === "PAGE") {
    throw badParams("Node " + node.id + " is a " + node.type + "; this command needs a layer on the canvas.");
  }
  return /** @type {SceneNode} */ (node);
}

/**
 * @param {BaseNode} node @param {string} prop @param {string} action
 * @returns {any} the node, whose type the caller knows only by the property it has
 */
export function requireProp(node, prop, action) {
  if (!(prop in node)) {
    throw new PluginError(
      "wrong_node_type",
      "Cannot " + action + " on " + node.type + " node " + node.id + " (" + node.name + "): it has no '" + prop + "'.",
    );
  }
  return /** @type {any} */ (node);
}

/**
 * @param {BaseNode} node @param {string[]} types @param {string} action
 */
export function requireType(node, types, action) {
  if (types.indexOf(node.type) < 0) {
    throw new PluginError(
      "wrong_node_type",
      "Cannot " + action + ": node " + node.id + " (" + node.name + ") is a " + node.type + ", expected " +
        types.join(" or ") + ".",
    );
  }
}

/**
 * A local main component or component set to change. An instance is refused with its main component's id, a
 * library component as read-only.
 * @param {BaseNode} node @param {string} action e.g. "set a description"
 * @returns {Promise<ComponentNode | ComponentSetNode>}
 */
export async function mainComponentOnly(node, action) {
  if (node.type === "INSTANCE") {
    const main = await /** @type {InstanceNode} */ (node).getMainComponentAsync();
    const owner = main && main.parent && main.parent.type === "COMPONENT_SET" ? main.parent : main;
    throw new PluginError(
      "wrong_node_type",
      "Cannot " + action + " on instance " + node.id + " (" + node.name + "): that belongs on its main component" +
        (owner ? " '" + owner.name + "' (" + owner.id + ")" + (owner.remote ? ", which comes from a library and is edited there" : ", so use that id") : "") +
        ".",
    );
  }
  requireType(node, ["COMPONENT", "COMPONENT_SET"], action);
  const component = /** @type {ComponentNode | ComponentSetNode} */ (node);
  if (component.remote) throw readOnly("Component '" + component.name + "' (" + component.id + ")");
  return component;
}

/** A short description of a node, safe for any node type. @param {BaseNode} node */
export function summarize(node) {
  const n = /** @type {any} */ (node);
  /** @type {Record<string, any>} */
  const out = { id: node.id, name: node.name, type: node.type };
  if (typeof n.x === "number") {
    out.x = n.x;
    out.y = n.y;
  }
  if (typeof n.width === "number") {
    out.width = n.width;
    out.height = n.height;
  }
  if (n.visible === false) out.visible = false;
  if (node.parent) out.parentId = node.parent.id;
  return out;
}

/** @param {readonly Paint[] | typeof figma.mixed | undefined} paints */
export function describePaints(paints) {
  if (!Array.isArray(paints)) return paints === undefined ? undefined : "mixed";
  return paints.map((p) => {
    /** @type {Record<string, any>} */
    const out = { type: p.type };
    if (p.type === "SOLID") out.color = toHex(p.color);
    if (p.opacity !== undefined && p.opacity !== 1) out.opacity = p.opacity;
    if (p.visible === false) out.visible = false;
    const bound = /** @type {any} */ (p).boundVariables;
    if (bound && bound.color) out.variableId = bound.color.id;
    return out;
  });
}

/**
 * A node and its descendants down to `depth`, with the properties a developer needs to rebuild it.
 * @param {BaseNode} node @param {number} depth @param {{count: number, max: number}} [budget]
 * @returns {Record<string, any>}
 */
export function describeTree(node, depth, budget) {
  const b = budget || { count: 0, max: 2000 };
  b.count++;
  const n = /** @type {any} */ (node);
  const out = summarize(node);
  if ("fills" in n) out.fills = describePaints(n.fills);
  if ("strokes" in n && n.strokes.length) {
    out.strokes = describePaints(n.strokes);
    out.strokeWeight = n.strokeWeight === figma.mixed ? "mixed" : n.strokeWeight;
  }
  if (typeof n.opacity === "number" && n.opacity !== 1) out.opacity = n.opacity;
  if (typeof n.cornerRadius === "number" && n.cornerRadius) out.cornerRadius = n.cornerRadius;
  if (n.layoutMode && n.layoutMode !== "NONE") {
    out.layout = {
      mode: n.layoutMode,
      itemSpacing: n.itemSpacing,
      padding: [n.paddingTop, n.paddingRight, n.paddingBottom, n.paddingLeft],
      primaryAxisAlignItems: n.primaryAxisAlignItems,
      counterAxisAlignItems: n.counterAxisAlignItems,
    };
  }
  if (node.type === "TEXT") {
    out.characters = n.characters;
    out.fontSize = n.fontSize === figma.mixed ? "mixed" : n.fontSize;
    out.fontName = n.fontName === figma.mixed ? "mixed" : n.fontName;
  }
  if (n.boundVariables && Object.keys(n.boundVariables).length) out.boundVariables = boundVariableIds(n.boundVariables);
  if (typeof n.description === "string" && n.description) out.description = n.description;
  if (Array.isArray(n.reactions) && n.reactions.length) out.reactions = n.reactions.length;
  if (n.variantProperties) out.variantProperties = n.variantProperties;
  if (node.type === "INSTANCE" && n.componentProperties) out.componentProperties = n.componentProperties;
  if ("children" in n) {
    if (depth > 0 && b.count < b.max) {
      out.children = n.children.map((/** @type {BaseNode} */ c) => describeTree(c, depth - 1, b));
    } else {
      out.childCount = n.children.length;
    }
  }
  return out;
}

/** @param {Record<string, any>} bound */
function boundVariableIds(bound) {
  /** @type {Record<string, any>} */
  const out = {};
  Object.keys(bound).forEach((field) => {
    const v = bound[field];
    out[field] = Array.isArray(v) ? v.map((a) => a && a.id) : v && v.id;
  });
  return out;
}

/** Whether a node or any of its ancestors is hidden. @param {BaseNode} node */
export function isHidden(node) {
  /** @type {BaseNode | null} */
  let cur = node;
  while (cur && cur.type !== "PAGE" && cur.type !== "DOCUMENT") {
    if (/** @type {any} */ (cur).visible === false) return true;
    cur = cur.parent;
  }
  return false;
}

/** Moves a new node under a parent given by id, or leaves it on the current page. @param {SceneNode} node @param {unknown} parentId */
export async function placeUnder(node, parentId) {
  if (parentId === undefined || parentId === null) return;
  const parent = await getNode(parentId, "parentId");
  if (!("appendChild" in parent)) {
    throw new PluginError("wrong_node_type", "Parent " + parent.id + " is a " + parent.type + " and cannot hold children.");
  }
  /** @type {any} */ (parent).appendChild(node);
}
