import { PluginError, badParams, notFound, conflict, errorText } from "../errors.js";
import { reqString, reqArray, isPlainObject } from "../params.js";
import { TYPES, parseValue, compactValue, aliasLoop, describeLoop } from "../variable-values.js";
import { Pacer } from "../chunks.js";
import {
  MAX_SETUP_TOKENS,
  getVariable,
  getCollection,
  editableVariable,
  editableCollection,
  variablesByName,
  findMode,
  resolveValue,
  refuseAliasLoops,
  refuseTakenName,
  refuseTakenCollectionName,
  checkModeNames,
  checkScopes,
} from "./variables.js";

/**
 * The all-or-nothing variable writes: BATCH_CREATE_VARIABLES, BATCH_UPDATE_VARIABLES, BATCH_DELETE_VARIABLES and
 * SETUP_DESIGN_TOKENS. Each checks every item before it changes anything, then works through the items in slices
 * (see chunks.js), so the editor stays responsive and a cancel stops it between slices; if the design tool fails
 * midway, or the command is cancelled, what the call made is removed again and what it changed is set back, and the
 * error names the item. The dispatcher commits one undo step when the command ends, however many slices it took.
 */

/** Items per batch: 5,000 variables in 4 modes fit one command of about 1 MB. */
export const MAX_BATCH = 5000;
/** Items an answer lists one by one; beyond this it only counts them, so 2,000 writes answer in a few KB. */
export const LISTED_ITEMS = 100;

/**
 * @typedef {import("../variable-values.js").ParsedValue} ParsedValue
 * @typedef {{mode: string, parsed: ParsedValue, where: string, target?: {variable: Variable} | {planned: Planned}}} PlannedValue
 * @typedef {{index: number, name: string, type: VariableResolvedDataType, description?: string,
 *            scopes?: VariableScope[], values: PlannedValue[]}} Planned
 * @typedef {import("../dispatch.js").CommandContext} CommandContext
 */

/** @param {any[]} items @param {string} list @param {number} max */
function checkCount(items, list, max) {
  if (!items.length) throw badParams("'" + list + "' is empty: give at least one item.");
  if (items.length > max) {
    throw badParams("'" + list + "' has " + items.length + " items; the limit is " + max + " per call. Split it into calls of at most " + max + ".");
  }
}

/**
 * Checks every variable of a batch: names, types, values, duplicates, alias targets and loops.
 * @param {any[]} items
 * @param {{list: string, valuesKey: string, existing: Map<string, Variable>, collectionName: string,
 *          modeKey: (key: string, where: string) => string, allModes: string[], fillModes: boolean, pacer: Pacer}} opts
 *   `modeKey` names the mode a values key means; with `fillModes` every mode gets a value (missing ones take the
 *   first mode's value, or else the first value given)
 * @returns {Promise<Planned[]>}
 */
