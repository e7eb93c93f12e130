import { badParams } from "./errors.js";

/**
 * Validators for command parameters. Each names the parameter and the expected shape in its error, so a model can
 * fix the call without guessing.
 */

/** @param {any} params @param {string} key @returns {string} */
export function reqString(params, key) {
  const value = params[key];
  if (typeof value !== "string" || value.length === 0) {
    throw badParams("Parameter '" + key + "' is required and must be a non-empty string.");
  }
  return value;
}

/** @param {any} params @param {string} key @param {string} [fallback] @returns {string|undefined} */
export function optString(params, key, fallback) {
  const value = params[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "string") throw badParams("Parameter '" + key + "' must be a string.");
  return value;
}

/**
 * @param {any} params @param {string} key
 * @param {{min?: number, max?: number}} [range]
 * @returns {number}
 */
export function reqNumber(params, key, range) {
  const value = params[key];
  if (typeof value !== "number" || !isFinite(value)) {
    throw badParams("Parameter '" + key + "' is required and must be a finite number.");
  }
  checkRange(key, value, range);
  return value;
}

/**
 * @param {any} params @param {string} key @param {number|undefined} fallback
 * @param {{min?: number, max?: number}} [range]
 * @returns {number|undefined}
 */
export function optNumber(params, key, fallback, range) {
  const value = params[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !isFinite(value)) throw badParams("Parameter '" + key + "' must be a finite number.");
  checkRange(key, value, range);
  return value;
}

/** @param {string} key @param {number} value @param {{min?: number, max?: number}} [range] */
function checkRange(key, value, range) {
  if (!range) return;
  if (range.min !== undefined && value < range.min) {
    throw badParams("Parameter '" + key + "' must be at least " + range.min + " (got " + value + ").");
  }
  if (range.max !== undefined && value > range.max) {
    throw badParams("Parameter '" + key + "' must be at most " + range.max + " (got " + value + ").");
  }
}

/** @param {any} params @param {string} key @param {boolean} fallback @returns {boolean} */
export function optBool(params, key, fallback) {
  const value = params[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "boolean") throw badParams("Parameter '" + key + "' must be true or false.");
  return value;
}

/** @param {any} params @param {string} key @returns {any[]} */
export function reqArray(params, key) {
  const value = params[key];
  if (!Array.isArray(value)) throw badParams("Parameter '" + key + "' is required and must be an array.");
  return value;
}

/** @param {any} params @param {string} key @returns {Record<string, any>} */
export function reqObject(params, key) {
  const value = params[key];
  if (!isPlainObject(value)) throw badParams("Parameter '" + key + "' is required and must be an object.");
  return value;
}

/** @param {any} params @param {string} key @returns {Record<string, any>|undefined} */
export function optObject(params, key) {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw badParams("Parameter '" + key + "' must be an object.");
  return value;
}

/**
 * @template {string} T
 * @param {any} params @param {string} key @param {readonly T[]} allowed @param {T|undefined} fallback
 * @returns {T|undefined}
 */
export function optEnum(params, key, allowed, fallback) {
  const value = params[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "string" || allowed.indexOf(/** @type {T} */ (value)) < 0) {
    throw badParams("Parameter '" + key + "' must be one of " + allowed.join(", ") + " (got " + JSON.stringify(value) + ").");
  }
  return /** @type {T} */ (value);
}

/** @param {unknown} value @returns {value is Record<string, any>} */
export function isPlainObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
