/**
 * Turns any value a script or a console call produced into plain JSON data that survives postMessage and the
 * WebSocket: cycles are marked, deep or wide structures and long strings are capped, nodes become short summaries.
 */

export const LIMITS = { depth: 6, stringLength: 10000, arrayItems: 200, objectKeys: 200 };

/**
 * @param {unknown} value
 * @param {Partial<typeof LIMITS>} [limits]
 * @returns {any}
 */
export function toPlain(value, limits) {
  const caps = Object.assign({}, LIMITS, limits || {});
  return walk(value, caps, 0, []);
}

/**
 * @param {unknown} value
 * @param {typeof LIMITS} caps
 * @param {number} depth
 * @param {unknown[]} stack objects being visited, to detect cycles
 * @returns {any}
 */
function walk(value, caps, depth, stack) {
  if (value === null || value === undefined) return null;
  const kind = typeof value;
  if (kind === "string") return capString(/** @type {string} */ (value), caps.stringLength);
  if (kind === "number") return isFinite(/** @type {number} */ (value)) ? value : String(value);
  if (kind === "boolean") return value;
  if (kind === "bigint") return String(value) + "n";
  if (kind === "symbol") return String(value);
  if (kind === "function") return "[Function " + (/** @type {Function} */ (value).name || "anonymous") + "]";
  const obj = /** @type {any} */ (value);
  if (stack.indexOf(obj) >= 0) return "[Circular]";
  if (obj instanceof Error || (typeof obj.message === "string" && typeof obj.stack === "string")) {
    return { name: obj.name, message: capString(String(obj.message), caps.stringLength), stack: capString(String(obj.stack || ""), 2000) };
  }
  if (isNodeLike(obj)) return nodeSummary(obj);
  if (obj instanceof Uint8Array) return { type: "Uint8Array", byteLength: obj.byteLength };
  if (obj instanceof Date) return isNaN(obj.getTime()) ? "Invalid Date" : obj.toISOString();
  if (depth >= caps.depth) return Array.isArray(obj) ? "[Array(" + obj.length + ")]" : "[Object]";
  stack.push(obj);
  try {
    if (Array.isArray(obj) || obj instanceof Set) {
      const items = Array.isArray(obj) ? obj : Array.from(obj);
      const out = [];
      const n = Math.min(items.length, caps.arrayItems);
      for (let i = 0; i < n; i++) out.push(walk(items[i], caps, depth + 1, stack));
      if (items.length > n) out.push("… " + (items.length - n) + " more items");
      return out;
    }
    if (obj instanceof Map) {
      /** @type {Record<string, any>} */
      const out = {};
      let count = 0;
      obj.forEach((v, k) => {
        if (count++ < caps.objectKeys) out[String(k)] = walk(v, caps, depth + 1, stack);
      });
      if (count > caps.objectKeys) out["…"] = count - caps.objectKeys + " more entries";
      return out;
    }
    /** @type {Record<string, any>} */
    const out = {};
    const keys = Object.keys(obj);
    const n = Math.min(keys.length, caps.objectKeys);
    for (let i = 0; i < n; i++) {
      let item;
      try {
        item = obj[keys[i]];
      } catch (err) {
        item = "[Unreadable: " + (err instanceof Error ? err.message : String(err)) + "]";
      }
      out[keys[i]] = walk(item, caps, depth + 1, stack);
    }
    if (keys.length > n) out["…"] = keys.length - n + " more keys";
    return out;
  } finally {
    stack.pop();
  }
}

/**
 * The first `max` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair: half an emoji is not
 * text, and it would reach the server as a lone surrogate.
 * @param {string} text @param {number} max
 */
export function cutText(text, max) {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** @param {string} text @param {number} max */
export function capString(text, max) {
  if (text.length <= max) return text;
  const kept = cutText(text, max);
  return kept + "… [" + (text.length - kept.length) + " more characters]";
}

/** Nodes keep their data in prototype getters, so a plain key walk would show them as empty objects. */
/** @param {any} obj */
function isNodeLike(obj) {
  return typeof obj.id === "string" && typeof obj.type === "string" && "parent" in obj;
}

/** @param {any} node */
function nodeSummary(node) {
  if (node.removed) return { id: node.id, type: node.type, removed: true };
  return { id: node.id, type: node.type, name: node.name };
}

/**
 * The text of a console call: strings as they are, everything else as JSON, joined by spaces.
 * @param {unknown[]} args
 * @param {number} max
 */
export function formatMessage(args, max) {
  const parts = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (typeof arg === "string") {
      parts.push(arg);
    } else if (arg === undefined) {
      parts.push("undefined");
    } else {
      let text;
      try {
        text = JSON.stringify(toPlain(arg, { depth: 4, stringLength: 2000, arrayItems: 50, objectKeys: 50 }));
      } catch (err) {
        text = String(arg);
      }
      parts.push(text === undefined ? String(arg) : text);
    }
  }
  return capString(parts.join(" "), max);
}