async function planVariables(items, opts) {
  /** @type {Planned[]} */
  const planned = [];
  /** @type {Map<string, number>} */
  const seen = new Map();
  for (let i = 0; i < items.length; i++) {
    await opts.pacer.check();
    const item = items[i];
    const at = opts.list + "[" + i + "]";
    if (!isPlainObject(item)) throw badParams(at + " must be an object with 'name' and 'resolvedType'.");
    if (typeof item.name !== "string" || !item.name.trim()) throw badParams(at + ": 'name' is required and must be a non-empty string.");
    const name = item.name;
    const where = at + " ('" + name + "')";
    if (TYPES.indexOf(item.resolvedType) < 0) {
      throw badParams(where + ": 'resolvedType' must be one of " + TYPES.join(", ") + " (got " + JSON.stringify(item.resolvedType) + ").");
    }
    const type = /** @type {VariableResolvedDataType} */ (item.resolvedType);
    if (item.description !== undefined && item.description !== null && typeof item.description !== "string") {
      throw badParams(where + ": 'description' must be a string.");
    }
    const scopes = checkScopes(item.scopes, where);
    const twin = seen.get(name);
    if (twin !== undefined) throw conflict(where + ": the same name is used by " + opts.list + "[" + twin + "]; names in one collection must differ.");
    seen.set(name, i);
    refuseTakenName(opts.existing, name, opts.collectionName, where);
    const given = item[opts.valuesKey];
    if (given !== undefined && given !== null && !isPlainObject(given)) {
      throw badParams(where + ": '" + opts.valuesKey + "' must be an object of mode → value.");
    }
    /** @type {PlannedValue[]} */
    const values = [];
    Object.keys(given || {}).forEach((key) => {
      const valueWhere = where + " in mode '" + key + "'";
      values.push({ mode: opts.modeKey(key, valueWhere), parsed: parseValue(type, given[key], valueWhere), where: valueWhere });
    });
    if (opts.fillModes) {
      if (!values.length) throw badParams(where + ": '" + opts.valuesKey + "' needs a value for at least one mode.");
      const source = values.find((v) => v.mode === opts.allModes[0]) || values[0];
      opts.allModes.forEach((mode) => {
        if (!values.some((v) => v.mode === mode)) values.push({ mode: mode, parsed: source.parsed, where: source.where });
      });
    }
    /** @type {Planned} */
    const entry = { index: i, name: name, type: type, values: values };
    if (typeof item.description === "string") entry.description = item.description;
    if (scopes) entry.scopes = scopes;
    planned.push(entry);
  }
  await resolveTargets(planned, opts.existing, opts.collectionName);
  refuseLoops(planned, opts.allModes);
  return planned;
}

/**
 * The local variables a reference may name outside this call's collection: by its full name when that is unique
 * across collections, or qualified by its collection ("Primitives/blue/500" for {Primitives.blue.500}).
 * @returns {Promise<(name: string) => {variable: Variable, label: string}[]>}
 */
async function otherCollections() {
  const collections = await figma.variables.getLocalVariableCollectionsAsync();
  const variables = await figma.variables.getLocalVariablesAsync();
  /** @type {Record<string, string>} */
  const owners = {};
  collections.forEach((c) => (owners[c.id] = c.name));
  return (name) => {
    /** @type {{variable: Variable, label: string}[]} */
    const found = [];
    for (const variable of variables) {
      const owner = owners[variable.variableCollectionId] || "";
      const label = "{" + (owner + "/" + variable.name).split("/").join(".") + "}";
      if (variable.name === name || (owner && owner + "/" + variable.name === name)) found.push({ variable: variable, label: label });
    }
    return found;
  };
}

/**
 * Finds each alias's target: an item of this call or an existing variable of its collection, by name; else a
 * variable of any local collection, by its unique name or qualified by its collection; any variable, by id.
 * @param {Planned[]} planned @param {Map<string, Variable>} existing @param {string} collectionName
 */
