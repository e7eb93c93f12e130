import { PluginError, badParams, notFound, conflict, errorText } from "../errors.js";
import { reqArray, isPlainObject } from "../params.js";
import { parseColor } from "../colors.js";
import { TYPES, aliasLoop, describeLoop } from "../variable-values.js";
import { editableCollection, editableVariable, checkModeNames } from "./variables.js";
import { Pacer } from "../chunks.js";

/**
 * APPLY_TOKEN_CHANGES: the change set of a token import (designd's tokens worker computes it from the diff of token
 * files against this file's variables) applied as one command, so one undo step, all or nothing.
 *
 * Params (things made by this call are named by `ref`, a string unique in the call; existing ones also by `id`):
 * - collections [{ref, id?, name, modes [names]}]: a collection without `id` is made with these modes (the first is
 *   its default); an existing one gets the modes it lacks;
 * - variables [{ref, id?, collection (ref), name, type, description?}]: without `id` it is made; with `id` it is
 *   renamed when `name` differs, its description set when given; every variable a value aliases is listed;
 * - values [{variable (ref), mode (name), value | alias (ref)}]: colours as {r, g, b, a} with channels 0..1;
 * - deletes [variable ids].
 *
 * Everything is checked first (ids, types, modes, names taken, alias targets and types, loops in the alias graph
 * as it will be). If the design tool still fails midway, every step done is undone in reverse (deleted variables are
 * made again with their name, type, description, scopes and values, under new ids) and the error says so.
 */

/**
 * @typedef {import("../dispatch.js").CommandContext} CommandContext
 * @typedef {{ref: string, collection: VariableCollection | null, name: string, modes: string[]}} PlanCollection
 * @typedef {{ref: string, variable: Variable | null, coll: PlanCollection, name: string, type: VariableResolvedDataType,
 *            description?: string}} PlanVariable
 * @typedef {{target: PlanVariable, mode: string, value?: VariableValue, alias?: PlanVariable, where: string}} PlanValue
 */

/** @param {any} item @param {string} at @returns {string} */
function refOf(item, at) {
  if (!isPlainObject(item)) throw badParams(at + " must be an object.");
  if (typeof item.ref !== "string" || !item.ref) throw badParams(at + ": 'ref' is required and must be a non-empty string.");
  return item.ref;
}

/** @param {VariableResolvedDataType} type @param {unknown} raw @param {string} where @returns {VariableValue} */
function literal(type, raw, where) {
  const fail = () => badParams(where + ": value " + JSON.stringify(raw) + " does not fit a " + type + " variable.");
  if (type === "COLOR") {
    try {
      return parseColor(raw, "value");
    } catch (err) {
      throw fail();
    }
  }
  if (type === "FLOAT" && (typeof raw !== "number" || !isFinite(raw))) throw fail();
  if (type === "STRING" && typeof raw !== "string") throw fail();
  if (type === "BOOLEAN" && typeof raw !== "boolean") throw fail();
  return /** @type {VariableValue} */ (raw);
}

