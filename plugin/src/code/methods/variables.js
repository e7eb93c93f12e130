import { PluginError, notFound, badParams, conflict, readOnly, errorText } from "../errors.js";
import { toHex } from "../colors.js";
import { reqString, optString, optNumber, reqArray, optObject, optEnum } from "../params.js";
import { READ_MAX_CHARS, READ_MAX_NODES } from "./layers.js";
import { TYPES, parseValue, compactValue, aliasLoop, describeLoop, referenceTo } from "../variable-values.js";

/** The most tokens one SETUP_DESIGN_TOKENS may create; a deleted collection's `recreate` holds at most this many. */
export const MAX_SETUP_TOKENS = 500;

const LIST_HINT = "List them with design_get_variables and retry with a current id.";

/** @param {unknown} id @param {string} [param] */
export async function getVariable(id, param) {
  const key = param || "variableId";
  if (typeof id !== "string" || !id) throw badParams("Parameter '" + key + "' is required: an id such as \"VariableID:1:2\".");
  const v = await figma.variables.getVariableByIdAsync(id);
  if (!v) throw notFound("Variable " + id + " (" + key + ") was not found in this file. " + LIST_HINT);
  return v;
}

/** @param {unknown} id */
export async function getCollection(id) {
  if (typeof id !== "string" || !id) throw badParams("Parameter 'collectionId' is required: an id such as \"VariableCollectionId:1:0\".");
  const c = await figma.variables.getVariableCollectionByIdAsync(id);
  if (!c) throw notFound("Variable collection " + id + " was not found in this file. " + LIST_HINT);
  return c;
}

/** @param {Variable} v */
export function editableVariable(v) {
  if (v.remote) throw readOnly("Variable '" + v.name + "' (" + v.id + ")");
  return v;
}