async function resolveTargets(planned, existing, collectionName) {
  /** @type {Map<string, Planned>} */
  const byName = new Map();
  planned.forEach((p) => byName.set(p.name, p));
  /** @type {((name: string) => {variable: Variable, label: string}[]) | null} */
  let elsewhere = null;
  for (const p of planned) {
    for (const v of p.values) {
      const parsed = v.parsed;
      if ("value" in parsed) continue;
      /** @type {string} */
      let targetType;
      if ("aliasName" in parsed && byName.has(parsed.aliasName)) {
        const target = /** @type {Planned} */ (byName.get(parsed.aliasName));
        v.target = { planned: target };
        targetType = target.type;
      } else if ("aliasName" in parsed && existing.has(parsed.aliasName)) {
        const target = /** @type {Variable} */ (existing.get(parsed.aliasName));
        v.target = { variable: target };
        targetType = target.resolvedType;
      } else if ("aliasName" in parsed) {
        if (!elsewhere) elsewhere = await otherCollections();
        const reference = "{" + parsed.aliasName.split("/").join(".") + "}";
        const found = elsewhere(parsed.aliasName);
        if (found.length > 1) {
          throw badParams(
            v.where + ": the reference " + reference + " is ambiguous: it names " + found.map((f) => f.label + " (" + f.variable.id + ")").join(", ") +
              ". Qualify it with its collection, e.g. " + found[0].label + ", or use the variable's id.",
          );
        }
        if (!found.length) {
          throw notFound(
            v.where + ": the reference " + reference + " names no variable '" + parsed.aliasName + "' of this call, of '" + collectionName + "' or of any local collection " +
              "(by name, or qualified by its collection as {Collection.group.name}). Check the name (dots stand for the " +
              "slashes of groups), or use \"VariableID:…\".",
          );
        }
        v.target = { variable: found[0].variable };
        targetType = found[0].variable.resolvedType;
      } else {
        const target = await figma.variables.getVariableByIdAsync(parsed.aliasId);
        if (!target) throw notFound(v.where + ": the alias target " + parsed.aliasId + " was not found in this file. List variables with design_get_variables.");
        v.target = { variable: target };
        targetType = target.resolvedType;
      }
      if (targetType !== p.type) {
        throw badParams(v.where + ": the alias target is a " + targetType + " variable; a " + p.type + " variable can only alias a " + p.type + " variable.");
      }
    }
  }
}

/**
 * Aliases among the items of one call stay in one collection, so they resolve mode by mode; existing variables
 * cannot point back at items not made yet, so only these links can loop.
 * @param {Planned[]} planned @param {string[]} modes
 */
function refuseLoops(planned, modes) {
  /** @type {Map<string, Planned>} */
  const byName = new Map();
  planned.forEach((p) => byName.set(p.name, p));
  /** @param {string} key */
  const lookup = (key) => {
    const p = byName.get(key);
    if (!p) return null;
    return {
      collection: "new",
      modes: modes,
      alias: (/** @type {string} */ mode) => {
        const v = p.values.find((x) => x.mode === mode);
        return v && v.target && "planned" in v.target ? v.target.planned.name : null;
      },
    };
  };
  for (const p of planned) {
    for (const v of p.values) {
      if (!v.target || !("planned" in v.target)) continue;
      const loop = aliasLoop(p.name, v.mode, v.target.planned.name, lookup);
      if (loop) throw badParams(v.where + ": the aliases make a loop (" + describeLoop(loop) + "). Point one of them at a plain value.");
    }
  }
}

/**
 * Creates the planned variables, then sets their values (so aliases may point forwards). Every variable made is
 * pushed to `created` as it is made, for the caller's rollback.
 * @param {Planned[]} planned @param {VariableCollection} collection @param {(mode: string) => string} modeIdOf
 * @param {CommandContext} ctx @param {Variable[]} created @param {{item: Planned | null}} current
 */
async function createPlanned(planned, collection, modeIdOf, ctx, created, current) {
  const n = planned.length;
  const pacer = new Pacer(ctx, n * 2);
  for (let i = 0; i < n; i++) {
    const p = planned[i];
    current.item = p;
    const v = figma.variables.createVariable(p.name, collection, p.type);
    created.push(v);
    if (p.description !== undefined) v.description = p.description;
    if (p.scopes) v.scopes = p.scopes;
    await pacer.step((done) => "Created " + done + " of " + n + " variables");
  }
  /** @type {Map<Planned, Variable>} */
  const madeFor = new Map();
  planned.forEach((p, i) => madeFor.set(p, created[i]));
  for (let i = 0; i < n; i++) {
    const p = planned[i];
    current.item = p;
    const v = created[i];
    for (const value of p.values) {
      v.setValueForMode(modeIdOf(value.mode), valueFor(value, madeFor));
    }
    await pacer.step((done) => "Set the values of " + (done - n) + " of " + n + " variables");
  }
}

/** @param {PlannedValue} v @param {Map<Planned, Variable>} madeFor @returns {VariableValue} */
function valueFor(v, madeFor) {
  const parsed = v.parsed;
  if ("value" in parsed) return parsed.value;
  const target = /** @type {{variable: Variable} | {planned: Planned}} */ (v.target);
  const variable = "variable" in target ? target.variable : /** @type {Variable} */ (madeFor.get(target.planned));
  return figma.variables.createVariableAlias(variable);
}