/** Checks every part of the change set against the file; nothing changes here. @param {any} params */
async function plan(params) {
  const allCollections = await figma.variables.getLocalVariableCollectionsAsync();
  const allVariables = await figma.variables.getLocalVariablesAsync();
  /** @type {Map<string, PlanCollection>} */
  const collections = new Map();
  reqArray(params, "collections").forEach((item, i) => {
    const at = "collections[" + i + "]";
    const ref = refOf(item, at);
    if (collections.has(ref)) throw conflict(at + ": ref '" + ref + "' is given twice.");
    if (typeof item.name !== "string" || !item.name.trim()) throw badParams(at + ": 'name' must be a non-empty string.");
    const modes = checkModeNames(Array.isArray(item.modes) ? item.modes : [], at + ".modes");
    let found = null;
    if (item.id !== undefined) {
      found = allCollections.find((c) => c.id === item.id);
      if (!found) throw notFound(at + ": collection " + item.id + " is not in this file. List them with design_get_variables.");
      editableCollection(found);
    } else {
      if (!modes.length) throw badParams(at + ": a new collection needs at least one mode.");
      const twin = allCollections.find((c) => c.name === item.name);
      if (twin) throw conflict(at + ": a collection named '" + item.name + "' already exists (" + twin.id + ").");
    }
    collections.set(ref, { ref: ref, collection: found, name: item.name, modes: modes });
  });
  /** @type {Map<string, Variable>} */
  const byId = new Map();
  allVariables.forEach((v) => byId.set(v.id, v));
  const deletes = reqArray(params, "deletes").map((id, i) => {
    const v = byId.get(id);
    if (!v) throw notFound("deletes[" + i + "]: variable " + JSON.stringify(id) + " is not in this file.");
    return editableVariable(v);
  });
  const deleted = new Set(deletes.map((v) => v.id));
  /** @type {Map<string, PlanVariable>} */
  const variables = new Map();
  /** @type {Set<string>} */
  const listedIds = new Set();
  reqArray(params, "variables").forEach((item, i) => {
    const at = "variables[" + i + "]";
    const ref = refOf(item, at);
    if (variables.has(ref)) throw conflict(at + ": ref '" + ref + "' is given twice.");
    const coll = collections.get(item.collection);
    if (!coll) throw notFound(at + ": collection ref " + JSON.stringify(item.collection) + " is not in 'collections'.");
    if (typeof item.name !== "string" || !item.name.trim()) throw badParams(at + ": 'name' must be a non-empty string.");
    const where = at + " ('" + item.name + "')";
    if (TYPES.indexOf(item.type) < 0) throw badParams(where + ": 'type' must be one of " + TYPES.join(", ") + ".");
    if (item.description !== undefined && typeof item.description !== "string") throw badParams(where + ": 'description' must be a string.");
    let found = null;
    if (item.id !== undefined) {
      found = byId.get(item.id);
      if (!found) throw notFound(where + ": variable " + item.id + " is not in this file.");
      if (deleted.has(found.id)) throw conflict(where + ": variable " + item.id + " is also in 'deletes'.");
      if (listedIds.has(found.id)) throw conflict(where + ": variable " + item.id + " is listed twice.");
      listedIds.add(found.id);
      if (!coll.collection || found.variableCollectionId !== coll.collection.id) throw badParams(where + ": variable " + item.id + " is not in that collection.");
      if (found.resolvedType !== item.type) throw badParams(where + ": variable " + item.id + " is a " + found.resolvedType + ", not a " + item.type + ".");
      if (found.name !== item.name || item.description !== undefined) editableVariable(found);
    }
    /** @type {PlanVariable} */
    const entry = { ref: ref, variable: found, coll: coll, name: item.name, type: item.type };
    if (item.description !== undefined) entry.description = item.description;
    variables.set(ref, entry);
  });
  // Names as they will be: every variable kept in a touched collection, renamed or made by this call.
  /** @type {Map<string, string>} */
  const taken = new Map();
  const claim = (/** @type {string} */ collKey, /** @type {string} */ name, /** @type {string} */ who) => {
    const key = collKey + "\u0000" + name;
    const other = taken.get(key);
    if (other !== undefined) throw conflict(who + ": the name '" + name + "' is also " + other + "; names in one collection must differ.");
    taken.set(key, who);
  };
  const touched = new Set([...collections.values()].map((c) => (c.collection ? c.collection.id : "")));
  allVariables.forEach((v) => {
    if (touched.has(v.variableCollectionId) && !deleted.has(v.id) && !listedIds.has(v.id)) {
      claim(v.variableCollectionId, v.name, "the name of variable " + v.id);
    }
  });
  [...variables.values()].forEach((p, i) => claim(p.coll.collection ? p.coll.collection.id : "new:" + p.coll.ref, p.name, "variables[" + i + "]"));

  /** @type {PlanValue[]} */
  const values = [];
  /** @type {Set<string>} */
  const seen = new Set();
  reqArray(params, "values").forEach((item, i) => {
    const at = "values[" + i + "]";
    if (!isPlainObject(item)) throw badParams(at + " must be an object with 'variable', 'mode' and 'value' or 'alias'.");
    const target = variables.get(item.variable);
    if (!target) throw notFound(at + ": variable ref " + JSON.stringify(item.variable) + " is not in 'variables'.");
    const where = at + " ('" + target.name + "' in mode '" + item.mode + "')";
    const modeNames = target.coll.collection ? target.coll.collection.modes.map((m) => m.name).concat(target.coll.modes) : target.coll.modes;
    if (modeNames.indexOf(item.mode) < 0) throw notFound(where + ": collection '" + target.coll.name + "' has no mode '" + item.mode + "'.");
    const key = target.ref + "\u0000" + item.mode;
    if (seen.has(key)) throw conflict(where + ": this variable's value in this mode is given twice.");
    seen.add(key);
    if (item.alias !== undefined) {
      const to = variables.get(item.alias);
      if (!to) throw notFound(where + ": the alias target ref " + JSON.stringify(item.alias) + " is not in 'variables'.");
      if (to.type !== target.type) throw badParams(where + ": a " + target.type + " variable cannot alias '" + to.name + "', a " + to.type + " variable.");
      values.push({ target: target, mode: item.mode, alias: to, where: where });
    } else {
      if (!("value" in item)) throw badParams(where + ": give 'value' or 'alias'.");
      values.push({ target: target, mode: item.mode, value: literal(target.type, item.value, where), where: where });
    }
  });
  refuseLoops(allVariables, allCollections, variables, values, deleted);
  // A variable left in the file must not alias one this call deletes.
  allVariables.forEach((v) => {
    if (deleted.has(v.id)) return;
    Object.keys(v.valuesByMode).forEach((modeId) => {
      const raw = /** @type {any} */ (v.valuesByMode[modeId]);
      if (!raw || raw.type !== "VARIABLE_ALIAS" || !deleted.has(raw.id)) return;
      const overridden = values.some((x) => x.target.variable === v && modeName(v, modeId, allCollections) === x.mode);
      if (!overridden) {
        throw conflict("variable '" + v.name + "' (" + v.id + ") aliases " + raw.id + ", which this import deletes; keep that token or change the alias too.");
      }
    });
  });
  return { collections: [...collections.values()], variables: [...variables.values()], values: values, deletes: deletes };
}

