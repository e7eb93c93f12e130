import { badParams, notFound } from "../errors.js";
import { getNode, requireProp } from "../nodes.js";
import { reqArray, optBool, optNumber, optEnum } from "../params.js";

/** @param {any} node @param {number} depth @param {any[]} out */
function collect(node, depth, out) {
  if ("annotations" in node && node.annotations.length) {
    out.push({ nodeId: node.id, name: node.name, type: node.type, annotations: node.annotations.map((/** @type {any} */ a) => Object.assign({}, a)) });
  }
  if (depth > 0 && "children" in node) node.children.forEach((/** @type {any} */ c) => collect(c, depth - 1, out));
}

/** GET_ANNOTATIONS */
export async function getAnnotations(/** @type {any} */ params) {
  const node = requireProp(await getNode(params.nodeId), "annotations", "read annotations");
  const includeChildren = optBool(params, "includeChildren", optBool(params, "include_children", false));
  const depth = includeChildren ? /** @type {number} */ (optNumber(params, "depth", 1, { min: 0, max: 20 })) : 0;
  /** @type {any[]} */
  const found = [];
  collect(node, depth, found);
  return { success: true, nodeId: node.id, annotations: node.annotations.map((/** @type {any} */ a) => Object.assign({}, a)), nodes: found };
}

/** SET_ANNOTATIONS: every annotation is checked (category ids too) first; `previous` holds the ones replaced. */
export async function setAnnotations(/** @type {any} */ params) {
  const node = requireProp(await getNode(params.nodeId), "annotations", "set annotations");
  const list = reqArray(params, "annotations");
  const mode = optEnum(params, "mode", /** @type {const} */ (["replace", "append"]), "replace");
  const wanted = list.filter((a) => a && typeof a.categoryId === "string").map((a) => a.categoryId);
  if (wanted.length) {
    const known = (await figma.annotations.getAnnotationCategoriesAsync()).map((c) => c.id);
    const missing = wanted.filter((id) => known.indexOf(id) < 0);
    if (missing.length) {
      throw notFound("Annotation categor" + (missing.length > 1 ? "ies " : "y ") + missing.join(", ") + " not found in this file. List them with design_get_annotation_categories.");
    }
  }
  const clean = list.map((/** @type {any} */ a, /** @type {number} */ i) => {
    if (!a || typeof a !== "object") throw badParams("annotations[" + i + "] must be an object with 'label' or 'labelMarkdown'.");
    /** @type {Record<string, any>} */
    const out = {};
    if (typeof a.labelMarkdown === "string") out.labelMarkdown = a.labelMarkdown;
    else if (typeof a.label === "string") out.label = a.label;
    if (Array.isArray(a.properties)) out.properties = a.properties.map((/** @type {any} */ p) => (typeof p === "string" ? { type: p } : p));
    if (typeof a.categoryId === "string") out.categoryId = a.categoryId;
    if (!out.label && !out.labelMarkdown && !out.properties) throw badParams("annotations[" + i + "] needs 'label', 'labelMarkdown' or 'properties'.");
    return out;
  });
  const previous = node.annotations.map((/** @type {any} */ a) => Object.assign({}, a));
  node.annotations = mode === "append" ? node.annotations.concat(clean) : clean;
  return { success: true, nodeId: node.id, previous: previous, annotations: node.annotations.map((/** @type {any} */ a) => Object.assign({}, a)) };
}

/** GET_ANNOTATION_CATEGORIES */
export async function getAnnotationCategories() {
  const categories = await figma.annotations.getAnnotationCategoriesAsync();
  return { success: true, categories: categories.map((c) => ({ id: c.id, label: c.label, color: c.color, isPreset: c.isPreset })) };
}