/**
 * The first LISTED_ITEMS entries of `entries` as an object, and how many more there were.
 * @param {Array<[string, any]>} entries @param {string} key
 * @returns {Record<string, any>}
 */
function listed(entries, key) {
  /** @type {Record<string, any>} */
  const shown = {};
  entries.slice(0, LISTED_ITEMS).forEach(([k, v]) => (shown[k] = v));
  /** @type {Record<string, any>} */
  const out = { [key]: shown };
  if (entries.length > LISTED_ITEMS) {
    out.notListed = entries.length - LISTED_ITEMS;
    out.hint = "The first " + LISTED_ITEMS + " are listed; read the rest with design_get_variables.";
  }
  return out;
}

/**
 * The error for a failure after changes began. A cancel stays a cancel; anything else names the item.
 * @param {unknown} err @param {string} list @param {{index: number, name: string} | null} item
 * @param {string} undone what was undone
 */
function failure(err, list, item, undone) {
  if (err instanceof PluginError && err.code === "cancelled") {
    return new PluginError("cancelled", err.message + " " + undone);
  }
  const which = item ? list + "[" + item.index + "] ('" + item.name + "')" : list;
  return new PluginError("plugin_api_error", "The design tool refused " + which + ": " + errorText(err) + ". " + undone, {
    rolledBack: true,
    failedIndex: item ? item.index : null,
    failedName: item ? item.name : null,
  });
}

/** Removes what a failed call made; returns the sentence that says so. @param {Variable[]} created */
function removeCreated(created) {
  let left = 0;
  created
    .slice()
    .reverse()
    .forEach((v) => {
      try {
        v.remove();
      } catch (err) {
        left++;
      }
    });
  return left
    ? "Removing what this call made failed for " + left + " of " + created.length + " variables; check the collection."
    : "Nothing was kept: the " + created.length + " variables this call had made were removed.";
}

/** BATCH_CREATE_VARIABLES: up to MAX_BATCH variables in one existing collection, all or none. */
export async function batchCreateVariables(/** @type {any} */ params, /** @type {CommandContext} */ ctx) {
  const collection = editableCollection(await getCollection(params.collectionId));
  const items = reqArray(params, "variables");
  checkCount(items, "variables", MAX_BATCH);
  const planned = await planVariables(items, {
    pacer: new Pacer(ctx, 0),
    list: "variables",
    valuesKey: "valuesByMode",
    existing: await variablesByName(collection.id),
    collectionName: collection.name,
    modeKey: (key, where) => findMode(collection, key, where).modeId,
    allModes: collection.modes.map((m) => m.modeId),
    fillModes: false,
  });
  /** @type {Variable[]} */
  const created = [];
  const current = { item: /** @type {Planned | null} */ (null) };
  try {
    await createPlanned(planned, collection, (mode) => mode, ctx, created, current);
  } catch (err) {
    throw failure(err, "variables", current.item, removeCreated(created));
  }
  return Object.assign(
    { success: true, collectionId: collection.id, count: created.length },
    listed(created.map((v) => [v.name, v.id]), "created"),
  );
}

/**
 * BATCH_UPDATE_VARIABLES: up to MAX_BATCH values, all or none. `changes` maps variable id → mode id → [before, after],
 * values as callers write them, for the first LISTED_ITEMS variables.
 */