/** @param {VariableCollection} c */
export function editableCollection(c) {
  if (c.remote) throw readOnly("Variable collection '" + c.name + "' (" + c.id + ")");
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
 * READ_VARIABLES: the local variables from `offset` in the editor's order, as many as fit in READ_MAX_CHARS of records
 * (at most `maxItems`), so no reply grows with the file; the first page also carries the collections, each with its
 * variable count rather than its id list. `next` is the following page's offset, null at the end.
 */
export async function readVariables(/** @type {any} */ params) {
  const offset = /** @type {number} */ (optNumber(params, "offset", 0, { min: 0 }));
  const maxItems = /** @type {number} */ (optNumber(params, "maxItems", 1000, { min: 1, max: READ_MAX_NODES }));
  const all = await figma.variables.getLocalVariablesAsync();
  /** @type {Record<string, any>} */
  const out = { success: true, total: all.length, offset: offset, variables: [], next: null };
  if (offset === 0) {
    out.variableCollections = (await figma.variables.getLocalVariableCollectionsAsync()).map((c) => {
      const d = /** @type {Record<string, any>} */ (describeCollection(c));
      d.variableCount = d.variableIds.length;
      delete d.variableIds;
      return d;
    });
  }
  let chars = 0;
  let index = offset;
  for (; index < all.length && out.variables.length < maxItems && chars < READ_MAX_CHARS; index++) {
    const d = describeVariable(all[index]);
    d.codeSyntax = all[index].codeSyntax;
    chars += JSON.stringify(d).length + 1;
    out.variables.push(d);
  }
  if (index < all.length) out.next = index;
  return out;
}

/** Local variables of one collection by name. @param {string} collectionId @returns {Promise<Map<string, Variable>>} */
export async function variablesByName(collectionId) {
  const all = await figma.variables.getLocalVariablesAsync();
  /** @type {Map<string, Variable>} */
  const out = new Map();
  all.forEach((v) => {
    if (v.variableCollectionId === collectionId) out.set(v.name, v);
  });
  return out;
}

/**
 * The variable an alias names: by id anywhere in the file, or by name inside the collection; it must have the same
 * type as the variable that will point to it.
 * @param {{aliasId: string} | {aliasName: string}} parsed
 * @param {VariableResolvedDataType} type
 * @param {Map<string, Variable>} names the collection's variables by name
 * @param {string} collectionName for messages
 * @param {string} where
 */
export async function aliasTarget(parsed, type, names, collectionName, where) {
  /** @type {Variable | null | undefined} */
  let target;
  if ("aliasId" in parsed) {
    target = await figma.variables.getVariableByIdAsync(parsed.aliasId);
    if (!target) throw notFound(where + ": the alias target " + parsed.aliasId + " was not found in this file. " + LIST_HINT);
  } else {
    target = names.get(parsed.aliasName);
    if (!target) {
      throw notFound(
        where + ": no variable named '" + parsed.aliasName + "' in collection '" + collectionName + "' for the alias. " +
          "References like {color.blue.500} name a variable of the same collection (color/blue/500); use " +
          "\"VariableID:…\" for one in another collection.",
      );
    }
  }
  if (target.resolvedType !== type) {
    throw badParams(
      where + ": the alias target '" + target.name + "' is a " + target.resolvedType + " variable; a " + type +
        " variable can only alias a " + type + " variable.",
    );
  }
  return target;
}

/**
 * The alias graph of the file's local variables, with pending changes laid over it (variableId → modeId → target id,
 * or null for a plain value), to refuse a change that would close a loop.
 * @param {Map<string, Map<string, string | null>>} pending
 * @returns {Promise<(key: string) => import("../variable-values.js").AliasNode | null>}
 */
export async function aliasGraph(pending) {
  const variables = await figma.variables.getLocalVariablesAsync();
  const collections = await figma.variables.getLocalVariableCollectionsAsync();
  /** @type {Map<string, string[]>} */
  const modes = new Map();
  collections.forEach((c) => modes.set(c.id, c.modes.map((m) => m.modeId)));
  /** @type {Map<string, Variable>} */
  const byId = new Map();
  variables.forEach((v) => byId.set(v.id, v));
  return (key) => {
    const v = byId.get(key);
    if (!v) return null;
    const values = v.valuesByMode;
    const over = pending.get(key);
    return {
      collection: v.variableCollectionId,
      modes: modes.get(v.variableCollectionId) || Object.keys(values),
      alias: (modeId) => {
        if (over && over.has(modeId)) return /** @type {string | null} */ (over.get(modeId));
        const value = /** @type {any} */ (values[modeId]);
        return value && typeof value === "object" && value.type === "VARIABLE_ALIAS" ? value.id : null;
      },
    };
  };
}

/**
 * Refuses alias changes that would close a loop. `changes` are [variable, modeId, target id or null].
 * @param {Array<[Variable, string, string | null, string]>} changes the last item names the change in errors
 */
export async function refuseAliasLoops(changes) {
  if (!changes.some((c) => c[2] !== null)) return;
  /** @type {Map<string, Map<string, string | null>>} */
  const pending = new Map();
  changes.forEach(([v, modeId, target]) => {
    if (!pending.has(v.id)) pending.set(v.id, new Map());
    /** @type {Map<string, string | null>} */ (pending.get(v.id)).set(modeId, target);
  });
  const lookup = await aliasGraph(pending);
  const names = new Map();
  for (const [v, modeId, target, where] of changes) {
    if (target === null) continue;
    const loop = aliasLoop(v.id, modeId, target, lookup);
    if (loop) {
      for (const id of loop) {
        if (!names.has(id)) {
          const found = await figma.variables.getVariableByIdAsync(id);
          names.set(id, found ? found.name : id);
        }
      }
      throw badParams(where + ": the alias would make a loop (" + describeLoop(loop, (k) => names.get(k)) + "). Point it at a variable that does not lead back.");
    }
  }
}

/**
 * A mode of the collection named by id or by name.
 * @param {VariableCollection} collection @param {unknown} key @param {string} where
 */
export function findMode(collection, key, where) {
  const mode = collection.modes.find((m) => m.modeId === key) || collection.modes.find((m) => m.name === key);
  if (!mode) {
    throw notFound(
      where + ": mode " + JSON.stringify(key) + " is not a mode of collection '" + collection.name + "'. Its modes: " +
        collection.modes.map((m) => m.modeId + " (" + m.name + ")").join(", ") + ".",
    );
  }
  return mode;
}

/**
 * Checks one value for a variable of the collection and turns it into what setValueForMode takes.
 * @param {VariableResolvedDataType} type @param {unknown} raw @param {VariableCollection} collection
 * @param {Map<string, Variable>} names @param {string} where
 * @returns {Promise<{value: VariableValue, target: Variable | null}>}
 */
export async function resolveValue(type, raw, collection, names, where) {
  const parsed = parseValue(type, raw, where);
  if ("value" in parsed) return { value: parsed.value, target: null };
  const target = await aliasTarget(parsed, type, names, collection.name, where);
  return { value: figma.variables.createVariableAlias(target), target: target };
}

/** @param {Variable} v @param {string} where */
function label(v, where) {
  return where + " ('" + v.name + "')";
}

/** GET_VARIABLES_DATA and REFRESH_VARIABLES */
export async function getVariablesData() {
  return variablesSnapshot();
}

/**
 * UPDATE_VARIABLE: a value in one mode, the description, or both in one step. `previous` and `value` are the mode's
 * value before and after, as callers write values; `previousDescription` is there when the description changed.
 */
export async function updateVariable(/** @type {any} */ params) {
  const variable = editableVariable(await getVariable(params.variableId));
  const hasValue = "value" in params;
  const description = optString(params, "description");
  if (!hasValue && description === undefined) throw badParams("Give 'value' (with 'modeId', default: the first mode), 'description', or both.");
  /** @type {{modeId: string, value: VariableValue} | null} */
  let change = null;
  if (hasValue) {
    const collection = await getCollection(variable.variableCollectionId);
    const mode = findMode(collection, optString(params, "modeId", collection.defaultModeId), "UPDATE_VARIABLE");
    const where = label(variable, "value");
    const resolved = await resolveValue(variable.resolvedType, params.value, collection, await variablesByName(collection.id), where);
    await refuseAliasLoops([[variable, mode.modeId, resolved.target ? resolved.target.id : null, where]]);
    change = { modeId: mode.modeId, value: resolved.value };
  }
  /** @type {Record<string, any>} */
  const out = { success: true };
  const previousDescription = variable.description;
  try {
    if (description !== undefined) {
      variable.description = description;
      out.previousDescription = previousDescription;
    }
    if (change) {
      const previous = compactValue(variable.valuesByMode[change.modeId]);
      variable.setValueForMode(change.modeId, change.value);
      Object.assign(out, { modeId: change.modeId, previous: previous, value: compactValue(variable.valuesByMode[change.modeId]) });
    }
  } catch (err) {
    if (variable.description !== previousDescription) variable.description = previousDescription;
    throw new PluginError("plugin_api_error", "UPDATE_VARIABLE failed: " + errorText(err) + ". Nothing was changed.", { rolledBack: true });
  }
  out.variable = describeVariable(variable);
  return out;
}

/**
 * Refuses a variable name that is empty or already used in the collection.
 * @param {Map<string, Variable>} names @param {string} name @param {string} collectionName @param {string} where
 * @param {string} [exceptId] the variable being renamed
 */
export function refuseTakenName(names, name, collectionName, where, exceptId) {
  const taken = names.get(name);
  if (taken && taken.id !== exceptId) {
    throw conflict(where + ": collection '" + collectionName + "' already has a variable named '" + name + "' (" + taken.id + "). Pick another name or update that variable.");
  }
}

/** @param {unknown} scopes @param {string} where @returns {VariableScope[] | undefined} */
export function checkScopes(scopes, where) {
  if (scopes === undefined || scopes === null) return undefined;
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== "string" || !s)) {
    throw badParams(where + ": 'scopes' must be an array of scope names such as [\"ALL_FILLS\", \"STROKE_COLOR\"].");
  }
  return /** @type {VariableScope[]} */ (scopes);
}

