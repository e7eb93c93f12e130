import { badParams } from "./errors.js";
import { parseColor, toHex } from "./colors.js";

/**
 * Variable values as people write them, checked against a variable's type before anything changes, and the alias
 * graph rules (no loops). Pure: looking variables up is the caller's job.
 */

export const TYPES = /** @type {const} */ (["COLOR", "FLOAT", "STRING", "BOOLEAN"]);

/**
 * A value checked against its type. Aliases are kept unresolved: by id ("VariableID:…") or by name (a DTCG reference
 * "{color.blue.500}", whose dots are the name's slashes: "color/blue/500").
 * @typedef {{value: VariableValue} | {aliasId: string} | {aliasName: string}} ParsedValue
 */

/** "{color.blue.500}" → "color/blue/500"; null when the text is not a reference. @param {string} text */
export function referenceName(text) {
  const m = /^\{\s*([^{}]+?)\s*\}$/.exec(text);
  return m ? m[1].split(".").join("/") : null;
}

/** The DTCG reference for a variable name, or null when the name cannot be written as one. @param {string} name */
export function referenceTo(name) {
  return name.indexOf(".") < 0 && !/[{}]/.test(name) ? "{" + name.split("/").join(".") + "}" : null;
}

/**
 * @param {VariableResolvedDataType} type
 * @param {unknown} raw the value as the caller sent it
 * @param {string} where names the value in errors, e.g. "variables[3] ('color/bg') in mode 'Dark'"
 * @returns {ParsedValue}
 */
export function parseValue(type, raw, where) {
  if (typeof raw === "string") {
    const text = raw.trim();
    if (text.indexOf("VariableID:") === 0) return { aliasId: text };
    const ref = referenceName(text);
    if (ref !== null) return { aliasName: ref };
  }
  const v = /** @type {any} */ (raw);
  if (v && typeof v === "object" && v.type === "VARIABLE_ALIAS") {
    if (typeof v.id !== "string" || !v.id) throw badParams(where + ": an alias object needs an 'id' such as \"VariableID:1:2\".");
    return { aliasId: v.id };
  }
  const fail = (/** @type {string} */ expected) =>
    badParams(where + ": value " + JSON.stringify(raw) + " does not fit a " + type + " variable: expected " + expected + ".");
  if (type === "COLOR") {
    try {
      return { value: parseColor(raw, "value") };
    } catch (err) {
      throw fail(
        "a colour as hex (\"#1E88E5\", \"#1E88E580\", #RGB, #RGBA), rgb()/rgba(), or an alias (\"VariableID:…\" or " +
          "\"{group.name}\")",
      );
    }
  }
  if (type === "FLOAT") {
    const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
    if (typeof n !== "number" || !isFinite(n)) throw fail("a number");
    return { value: n };
  }
  if (type === "BOOLEAN") {
    if (typeof raw === "boolean") return { value: raw };
    if (raw === "true" || raw === "false") return { value: raw === "true" };
    throw fail("true or false");
  }
  if (typeof raw !== "string") throw fail("a string");
  return { value: raw };
}

/**
 * A value in the form callers write it, so a result can be read and sent back: colours as hex, aliases as their
 * "VariableID:…", the rest as is.
 * @param {VariableValue | undefined} value
 * @returns {string | number | boolean | null}
 */
export function compactValue(value) {
  const v = /** @type {any} */ (value);
  if (v === undefined || v === null) return null;
  if (typeof v === "object" && v.type === "VARIABLE_ALIAS") return String(v.id);
  if (typeof v === "object" && typeof v.r === "number") return toHex(v);
  return v;
}

/**
 * One node of the alias graph: its collection, its modes, and what it aliases in a mode (a key, or null).
 * @typedef {{collection: string, modes: string[], alias: (modeId: string) => string | null}} AliasNode
 */

/**
 * The loop that letting `fromKey` alias `toKey` in `modeId` would close, as the keys along it, or null. Within one
 * collection an alias resolves in the same mode; across collections the consumer picks the mode, so every mode of
 * the other collection counts (a cautious reading: it may refuse a loop that no single consumer could hit).
 * @param {string} fromKey @param {string} modeId @param {string} toKey
 * @param {(key: string) => AliasNode | null} lookup
 * @returns {string[] | null}
 */
export function aliasLoop(fromKey, modeId, toKey, lookup) {
  if (toKey === fromKey) return [fromKey, fromKey];
  const from = lookup(fromKey);
  const to = lookup(toKey);
  if (!to) return null;
  /** @type {Set<string>} */
  const seen = new Set();
  const path = [fromKey];
  /** @param {string} key @param {AliasNode} node @param {string[]} modes @returns {boolean} */
  function visit(key, node, modes) {
    path.push(key);
    for (const mode of modes) {
      const state = key + "\u0000" + mode;
      if (seen.has(state)) continue;
      seen.add(state);
      const next = node.alias(mode);
      if (next === null) continue;
      if (next === fromKey) {
        path.push(next);
        return true;
      }
      const nextNode = lookup(next);
      if (nextNode && visit(next, nextNode, nextNode.collection === node.collection ? [mode] : nextNode.modes)) return true;
    }
    path.pop();
    return false;
  }
  const startModes = from && from.collection === to.collection ? [modeId] : to.modes;
  return visit(toKey, to, startModes) ? path : null;
}

/** "a → b → a" for an error message. @param {string[]} loop @param {(key: string) => string} [label] */
export function describeLoop(loop, label) {
  return loop.map((k) => (label ? label(k) : k)).join(" → ");
}