export async function batchUpdateVariables(/** @type {any} */ params, /** @type {CommandContext} */ ctx) {
  const items = reqArray(params, "updates");
  checkCount(items, "updates", MAX_BATCH);
  const checking = new Pacer(ctx, 0);
  /** @type {Array<{variable: Variable, modeId: string, value: VariableValue, where: string, index: number}>} */
  const plan = [];
  /** @type {Array<[Variable, string, string | null, string]>} */
  const links = [];
  /** @type {Map<string, VariableCollection>} */
  const collections = new Map();
  /** @type {Map<string, Map<string, Variable>>} */
  const names = new Map();
  /** @type {Map<string, number>} */
  const seen = new Map();
  for (let i = 0; i < items.length; i++) {
    await checking.check();
    const item = items[i];
    const at = "updates[" + i + "]";
    if (!isPlainObject(item)) throw badParams(at + " must be an object with 'variableId', 'modeId' and 'value'.");
    const variable = editableVariable(await getVariable(item.variableId, at + ".variableId"));
    const where = at + " ('" + variable.name + "')";
    if (!("value" in item)) throw badParams(where + ": 'value' is required.");
    const cid = variable.variableCollectionId;
    if (!collections.has(cid)) {
      collections.set(cid, await getCollection(cid));
      names.set(cid, await variablesByName(cid));
    }
    const collection = /** @type {VariableCollection} */ (collections.get(cid));
    const modeKey = item.modeId === undefined || item.modeId === null ? collection.defaultModeId : item.modeId;
    const mode = findMode(collection, modeKey, where);
    const key = variable.id + "\u0000" + mode.modeId;
    const twin = seen.get(key);
    if (twin !== undefined) throw conflict(where + ": updates[" + twin + "] sets the same variable in the same mode; give each value once.");
    seen.set(key, i);
    const resolved = await resolveValue(variable.resolvedType, item.value, collection, /** @type {Map<string, Variable>} */ (names.get(cid)), where);
    plan.push({ variable: variable, modeId: mode.modeId, value: resolved.value, where: where, index: i });
    links.push([variable, mode.modeId, resolved.target ? resolved.target.id : null, where]);
  }
  await refuseAliasLoops(links);

  /** @type {Array<{variable: Variable, modeId: string, before: VariableValue}>} */
  const done = [];
  let current = plan[0];
  const pacer = new Pacer(ctx, plan.length);
  try {
    for (let i = 0; i < plan.length; i++) {
      current = plan[i];
      const before = current.variable.valuesByMode[current.modeId];
      current.variable.setValueForMode(current.modeId, current.value);
      done.push({ variable: current.variable, modeId: current.modeId, before: before });
      await pacer.step((n, total) => "Updated " + n + " of " + total + " values");
    }
  } catch (err) {
    let left = 0;
    done.reverse().forEach((d) => {
      try {
        d.variable.setValueForMode(d.modeId, d.before);
      } catch (restoreErr) {
        left++;
      }
    });
    const undone = left
      ? "Setting back the earlier values failed for " + left + " of " + done.length + "; check those variables."
      : "Nothing was kept: the " + done.length + " values already changed were set back.";
    throw failure(err, "updates", { index: current.index, name: current.variable.name }, undone);
  }
  /** @type {Map<string, Record<string, Array<string | number | boolean | null>>>} */
  const changes = new Map();
  for (const d of done) {
    if (!changes.has(d.variable.id) && changes.size >= LISTED_ITEMS) continue;
    const byMode = changes.get(d.variable.id) || {};
    changes.set(d.variable.id, byMode);
    byMode[d.modeId] = [compactValue(d.before), compactValue(d.variable.valuesByMode[d.modeId])];
  }
  const variableCount = new Set(done.map((d) => d.variable.id)).size;
  /** @type {Record<string, any>} */
  const out = { success: true, count: done.length, changes: Object.fromEntries(changes) };
  if (variableCount > changes.size) {
    out.notListed = variableCount - changes.size;
    out.hint = "Changes of the first " + LISTED_ITEMS + " variables are listed; read the others with design_get_variables.";
  }
  return out;
}

/**
 * @typedef {{id: string, name: string, type: VariableResolvedDataType, home: VariableCollection, description: string,
 *            scopes: VariableScope[], values: Record<string, VariableValue>}} Recipe
 * @typedef {{variable: Variable, modeId: string, target: string}} Aliaser
 */