/** CREATE_VARIABLE: every value is checked before the variable is made. */
export async function createVariable(/** @type {any} */ params) {
  const name = reqString(params, "name");
  const collection = editableCollection(await getCollection(params.collectionId));
  const type = optEnum(params, "resolvedType", TYPES, undefined);
  if (!type) throw badParams("Parameter 'resolvedType' is required: one of " + TYPES.join(", ") + ".");
  const description = optString(params, "description");
  const scopes = checkScopes(params.scopes, "CREATE_VARIABLE");
  const names = await variablesByName(collection.id);
  refuseTakenName(names, name, collection.name, "CREATE_VARIABLE");
  const given = optObject(params, "valuesByMode") || {};
  /** @type {Array<[string, VariableValue]>} */
  const values = [];
  for (const key of Object.keys(given)) {
    const mode = findMode(collection, key, "valuesByMode");
    const resolved = await resolveValue(type, given[key], collection, names, "valuesByMode['" + key + "'] of '" + name + "'");
    values.push([mode.modeId, resolved.value]);
  }
  const variable = figma.variables.createVariable(name, collection, type);
  try {
    if (description !== undefined) variable.description = description;
    if (scopes) variable.scopes = scopes;
    values.forEach(([modeId, value]) => variable.setValueForMode(modeId, value));
  } catch (err) {
    variable.remove();
    throw new PluginError("plugin_api_error", "CREATE_VARIABLE failed: " + errorText(err) + ". Nothing was created.", { rolledBack: true });
  }
  return { success: true, variable: describeVariable(variable) };
}