/** @param {Variable} v @param {string} modeId @param {VariableCollection[]} all */
function modeName(v, modeId, all) {
  const c = all.find((x) => x.id === v.variableCollectionId);
  const m = c && c.modes.find((x) => x.modeId === modeId);
  return m ? m.name : modeId;
}

/**
 * Refuses a change set whose alias graph (the file's, with the new values laid over it) has a loop. Nodes are
 * variable refs or ids; modes by name.
 * @param {Variable[]} allVariables @param {VariableCollection[]} allCollections @param {Map<string, PlanVariable>} variables
 * @param {PlanValue[]} values @param {Set<string>} deleted
 */
function refuseLoops(allVariables, allCollections, variables, values, deleted) {
  if (!values.some((v) => v.alias)) return;
  /** @type {Map<string, {collection: string, modes: string[], aliases: Map<string, string | null>, name: string}>} */
  const nodes = new Map();
  /** @type {Map<string, string>} */
  const keyOfId = new Map();
  variables.forEach((p) => {
    if (p.variable) keyOfId.set(p.variable.id, "r:" + p.ref);
  });
  const collModes = (/** @type {string} */ id) => {
    const c = allCollections.find((x) => x.id === id);
    return c ? c.modes.map((m) => m.name) : [];
  };
  allVariables.forEach((v) => {
    if (deleted.has(v.id) || keyOfId.has(v.id)) return;
    /** @type {Map<string, string | null>} */
    const aliases = new Map();
    Object.keys(v.valuesByMode).forEach((modeId) => {
      const raw = /** @type {any} */ (v.valuesByMode[modeId]);
      if (raw && raw.type === "VARIABLE_ALIAS") aliases.set(modeName(v, modeId, allCollections), keyOfId.get(raw.id) || "i:" + raw.id);
    });
    nodes.set("i:" + v.id, { collection: v.variableCollectionId, modes: collModes(v.variableCollectionId), aliases: aliases, name: v.name });
  });
  variables.forEach((p) => {
    /** @type {Map<string, string | null>} */
    const aliases = new Map();
    if (p.variable) {
      const v = p.variable;
      Object.keys(v.valuesByMode).forEach((modeId) => {
        const raw = /** @type {any} */ (v.valuesByMode[modeId]);
        if (raw && raw.type === "VARIABLE_ALIAS") aliases.set(modeName(v, modeId, allCollections), keyOfId.get(raw.id) || "i:" + raw.id);
      });
    }
    const modes = p.coll.collection ? collModes(p.coll.collection.id).concat(p.coll.modes.filter((m) => collModes(/** @type {VariableCollection} */ (p.coll.collection).id).indexOf(m) < 0)) : p.coll.modes;
    nodes.set("r:" + p.ref, { collection: "c:" + p.coll.ref, modes: modes, aliases: aliases, name: p.name });
  });
  // One name per collection: an existing collection of the call is known by its ref.
  /** @type {Map<string, string>} */
  const refOfCollection = new Map();
  variables.forEach((p) => {
    if (p.coll.collection) refOfCollection.set(p.coll.collection.id, "c:" + p.coll.ref);
  });
  nodes.forEach((n) => {
    const ref = refOfCollection.get(n.collection);
    if (ref) n.collection = ref;
  });
  values.forEach((v) => {
    const node = nodes.get("r:" + v.target.ref);
    if (node) node.aliases.set(v.mode, v.alias ? "r:" + v.alias.ref : null);
  });
  const lookup = (/** @type {string} */ key) => {
    const n = nodes.get(key);
    return n ? { collection: n.collection, modes: n.modes, alias: (/** @type {string} */ mode) => n.aliases.get(mode) || null } : null;
  };
  for (const v of values) {
    if (!v.alias) continue;
    const loop = aliasLoop("r:" + v.target.ref, v.mode, "r:" + v.alias.ref, lookup);
    if (loop) {
      const label = (/** @type {string} */ k) => {
        const n = nodes.get(k);
        return n ? n.name : k;
      };
      throw badParams(v.where + ": the aliases make a loop (" + describeLoop(loop, label) + "). Point one of them at a plain value.");
    }
  }
}