/**
 * The values of local variables that alias one of `ids`, so a rollback can point them at the variables it makes
 * again (those in `ids` too: a cancelled batch leaves some of them in place).
 * @param {Map<string, number>} ids @param {Pacer} pacer @returns {Promise<Aliaser[]>}
 */
async function aliasesInto(ids, pacer) {
  /** @type {Aliaser[]} */
  const found = [];
  for (const variable of await figma.variables.getLocalVariablesAsync()) {
    await pacer.check();
    const values = variable.valuesByMode;
    for (const modeId of Object.keys(values)) {
      const value = /** @type {any} */ (values[modeId]);
      if (value && value.type === "VARIABLE_ALIAS" && ids.has(value.id)) found.push({ variable: variable, modeId: modeId, target: value.id });
    }
  }
  return found;
}

/**
 * Makes deleted variables again, then sets their values and the aliases that pointed at them, aliases between them
 * following the new ids. Answers how many could not be made whole.
 * @param {Recipe[]} removed @param {Aliaser[]} aliasers
 */
function recreate(removed, aliasers) {
  /** @type {Map<string, Variable>} */
  const made = new Map();
  /** @type {Set<string>} */
  const broken = new Set();
  for (const r of removed) {
    try {
      const back = figma.variables.createVariable(r.name, r.home, r.type);
      made.set(r.id, back);
      back.description = r.description;
      back.scopes = r.scopes;
    } catch (err) {
      broken.add(r.id);
    }
  }
  /** @param {VariableValue} value */
  const follow = (value) => {
    const v = /** @type {any} */ (value);
    const target = v && v.type === "VARIABLE_ALIAS" ? made.get(v.id) : undefined;
    return target ? figma.variables.createVariableAlias(target) : value;
  };
  for (const r of removed) {
    const back = made.get(r.id);
    if (!back) continue;
    try {
      Object.keys(r.values).forEach((m) => back.setValueForMode(m, follow(r.values[m])));
    } catch (err) {
      broken.add(r.id);
    }
  }
  for (const a of aliasers) {
    const target = made.get(a.target);
    // A variable deleted and made again already points at the new ids.
    if (!target || made.has(a.variable.id) || broken.has(a.variable.id)) continue;
    try {
      a.variable.setValueForMode(a.modeId, figma.variables.createVariableAlias(target));
    } catch (err) {
      broken.add(a.target);
    }
  }
  return broken.size;
}

/**
 * BATCH_DELETE_VARIABLES: up to MAX_BATCH variables, all or none. Every id is checked first; a failure or a cancel
 * midway makes the deleted variables again (name, type, description, scopes, values, and the aliases that pointed at
 * them), under new ids. The editor's undo restores them under their old ids.
 */
export async function batchDeleteVariables(/** @type {any} */ params, /** @type {CommandContext} */ ctx) {
  const ids = reqArray(params, "variableIds");
  checkCount(ids, "variableIds", MAX_BATCH);
  const checking = new Pacer(ctx, 0);
  /** @type {Variable[]} */
  const doomed = [];
  /** @type {Map<string, number>} */
  const seen = new Map();
  for (let i = 0; i < ids.length; i++) {
    await checking.check();
    const at = "variableIds[" + i + "]";
    const variable = editableVariable(await getVariable(ids[i], at));
    const twin = seen.get(variable.id);
    if (twin !== undefined) throw conflict(at + " ('" + variable.name + "'): variableIds[" + twin + "] names it too; give each id once.");
    seen.set(variable.id, i);
    doomed.push(variable);
  }
  /** @type {Map<string, VariableCollection>} */
  const homes = new Map();
  for (const v of doomed) {
    if (!homes.has(v.variableCollectionId)) homes.set(v.variableCollectionId, await getCollection(v.variableCollectionId));
  }
  const aliasers = await aliasesInto(seen, checking);
  /** @type {Recipe[]} */
  const removed = [];
  let index = 0;
  const pacer = new Pacer(ctx, doomed.length);
  try {
    for (; index < doomed.length; index++) {
      const v = doomed[index];
      const recipe = {
        id: v.id,
        name: v.name,
        type: v.resolvedType,
        home: /** @type {VariableCollection} */ (homes.get(v.variableCollectionId)),
        description: v.description,
        scopes: v.scopes.slice(),
        values: Object.assign({}, v.valuesByMode),
      };
      v.remove();
      removed.push(recipe);
      await pacer.step((n, total) => "Deleted " + n + " of " + total + " variables");
    }
  } catch (err) {
    const left = recreate(removed, aliasers);
    const undone = left
      ? "Making the " + removed.length + " deleted variables again failed for " + left + "; check the collections."
      : "Nothing was kept: the " + removed.length + " variables already deleted were made again (under new ids).";
    const item = index < doomed.length ? { index: index, name: doomed[index].name } : null;
    throw failure(err, "variableIds", item, undone);
  }
  return Object.assign({ success: true, count: removed.length }, listed(removed.map((r) => [r.id, r.name]), "deleted"));
}