/**
 * What a deleted variable was, in the shape CREATE_VARIABLE takes, so it can be made again.
 * @param {Variable} v
 */
function recreatable(v) {
  /** @type {Record<string, any>} */
  const values = {};
  const byMode = v.valuesByMode;
  Object.keys(byMode).forEach((m) => (values[m] = compactValue(byMode[m])));
  /** @type {Record<string, any>} */
  const out = {
    id: v.id,
    name: v.name,
    resolvedType: v.resolvedType,
    description: v.description,
    scopes: v.scopes.slice(),
    hiddenFromPublishing: v.hiddenFromPublishing,
    collectionId: v.variableCollectionId,
    valuesByMode: values,
  };
  const syntax = /** @type {any} */ (v).codeSyntax;
  if (syntax && Object.keys(syntax).length) out.codeSyntax = Object.assign({}, syntax);
  return out;
}

/** DELETE_VARIABLE: `deleted` carries what CREATE_VARIABLE needs to make it again (aliases to it are not restored). */
export async function deleteVariable(/** @type {any} */ params) {
  const variable = editableVariable(await getVariable(params.variableId));
  const info = recreatable(variable);
  variable.remove();
  return { success: true, deleted: info };
}

/** RENAME_VARIABLE */
export async function renameVariable(/** @type {any} */ params) {
  const variable = editableVariable(await getVariable(params.variableId));
  const newName = reqString(params, "newName");
  const collection = await getCollection(variable.variableCollectionId);
  refuseTakenName(await variablesByName(collection.id), newName, collection.name, "RENAME_VARIABLE", variable.id);
  const oldName = variable.name;
  variable.name = newName;
  return { success: true, oldName: oldName, newName: variable.name, variable: describeVariable(variable) };
}

/** SET_VARIABLE_DESCRIPTION */
export async function setVariableDescription(/** @type {any} */ params) {
  const variable = editableVariable(await getVariable(params.variableId));
  if (typeof params.description !== "string") throw badParams("Parameter 'description' is required and must be a string.");
  const previous = variable.description;
  variable.description = params.description;
  return { success: true, previousDescription: previous, variable: describeVariable(variable) };
}

/** @param {string} name @param {string} where */
export async function refuseTakenCollectionName(name, where) {
  const existing = (await figma.variables.getLocalVariableCollectionsAsync()).find((c) => c.name === name);
  if (existing) {
    throw conflict(where + ": a variable collection named '" + name + "' already exists (" + existing.id + "). Pick another name, or add to that collection.");
  }
}

/** @param {unknown[]} names @param {string} where */
export function checkModeNames(names, where) {
  /** @type {Record<string, boolean>} */
  const seen = {};
  names.forEach((m, i) => {
    if (typeof m !== "string" || !m.trim()) throw badParams(where + "[" + i + "] must be a non-empty mode name.");
    if (seen[m]) throw conflict(where + ": mode name '" + m + "' is given twice; mode names must differ.");
    seen[m] = true;
  });
  return /** @type {string[]} */ (names);
}

/** CREATE_VARIABLE_COLLECTION */
export async function createCollection(/** @type {any} */ params) {
  const name = reqString(params, "name");
  const initial = optString(params, "initialModeName");
  const extra = params.additionalModes === undefined ? [] : reqArray(params, "additionalModes");
  checkModeNames([initial || "Mode 1"].concat(extra), "modes");
  await refuseTakenCollectionName(name, "CREATE_VARIABLE_COLLECTION");
  const collection = figma.variables.createVariableCollection(name);
  try {
    if (initial) collection.renameMode(collection.defaultModeId, initial);
    extra.forEach((m) => collection.addMode(m));
  } catch (err) {
    collection.remove();
    throw new PluginError(
      "plugin_api_error",
      "Could not add the modes (" + errorText(err) + "); the collection was not kept. " +
        "Free plans allow few modes per collection: try fewer modes.",
      { rolledBack: true },
    );
  }
  return { success: true, collection: describeCollection(collection) };
}

