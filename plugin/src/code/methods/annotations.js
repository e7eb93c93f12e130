import { badParams, notFound } from "../errors.js";
import { getNode, requireProp } from "../nodes.js";
import { reqArray, optBool, optNumber, optEnum } from "../params.js";
import { READ_MAX_CHARS, childrenOf, resume, startPath } from "./layers.js";

/** The most layers one GET_ANNOTATIONS page visits: a subtree with few annotations still answers in bounded time. */
const VISIT_MAX = 20000;

/** @param {any} node */
function entryOf(node) {
  return { nodeId: node.id, name: node.name, type: node.type, annotations: node.annotations.map((/** @type {any} */ a) => Object.assign({}, a)) };
}

/**
 * GET_ANNOTATIONS: the annotated layers of a node's subtree (to `depth` with includeChildren), one page at a time,
 * walked lazily in document order from the position `start` (**ours**, child indexes from the node, as `next`
 * answered); a page stops before it would pass `maxChars` (at most READ_MAX_CHARS) of entries or after VISIT_MAX
 * layers, so its cost and size stay the same on any size of subtree. The node's own annotations come on the first page.
 * @param {any} params
 */
export async function getAnnotations(params) {
  const node = await getNode(params.nodeId);
  // A page holds no annotations of its own but may be read for its layers'; the document may not.
  if (node.type === "DOCUMENT" || !("children" in node)) requireProp(node, "annotations", "read annotations");
  const includeChildren = optBool(params, "includeChildren", optBool(params, "include_children", false));
  const depth = includeChildren ? /** @type {number} */ (optNumber(params, "depth", 1, { min: 0, max: 20 })) : 0;
  const maxChars = /** @type {number} */ (optNumber(params, "maxChars", READ_MAX_CHARS, { min: 1, max: READ_MAX_CHARS }));
  const start = startPath(params.start);
  const own = "annotations" in node ? node.annotations.map((/** @type {any} */ a) => Object.assign({}, a)) : [];
  /** @type {Record<string, any>} */
  const out = start.length ? { success: true, nodeId: node.id, nodes: [], next: null } : { success: true, nodeId: node.id, annotations: own, nodes: [], next: null };
  const walk = resume([node], start, []);
  let chars = 0;
  let visited = 0;
  // The position of the layer the walk is at: an ancestor's frame already points past it.
  const here = () => walk.map((f, level) => (level === walk.length - 1 ? f.index : f.index - 1));
  while (walk.length) {
    const frame = walk[walk.length - 1];
    if (frame.index >= frame.siblings.length) {
      walk.pop();
      continue;
    }
    if (visited >= VISIT_MAX) {
      out.next = here();
      break;
    }
    const layer = /** @type {any} */ (frame.siblings[frame.index]);
    if ("annotations" in layer && layer.annotations.length) {
      const entry = entryOf(layer);
      const size = JSON.stringify(entry).length + 1;
      if (out.nodes.length && chars + size > maxChars) {
        out.next = here();
        break;
      }
      chars += size;
      out.nodes.push(entry);
    }
    visited += 1;
    frame.index += 1;
    const kids = childrenOf(layer);
    if (kids && kids.length && walk.length - 1 < depth) walk.push({ siblings: kids, index: 0, box: null });
  }
  return out;
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
