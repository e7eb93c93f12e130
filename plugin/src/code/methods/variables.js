import { PluginError, notFound, badParams } from "../errors.js";
import { parseColor, toHex } from "../colors.js";
import { reqString, optString, reqArray, optObject, optEnum } from "../params.js";

const TYPES = /** @type {const} */ (["COLOR", "FLOAT", "STRING", "BOOLEAN"]);

/** @param {unknown} id */
async function getVariable(id) {
  if (typeof id !== "string" || !id) throw badParams("Parameter 'variableId' is required: an id such as \"VariableID:1:2\".");
  const v = await figma.variables.getVariableByIdAsync(id);
  if (!v) throw notFound("Variable " + id + " does not exist in this file. List variables (design_get_variables) and retry with a current id.");
  return v;
}

/** @param {unknown} id */
async function getCollection(id) {
  if (typeof id !== "string" || !id) throw badParams("Parameter 'collectionId' is required: an id such as \"VariableCollectionId:1:0\".");
  const c = await figma.variables.getVariableCollectionByIdAsync(id);
  if (!c) throw notFound("Variable collection " + id + " does not exist in this file. List collections (design_get_variables) and retry.");
  return c;
}

/** @param {VariableValue} value */
function plainValue(value) {
  const v = /** @type {any} */ (value);
  if (v && typeof v === "object" && v.type === "VARIABLE_ALIAS") return { type: "VARIABLE_ALIAS", id: v.id };
  if (v && typeof v === "object" && typeof v.r === "number") {
    return { r: v.r, g: v.g, b: v.b, a: typeof v.a === "number" ? v.a : 1, hex: toHex(v) };
  }
  return v;
}

/** @param {Variable} v */
export function describeVariable(v) {
  /** @type {Record<string, any>} */
  const valuesByMode = {};
  Object.keys(v.valuesByMode).forEach((mode) => {
    valuesByMode[mode] = plainValue(v.valuesByMode[mode]);
  });
  return {
    id: v.id,
    name: v.name,
    key: v.key,
    resolvedType: v.resolvedType,
    description: v.description,
    variableCollectionId: v.variableCollectionId,
    valuesByMode: valuesByMode,
    scopes: v.scopes,
    hiddenFromPublishing: v.hiddenFromPublishing,
    remote: v.remote,
  };
}

/** @param {VariableCollection} c */
export function describeCollection(c) {
  return {
    id: c.id,
    name: c.name,
    key: c.key,
    modes: c.modes.map((m) => ({ modeId: m.modeId, name: m.name })),
    defaultModeId: c.defaultModeId,
    variableIds: c.variableIds.slice(),
    hiddenFromPublishing: c.hiddenFromPublishing,
    remote: c.remote,
  };
}

/** The snapshot sent as VARIABLES_DATA and returned by GET_VARIABLES_DATA. */
export async function variablesSnapshot() {
  const variables = await figma.variables.getLocalVariablesAsync();
  const collections = await figma.variables.getLocalVariableCollectionsAsync();
  return {
    success: true,
    timestamp: Date.now(),
    fileKey: figma.fileKey || null,
    variables: variables.map(describeVariable),
    variableCollections: collections.map(describeCollection),
  };
}

/**
 * Converts a value given by a caller to the variable's type: hex strings for colours, "VariableID:…" for aliases.
 * @param {Variable} variable @param {unknown} value
 * @returns {Promise<VariableValue>}
 */
export async function coerceValue(variable, value) {
  return coerceForType(variable.resolvedType, value, variable.name);
}

/** @param {VariableResolvedDataType} type @param {unknown} value @param {string} name @returns {Promise<VariableValue>} */
async function coerceForType(type, value, name) {
  if (typeof value === "string" && value.indexOf("VariableID:") === 0) {
    const target = await getVariable(value);
    return figma.variables.createVariableAlias(target);
  }
  const v = /** @type {any} */ (value);
  if (v && typeof v === "object" && v.type === "VARIABLE_ALIAS" && typeof v.id === "string") {
    return figma.variables.createVariableAlias(await getVariable(v.id));
  }
  const fail = (/** @type {string} */ expected) =>
    badParams("Value " + JSON.stringify(value) + " does not fit " + type + " variable '" + name + "': expected " + expected + ".");
  if (type === "COLOR") {
    try {
      return parseColor(value, "value");
    } catch (err) {
      throw fail("a hex colour like \"#1E88E5\" or \"#1E88E580\", or a \"VariableID:…\" alias");
    }
  }
  if (type === "FLOAT") {
    const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof n !== "number" || !isFinite(n)) throw fail("a number");
    return n;
  }
  if (type === "BOOLEAN") {
    if (typeof value === "boolean") return value;
    if (value === "true" || value === "false") return value === "true";
    throw fail("true or false");
  }
  if (typeof value !== "string") throw fail("a string");
  return value;
}