/**
 * A collection and its variables in the shape SETUP_DESIGN_TOKENS takes: aliases inside the collection become
 * references by name, others stay ids. At most MAX_SETUP_TOKENS tokens; `omitted` counts the rest.
 * @param {VariableCollection} collection
 */
async function recreateCollection(collection) {
  const all = (await figma.variables.getLocalVariablesAsync()).filter((v) => v.variableCollectionId === collection.id);
  /** @type {Map<string, string>} */
  const inside = new Map();
  all.forEach((v) => inside.set(v.id, v.name));
  const modeName = (/** @type {string} */ id) => (collection.modes.find((m) => m.modeId === id) || { name: id }).name;
  const tokens = all.slice(0, MAX_SETUP_TOKENS).map((v) => {
    /** @type {Record<string, any>} */
    const values = {};
    const byMode = v.valuesByMode;
    Object.keys(byMode).forEach((m) => {
      const value = /** @type {any} */ (byMode[m]);
      const targetName = value && value.type === "VARIABLE_ALIAS" ? inside.get(value.id) : undefined;
      const ref = targetName === undefined ? null : referenceTo(targetName);
      values[modeName(m)] = ref !== null ? ref : compactValue(value);
    });
    /** @type {Record<string, any>} */
    const token = { name: v.name, resolvedType: v.resolvedType, values: values };
    if (v.description) token.description = v.description;
    if (v.scopes.length !== 1 || v.scopes[0] !== "ALL_SCOPES") token.scopes = v.scopes.slice();
    return token;
  });
  return {
    collectionName: collection.name,
    modes: collection.modes.map((m) => m.name),
    tokens: tokens,
    omitted: all.length - tokens.length,
  };
}

/** DELETE_VARIABLE_COLLECTION: `deleted.recreate` is a SETUP_DESIGN_TOKENS call that makes it again. */
export async function deleteCollection(/** @type {any} */ params) {
  const collection = editableCollection(await getCollection(params.collectionId));
  const info = {
    id: collection.id,
    name: collection.name,
    variableCount: collection.variableIds.length,
    modes: collection.modes.map((m) => ({ modeId: m.modeId, name: m.name })),
    recreate: await recreateCollection(collection),
  };
  collection.remove();
  return { success: true, deleted: info };
}

/** @param {VariableCollection} collection @param {string} name @param {string} where @param {string} [exceptId] */
function refuseTakenModeName(collection, name, where, exceptId) {
  const taken = collection.modes.find((m) => m.name === name && m.modeId !== exceptId);
  if (taken) throw conflict(where + ": collection '" + collection.name + "' already has a mode named '" + name + "' (" + taken.modeId + ").");
}

/** ADD_MODE */
export async function addMode(/** @type {any} */ params) {
  const collection = editableCollection(await getCollection(params.collectionId));
  const modeName = reqString(params, "modeName");
  refuseTakenModeName(collection, modeName, "ADD_MODE");
  let modeId;
  try {
    modeId = collection.addMode(modeName);
  } catch (err) {
    throw new PluginError(
      "plugin_api_error",
      "Could not add mode '" + modeName + "': " + errorText(err) + ". The plan of this file may limit modes per collection.",
    );
  }
  return { success: true, modeId: modeId, modeName: modeName, collection: describeCollection(collection) };
}

/** RENAME_MODE */
export async function renameMode(/** @type {any} */ params) {
  const collection = editableCollection(await getCollection(params.collectionId));
  const modeId = reqString(params, "modeId");
  const newName = reqString(params, "newName");
  const mode = collection.modes.find((m) => m.modeId === modeId);
  if (!mode) {
    throw notFound(
      "Mode " + modeId + " is not in collection '" + collection.name + "'. Its modes: " +
        collection.modes.map((m) => m.modeId + " (" + m.name + ")").join(", ") + ".",
    );
  }
  refuseTakenModeName(collection, newName, "RENAME_MODE", modeId);
  const oldName = mode.name;
  collection.renameMode(modeId, newName);
  return { success: true, modeId: modeId, oldName: oldName, newName: newName, collection: describeCollection(collection) };
}