/**
 * Applies a checked plan; every step done is pushed on `undo` first, so a failure can take it back.
 * @param {Awaited<ReturnType<typeof plan>>} p @param {CommandContext} ctx @param {Array<() => void>} undo
 * @param {{step: string}} current
 */
async function apply(p, ctx, undo, current) {
  const pacer = new Pacer(ctx, p.collections.length + p.variables.length + p.values.length + p.deletes.length);
  /** @param {(done: number, total: number) => string} message */
  const step = (message) => pacer.step(message);
  /** @type {Map<string, Record<string, string>>} */
  const modeIds = new Map();
  for (const c of p.collections) {
    current.step = "collection '" + c.name + "'";
    /** @type {Record<string, string>} */
    const ids = {};
    if (!c.collection) {
      const made = figma.variables.createVariableCollection(c.name);
      undo.push(() => made.remove());
      c.collection = made;
      made.renameMode(made.defaultModeId, c.modes[0]);
    }
    const coll = c.collection;
    coll.modes.forEach((m) => (ids[m.name] = m.modeId));
    for (const mode of c.modes) {
      if (ids[mode]) continue;
      current.step = "mode '" + mode + "' of collection '" + c.name + "'";
      const id = coll.addMode(mode);
      undo.push(() => coll.removeMode(id));
      ids[mode] = id;
    }
    modeIds.set(c.ref, ids);
    await step(() => "Prepared collection " + c.name);
  }
  // Renames go through a temporary name first, so two variables may swap names.
  const renamed = p.variables.filter((v) => v.variable && v.variable.name !== v.name);
  for (const v of renamed) {
    const variable = /** @type {Variable} */ (v.variable);
    const old = variable.name;
    current.step = "renaming '" + old + "' to '" + v.name + "'";
    variable.name = old + " \u2192 " + v.name + " (renaming)";
    undo.push(() => (variable.name = old));
  }
  /** @type {Map<PlanVariable, Variable>} */
  const made = new Map();
  for (const v of p.variables) {
    current.step = "variable '" + v.name + "'";
    if (v.variable) {
      const variable = v.variable;
      if (variable.name !== v.name) {
        const temporary = variable.name;
        variable.name = v.name;
        undo.push(() => (variable.name = temporary));
      }
      if (v.description !== undefined && v.description !== variable.description) {
        const before = variable.description;
        variable.description = v.description;
        undo.push(() => (variable.description = before));
      }
      made.set(v, variable);
    } else {
      const variable = figma.variables.createVariable(v.name, /** @type {VariableCollection} */ (v.coll.collection), v.type);
      undo.push(() => variable.remove());
      if (v.description) variable.description = v.description;
      made.set(v, variable);
    }
    await step(() => "Prepared " + made.size + " of " + p.variables.length + " variables");
  }
  let valuesSet = 0;
  for (const x of p.values) {
    current.step = x.where;
    const variable = /** @type {Variable} */ (made.get(x.target));
    const modeId = /** @type {Record<string, string>} */ (modeIds.get(x.target.coll.ref))[x.mode];
    const before = variable.valuesByMode[modeId];
    const value = x.alias ? figma.variables.createVariableAlias(/** @type {Variable} */ (made.get(x.alias))) : /** @type {VariableValue} */ (x.value);
    variable.setValueForMode(modeId, value);
    if (x.target.variable && before !== undefined) undo.push(() => variable.setValueForMode(modeId, before));
    valuesSet++;
    await step(() => "Set " + valuesSet + " of " + p.values.length + " values");
  }
  for (const v of p.deletes) {
    current.step = "deleting '" + v.name + "'";
    const recipe = {
      name: v.name,
      type: v.resolvedType,
      collectionId: v.variableCollectionId,
      description: v.description,
      scopes: v.scopes,
      values: v.valuesByMode,
    };
    const home = await figma.variables.getVariableCollectionByIdAsync(recipe.collectionId);
    v.remove();
    undo.push(() => {
      const back = figma.variables.createVariable(recipe.name, /** @type {VariableCollection} */ (home), recipe.type);
      back.description = recipe.description;
      back.scopes = recipe.scopes;
      Object.keys(recipe.values).forEach((m) => back.setValueForMode(m, recipe.values[m]));
    });
    await step(() => "Deleted " + v.name);
  }
  /** @type {Record<string, string>} */
  const collections = {};
  p.collections.forEach((c) => (collections[c.name] = /** @type {VariableCollection} */ (c.collection).id));
  /** @type {Record<string, string>} */
  const created = {};
  made.forEach((variable, v) => {
    if (!v.variable) created[v.ref] = variable.id;
  });
  return { collections: collections, created: created };
}