/** GET_VARIABLES_DATA and REFRESH_VARIABLES */
export async function getVariablesData() {
  return variablesSnapshot();
}

/** UPDATE_VARIABLE */
export async function updateVariable(/** @type {any} */ params) {
  const variable = await getVariable(params.variableId);
  if (!("value" in params)) throw badParams("Parameter 'value' is required.");
  const collection = await getCollection(variable.variableCollectionId);
  const modeId = optString(params, "modeId", collection.defaultModeId) || collection.defaultModeId;
  if (!collection.modes.some((m) => m.modeId === modeId)) {
    throw notFound(
      "Mode " + modeId + " is not a mode of collection '" + collection.name + "'. Its modes: " +
        collection.modes.map((m) => m.modeId + " (" + m.name + ")").join(", ") + ".",
    );
  }
  variable.setValueForMode(modeId, await coerceValue(variable, params.value));
  return { success: true, variable: describeVariable(variable), modeId: modeId };
}

/** CREATE_VARIABLE */
export async function createVariable(/** @type {any} */ params) {
  const name = reqString(params, "name");
  const collection = await getCollection(params.collectionId);
  const type = optEnum(params, "resolvedType", TYPES, undefined);
  if (!type) throw badParams("Parameter 'resolvedType' is required: one of " + TYPES.join(", ") + ".");
  const values = optObject(params, "valuesByMode") || {};
  const variable = figma.variables.createVariable(name, collection, type);
  try {
    const description = optString(params, "description");
    if (description !== undefined) variable.description = description;
    if (params.scopes !== undefined) variable.scopes = reqArray(params, "scopes");
    for (const key of Object.keys(values)) {
      const mode = collection.modes.find((m) => m.modeId === key || m.name === key);
      if (!mode) throw notFound("Mode '" + key + "' is not in collection '" + collection.name + "'.");
      variable.setValueForMode(mode.modeId, await coerceForType(type, values[key], name));
    }
  } catch (err) {
    variable.remove();
    throw err;
  }
  return { success: true, variable: describeVariable(variable) };
}

/** DELETE_VARIABLE */
export async function deleteVariable(/** @type {any} */ params) {
  const variable = await getVariable(params.variableId);
  const info = { id: variable.id, name: variable.name };
  variable.remove();
  return { success: true, deleted: info };
}

/** RENAME_VARIABLE */
export async function renameVariable(/** @type {any} */ params) {
  const variable = await getVariable(params.variableId);
  const newName = reqString(params, "newName");
  const oldName = variable.name;
  variable.name = newName;
  return { success: true, oldName: oldName, variable: describeVariable(variable) };
}

/** SET_VARIABLE_DESCRIPTION */
export async function setVariableDescription(/** @type {any} */ params) {
  const variable = await getVariable(params.variableId);
  if (typeof params.description !== "string") throw badParams("Parameter 'description' is required and must be a string.");
  variable.description = params.description;
  return { success: true, variable: describeVariable(variable) };
}

/** CREATE_VARIABLE_COLLECTION */
export async function createCollection(/** @type {any} */ params) {
  const name = reqString(params, "name");
  const initial = optString(params, "initialModeName");
  const extra = params.additionalModes === undefined ? [] : reqArray(params, "additionalModes");
  if (extra.some((m) => typeof m !== "string" || !m)) throw badParams("'additionalModes' must be an array of non-empty strings.");
  const collection = figma.variables.createVariableCollection(name);
  try {
    if (initial) collection.renameMode(collection.defaultModeId, initial);
    extra.forEach((m) => collection.addMode(m));
  } catch (err) {
    collection.remove();
    throw new PluginError(
      "plugin_api_error",
      "Could not add the modes (" + (err instanceof Error ? err.message : String(err)) + "); the collection was not kept. " +
        "Free plans allow few modes per collection: try fewer modes.",
    );
  }
  return { success: true, collection: describeCollection(collection) };
}

/** DELETE_VARIABLE_COLLECTION */
export async function deleteCollection(/** @type {any} */ params) {
  const collection = await getCollection(params.collectionId);
  const info = { id: collection.id, name: collection.name, variableCount: collection.variableIds.length };
  collection.remove();
  return { success: true, deleted: info };
}

/** ADD_MODE */
export async function addMode(/** @type {any} */ params) {
  const collection = await getCollection(params.collectionId);
  const modeName = reqString(params, "modeName");
  const modeId = collection.addMode(modeName);
  return { success: true, modeId: modeId, collection: describeCollection(collection) };
}

/** RENAME_MODE */
export async function renameMode(/** @type {any} */ params) {
  const collection = await getCollection(params.collectionId);
  const modeId = reqString(params, "modeId");
  const newName = reqString(params, "newName");
  if (!collection.modes.some((m) => m.modeId === modeId)) {
    throw notFound("Mode " + modeId + " is not in collection '" + collection.name + "'.");
  }
  collection.renameMode(modeId, newName);
  return { success: true, collection: describeCollection(collection) };
}