/**
 * SETUP_DESIGN_TOKENS: a new collection with its modes and every token, aliases by DTCG reference to tokens of the
 * same call ("{color.blue.500}" → "color/blue/500") in any order, or to variables of other local collections (by a
 * unique name, or qualified: "{Primitives.blue.500}"). All or none: on a failure the collection goes.
 */
export async function setupDesignTokens(/** @type {any} */ params, /** @type {CommandContext} */ ctx) {
  const collectionName = reqString(params, "collectionName");
  const modes = checkModeNames(reqArray(params, "modes"), "modes");
  if (!modes.length) throw badParams("'modes' is empty: give at least one mode name, e.g. [\"Light\", \"Dark\"].");
  const tokens = reqArray(params, "tokens");
  checkCount(tokens, "tokens", MAX_SETUP_TOKENS);
  await refuseTakenCollectionName(collectionName, "SETUP_DESIGN_TOKENS");
  const planned = await planVariables(tokens, {
    pacer: new Pacer(ctx, 0),
    list: "tokens",
    valuesKey: "values",
    existing: new Map(),
    collectionName: collectionName,
    modeKey: (key, where) => {
      if (modes.indexOf(key) < 0) throw notFound(where + ": '" + key + "' is not one of the modes given (" + modes.join(", ") + ").");
      return key;
    },
    allModes: modes,
    fillModes: true,
  });

  const collection = figma.variables.createVariableCollection(collectionName);
  /** @type {Record<string, string>} */
  const modeIds = {};
  /** @type {Variable[]} */
  const created = [];
  const current = { item: /** @type {Planned | null} */ (null) };
  let phase = "modes";
  try {
    collection.renameMode(collection.defaultModeId, modes[0]);
    modeIds[modes[0]] = collection.defaultModeId;
    for (let i = 1; i < modes.length; i++) modeIds[modes[i]] = collection.addMode(modes[i]);
    phase = "tokens";
    await createPlanned(planned, collection, (mode) => modeIds[mode], ctx, created, current);
  } catch (err) {
    let undone = "Nothing was kept: the collection '" + collectionName + "' and its " + created.length + " variables were removed.";
    try {
      collection.remove();
    } catch (removeErr) {
      undone = removeCreated(created) + " Removing the collection failed (" + errorText(removeErr) + "); delete it by hand.";
    }
    if (phase === "modes" && !(err instanceof PluginError)) {
      throw new PluginError(
        "plugin_api_error",
        "Could not make the modes " + modes.join(", ") + ": " + errorText(err) + ". " + undone +
          " The file's plan may allow fewer modes per collection: try fewer modes.",
        { rolledBack: true, failedIndex: null, failedName: null },
      );
    }
    throw failure(err, "tokens", current.item, undone);
  }
  return Object.assign(
    { success: true, collectionId: collection.id, collectionName: collection.name, modes: modeIds, count: created.length },
    listed(created.map((v) => [v.name, v.id]), "created"),
  );
}