/** APPLY_TOKEN_CHANGES */
export async function applyTokenChanges(/** @type {any} */ params, /** @type {CommandContext} */ ctx) {
  const p = await plan(params);
  const renames = p.variables.filter((v) => v.variable && v.variable.name !== v.name).length;
  /** @type {Array<() => void>} */
  const undo = [];
  const current = { step: "" };
  try {
    const result = await apply(p, ctx, undo, current);
    return {
      success: true,
      collections: result.collections,
      created: result.created,
      counts: {
        collectionsCreated: params.collections.filter((/** @type {any} */ c) => c.id === undefined).length,
        variablesCreated: Object.keys(result.created).length,
        renamed: renames,
        values: p.values.length,
        deleted: p.deletes.length,
      },
    };
  } catch (err) {
    let left = 0;
    undo.reverse().forEach((back) => {
      try {
        back();
      } catch (undoErr) {
        left++;
      }
    });
    const undone = left
      ? "Taking back the " + undo.length + " steps already done failed for " + left + "; check the variables."
      : "Nothing was kept: the " + undo.length + " steps already done were taken back.";
    if (err instanceof PluginError && err.code === "cancelled") throw new PluginError("cancelled", err.message + " " + undone);
    throw new PluginError("plugin_api_error", "The design tool refused " + current.step + ": " + errorText(err) + ". " + undone, {
      rolledBack: left === 0,
    });
  }
}
