import { PluginError, badParams, notFound, readOnly, errorText } from "../errors.js";
import { getNode, requireType, mainComponentOnly, summarize, describeTree, describePaints, placeUnder } from "../nodes.js";
import { reqString, optString, optNumber, optObject, reqObject, optEnum, optBool, isPlainObject } from "../params.js";
import { loadFontsOf } from "./text.js";
import { arrangeOptions, arrangeSet } from "./arrange.js";
import { READ_MAX_CHARS } from "./layers.js";

const PROPERTY_TYPES = /** @type {const} */ (["BOOLEAN", "TEXT", "INSTANCE_SWAP", "VARIANT", "SLOT"]);
export const MAX_VARIANTS = 500;

/** @param {any} node */
function propertyDefinitions(node) {
  if (node.type === "COMPONENT" && node.parent && node.parent.type === "COMPONENT_SET") return undefined;
  try {
    return node.componentPropertyDefinitions;
  } catch (err) {
    return undefined;
  }
}

/** @param {any} node */
function describeComponent(node) {
  const out = summarize(node);
  out.key = node.key;
  out.description = node.description;
  if (node.descriptionMarkdown) out.descriptionMarkdown = node.descriptionMarkdown;
  const defs = propertyDefinitions(node);
  if (defs) out.componentPropertyDefinitions = defs;
  if (node.variantProperties) out.variantProperties = node.variantProperties;
  if (node.type === "COMPONENT_SET") out.variants = node.children.map((/** @type {any} */ c) => ({ id: c.id, name: c.name, key: c.key, variantProperties: c.variantProperties }));
  return out;
}

/** @param {unknown} id */
async function getComponentLike(id) {
  const node = await getNode(id);
  if (node.type === "INSTANCE") {
    const main = await /** @type {InstanceNode} */ (node).getMainComponentAsync();
    throw new PluginError(
      "wrong_node_type",
      "Node " + node.id + " (" + node.name + ") is an instance, not a component" + (main ? "; its main component is " + main.id + " (" + main.name + ")" : "") + ".",
    );
  }
  requireType(node, ["COMPONENT", "COMPONENT_SET"], "use it as a component");
  return /** @type {ComponentNode | ComponentSetNode} */ (node);
}

/** GET_COMPONENT */
export async function getComponent(/** @type {any} */ params) {
  const node = await getNode(params.nodeId);
  requireType(node, ["COMPONENT", "COMPONENT_SET", "INSTANCE"], "read component data");
  const out = node.type === "INSTANCE" ? describeTree(node, 1) : describeComponent(node);
  if (node.type === "INSTANCE") {
    const main = await /** @type {InstanceNode} */ (node).getMainComponentAsync();
    out.mainComponent = main ? { id: main.id, name: main.name, key: main.key } : null;
  } else {
    out.children = describeTree(node, 2).children;
  }
  return { success: true, component: out };
}

/**
 * GET_LOCAL_COMPONENTS: the components and component sets of the file, across pages, in document order. With
 * `offset` (ours), one page of them from the offset-th on, as many as fit in READ_MAX_CHARS of records, and `next`,
 * the following page's offset (null at the end); without it, as older servers ask, every one in one reply.
 */
export async function getLocalComponents(/** @type {any} */ params) {
  const paged = params.offset !== undefined && params.offset !== null;
  const offset = /** @type {number} */ (optNumber(params, "offset", 0, { min: 0 }));
  await figma.loadAllPagesAsync();
  const found = figma.root.findAllWithCriteria({ types: ["COMPONENT", "COMPONENT_SET"] });
  const components = [];
  const componentSets = [];
  /** @type {number | null} */
  let next = null;
  let index = 0;
  let chars = 0;
  for (const node of found) {
    // A variant is listed in its set, not on its own.
    if (node.type === "COMPONENT" && node.parent && node.parent.type === "COMPONENT_SET") continue;
    if (index++ < offset) continue;
    if (paged && chars >= READ_MAX_CHARS) {
      next = index - 1;
      break;
    }
    const d = describeComponent(node);
    d.page = pageOf(node);
    if (paged) chars += JSON.stringify(d).length + 1;
    (node.type === "COMPONENT_SET" ? componentSets : components).push(d);
  }
  return { success: true, components: components, componentSets: componentSets, totalComponents: components.length, totalComponentSets: componentSets.length, timestamp: Date.now(), next: next };
}

/** @param {BaseNode} node */
function pageOf(node) {
  /** @type {BaseNode | null} */
  let cur = node;
  while (cur && cur.type !== "PAGE") cur = cur.parent;
  return cur ? { id: cur.id, name: cur.name } : null;
}

/** DEEP_GET_COMPONENT */
export async function deepGetComponent(/** @type {any} */ params) {
  const node = await getNode(params.nodeId);
  const depth = optNumber(params, "depth", 10, { min: 0, max: 30 });
  const budget = { count: 0, max: 5000 };
  const tree = describeTree(node, /** @type {number} */ (depth), budget);
  await resolveVariableNames(tree);
  return { success: true, component: tree, nodeCount: budget.count, truncated: budget.count >= budget.max };
}

/** Adds the names of bound variables, so a developer sees tokens rather than ids. @param {any} tree */
async function resolveVariableNames(tree) {
  /** @type {Record<string, string | null>} */
  const names = {};
  /** @param {any} n */
  async function visit(n) {
    if (n.boundVariables) {
      const resolved = {};
      for (const field of Object.keys(n.boundVariables)) {
        const ids = [].concat(n.boundVariables[field]);
        const out = [];
        for (const id of ids) {
          if (typeof id !== "string") continue;
          if (!(id in names)) {
            const v = await figma.variables.getVariableByIdAsync(id);
            names[id] = v ? v.name : null;
          }
          out.push({ id: id, name: names[id] });
        }
        /** @type {any} */ (resolved)[field] = out.length === 1 ? out[0] : out;
      }
      n.boundVariables = resolved;
    }
    for (const c of n.children || []) await visit(c);
  }
  await visit(tree);
}

/** ANALYZE_COMPONENT_SET: the variant axes, the states, and what each variant changes against the default one. */
export async function analyzeComponentSet(/** @type {any} */ params) {
  const node = await getNode(params.nodeId);
  requireType(node, ["COMPONENT_SET"], "analyse variants");
  const set = /** @type {ComponentSetNode} */ (node);
  const variants = /** @type {ComponentNode[]} */ (set.children.filter((c) => c.type === "COMPONENT"));
  if (!variants.length) throw new PluginError("empty", "Component set " + set.name + " has no variants.");
  /** @type {Record<string, string[]>} */
  const axes = {};
  variants.forEach((v) => {
    const props = v.variantProperties || {};
    Object.keys(props).forEach((axis) => {
      axes[axis] = axes[axis] || [];
      if (axes[axis].indexOf(props[axis]) < 0) axes[axis].push(props[axis]);
    });
  });
  const base = set.defaultVariant || variants[0];
  const baseDesc = visualOf(base);
  const diffs = variants.map((v) => {
    const d = visualOf(v);
    const changed = Object.keys(d).filter((k) => JSON.stringify(d[k]) !== JSON.stringify(baseDesc[k]));
    /** @type {Record<string, any>} */
    const changes = {};
    changed.forEach((k) => (changes[k] = { from: baseDesc[k], to: d[k] }));
    return { id: v.id, name: v.name, variantProperties: v.variantProperties, changes: changes };
  });
  const stateAxis = Object.keys(axes).find((a) => /^(state|status|interaction)$/i.test(a));
  return {
    success: true,
    componentSet: { id: set.id, name: set.name, key: set.key, variantCount: variants.length },
    axes: axes,
    defaultVariant: { id: base.id, name: base.name },
    states: stateAxis ? { axis: stateAxis, values: axes[stateAxis] } : null,
    variants: diffs,
  };
}

/** @param {any} n */
function visualOf(n) {
  return {
    width: n.width,
    height: n.height,
    fills: describePaints(n.fills),
    strokes: describePaints(n.strokes),
    strokeWeight: n.strokeWeight === figma.mixed ? "mixed" : n.strokeWeight,
    cornerRadius: n.cornerRadius === figma.mixed ? "mixed" : n.cornerRadius,
    opacity: n.opacity,
    childCount: n.children ? n.children.length : 0,
    layoutMode: n.layoutMode,
  };
}

/** SET_NODE_DESCRIPTION: components, component sets and styles ("S:…" ids). */
export async function setNodeDescription(/** @type {any} */ params) {
  const id = reqString(params, "nodeId");
  if (typeof params.description !== "string") throw badParams("Parameter 'description' is required and must be a string.");
  const markdown = optString(params, "descriptionMarkdown");
  /** @type {any} */
  let target;
  if (id.indexOf("S:") === 0) {
    target = await figma.getStyleByIdAsync(id);
    if (!target) throw notFound("Style " + id + " was not found in this file. List styles with design_get_styles and retry.");
    if (target.remote) throw readOnly("Style '" + target.name + "' (" + target.id + ")");
  } else {
    target = await mainComponentOnly(await getNode(id), "set a description");
  }
  const previous = { description: target.description, descriptionMarkdown: target.descriptionMarkdown || "" };
  target.description = params.description;
  if (markdown !== undefined) target.descriptionMarkdown = markdown;
  return { success: true, previous: previous, node: { id: target.id, name: target.name, description: target.description } };
}

/** The component or set that holds the property definitions: a variant's live on its set. @param {any} params */
async function definitionsOwner(params) {
  const node = await mainComponentOnly(await getNode(params.nodeId), "change component properties");
  if (node.type === "COMPONENT" && node.parent && node.parent.type === "COMPONENT_SET") {
    throw new PluginError(
      "wrong_node_type",
      "Component " + node.name + " is a variant; component properties live on its component set " + node.parent.id + ". Use that id.",
    );
  }
  return node;
}

/** @param {unknown} value @param {string} where @returns {InstanceSwapPreferredValue[] | undefined} */
export function checkPreferredValues(value, where) {
  if (value === undefined || value === null) return undefined;
  const ok = Array.isArray(value) && value.every((v) => isPlainObject(v) && (v.type === "COMPONENT" || v.type === "COMPONENT_SET") && typeof v.key === "string" && v.key);
  if (!ok) throw badParams(where + ": 'preferredValues' must be an array of {type: \"COMPONENT\" | \"COMPONENT_SET\", key: \"<component key>\"}.");
  return /** @type {InstanceSwapPreferredValue[]} */ (value).map((v) => ({ type: v.type, key: v.key }));
}

/** @param {ComponentPropertyDefinitions[string] | undefined} def */
function plainDefinition(def) {
  return def ? JSON.parse(JSON.stringify(def)) : null;
}

/** ADD_COMPONENT_PROPERTY */
export async function addComponentProperty(/** @type {any} */ params) {
  const node = await definitionsOwner(params);
  const name = reqString(params, "propertyName");
  const type = optEnum(params, "propertyType", PROPERTY_TYPES, optEnum(params, "type", PROPERTY_TYPES, undefined));
  if (!type) throw badParams("Parameter 'propertyType' is required: one of " + PROPERTY_TYPES.join(", ") + ".");
  const defaultValue = params.defaultValue;
  if (type === "BOOLEAN" && typeof defaultValue !== "boolean") throw badParams("A BOOLEAN property needs a boolean 'defaultValue'.");
  if (type !== "BOOLEAN" && type !== "SLOT" && typeof defaultValue !== "string") {
    throw badParams("A " + type + " property needs a string 'defaultValue'" + (type === "INSTANCE_SWAP" ? " (a component id)." : "."));
  }
  if (type === "VARIANT" && node.type !== "COMPONENT_SET") {
    throw new PluginError("wrong_node_type", "VARIANT properties belong to component sets; " + node.name + " is a single component. Combine variants first (design_create_component_set).");
  }
  /** @type {ComponentPropertyOptions} */
  const options = {};
  const preferred = checkPreferredValues(params.preferredValues, "ADD_COMPONENT_PROPERTY");
  if (preferred) {
    if (type !== "INSTANCE_SWAP" && type !== "SLOT") throw badParams("'preferredValues' apply only to INSTANCE_SWAP and SLOT properties.");
    options.preferredValues = preferred;
  }
  const description = optString(params, "description");
  if (description !== undefined) {
    if (type !== "SLOT") throw badParams("'description' applies only to SLOT properties.");
    options.description = description;
  }
  const fullName = node.addComponentProperty(name, type, type === "SLOT" ? "" : defaultValue, Object.keys(options).length ? options : undefined);
  return { success: true, propertyName: fullName, componentPropertyDefinitions: node.componentPropertyDefinitions };
}

/** @param {ComponentNode | ComponentSetNode} node @param {string} name */
function resolvePropertyName(node, name) {
  const defs = node.componentPropertyDefinitions;
  if (defs[name]) return name;
  const match = Object.keys(defs).filter((k) => k.split("#")[0] === name);
  if (match.length === 1) return match[0];
  throw notFound(
    "Component property '" + name + "' is not on " + node.name + ". Its properties: " + (Object.keys(defs).join(", ") || "none") + ".",
  );
}

/** EDIT_COMPONENT_PROPERTY: `previous` and `definition` are the property before and after. */
export async function editComponentProperty(/** @type {any} */ params) {
  const node = await definitionsOwner(params);
  const name = resolvePropertyName(node, reqString(params, "propertyName"));
  const newValue = reqObject(params, "newValue");
  const unknown = Object.keys(newValue).filter((k) => ["name", "defaultValue", "preferredValues", "description"].indexOf(k) < 0);
  if (unknown.length) throw badParams("'newValue' may hold name, defaultValue, preferredValues and description; not " + unknown.join(", ") + ".");
  const previous = plainDefinition(node.componentPropertyDefinitions[name]);
  const fullName = node.editComponentProperty(name, /** @type {any} */ (newValue));
  const defs = node.componentPropertyDefinitions;
  return {
    success: true,
    propertyName: fullName,
    previousName: name,
    previous: previous,
    definition: plainDefinition(defs[fullName]),
    componentPropertyDefinitions: defs,
  };
}

/** DELETE_COMPONENT_PROPERTY: `deletedDefinition` is what ADD_COMPONENT_PROPERTY would need to add it back. */
export async function deleteComponentProperty(/** @type {any} */ params) {
  const node = await definitionsOwner(params);
  const name = resolvePropertyName(node, reqString(params, "propertyName"));
  const def = plainDefinition(node.componentPropertyDefinitions[name]);
  if (def && def.type === "VARIANT") {
    throw badParams("'" + name + "' is a VARIANT property: it comes from the variants' names. Rename or remove the variants instead.");
  }
  node.deleteComponentProperty(name);
  return { success: true, deleted: name, deletedDefinition: def, componentPropertyDefinitions: node.componentPropertyDefinitions };
}

/** @param {ComponentSetNode} set @param {Record<string, any> | undefined} variant */
function pickVariant(set, variant) {
  const variants = /** @type {ComponentNode[]} */ (set.children.filter((c) => c.type === "COMPONENT"));
  if (!variant) return set.defaultVariant || variants[0];
  const wanted = Object.keys(variant);
  const hit = variants.find((v) => wanted.every((k) => v.variantProperties && String(v.variantProperties[k]) === String(variant[k])));
  if (!hit) {
    throw notFound(
      "No variant of " + set.name + " matches " + JSON.stringify(variant) + ". Variants: " + variants.map((v) => v.name).join("; ") + ".",
    );
  }
  return hit;
}

/** INSTANTIATE_COMPONENT: from a local node id or a published key, with variant, overrides, size and place. */
export async function instantiateComponent(/** @type {any} */ params) {
  const variant = optObject(params, "variant");
  /** @type {ComponentNode} */
  let component;
  if (params.nodeId) {
    const node = await getComponentLike(params.nodeId);
    component = node.type === "COMPONENT_SET" ? pickVariant(node, variant) : node;
  } else {
    const key = reqString(params, "componentKey");
    try {
      component = await figma.importComponentByKeyAsync(key);
    } catch (first) {
      let set;
      try {
        set = await figma.importComponentSetByKeyAsync(key);
      } catch (second) {
        throw notFound(
          "No component or component set with key " + key + " could be imported. Check the key and that its library " +
            "is enabled for this file; for a local component pass nodeId instead.",
        );
      }
      component = pickVariant(set, variant);
    }
  }
  const instance = component.createInstance();
  try {
    await placeUnder(instance, params.parentId);
    const position = optObject(params, "position");
    if (position) {
      if (typeof position.x === "number") instance.x = position.x;
      if (typeof position.y === "number") instance.y = position.y;
    }
    const size = optObject(params, "size");
    if (size && typeof size.width === "number" && typeof size.height === "number") instance.resize(size.width, size.height);
    const overrides = optObject(params, "overrides");
    const applied = overrides ? await applyOverrides(instance, overrides) : [];
    return { success: true, instance: summarize(instance), mainComponent: { id: component.id, name: component.name, key: component.key }, overridesApplied: applied };
  } catch (err) {
    instance.remove();
    throw err;
  }
}

/**
 * Sets overrides given by component property name (with or without its #id) or by the name of a text layer.
 * @param {InstanceNode} instance @param {Record<string, any>} overrides
 */
async function applyOverrides(instance, overrides) {
  const props = instance.componentProperties;
  /** @type {Record<string, any>} */
  const byProperty = {};
  const applied = [];
  for (const key of Object.keys(overrides)) {
    const full = props[key] ? key : Object.keys(props).find((k) => k.split("#")[0] === key);
    if (full) {
      byProperty[full] = overrides[key];
      applied.push(key);
      continue;
    }
    const text = instance.findOne((n) => n.type === "TEXT" && n.name === key);
    if (!text) throw notFound("Override '" + key + "' matches neither a component property nor a text layer of the instance.");
    await loadFontsOf(/** @type {TextNode} */ (text));
    /** @type {TextNode} */ (text).characters = String(overrides[key]);
    applied.push(key);
  }
  if (Object.keys(byProperty).length) {
    await loadInstanceFonts(instance, Object.keys(byProperty).filter((k) => props[k].type === "TEXT"));
    instance.setProperties(byProperty);
  }
  return applied;
}

/**
 * Loads the fonts of the instance's text layers that the given TEXT properties drive (all text layers when none
 * is known to be bound), so that setting the properties can change their characters.
 * @param {InstanceNode} instance @param {string[]} [textProperties]
 */
async function loadInstanceFonts(instance, textProperties) {
  if (textProperties && !textProperties.length) return;
  const texts = /** @type {TextNode[]} */ (instance.findAllWithCriteria({ types: ["TEXT"] }));
  const bound = textProperties
    ? texts.filter((t) => {
        const refs = /** @type {any} */ (t).componentPropertyReferences;
        return refs && textProperties.indexOf(refs.characters) >= 0;
      })
    : [];
  for (const t of bound.length ? bound : texts) await loadFontsOf(t);
}

/**
 * Checks a value for an instance property of its definition's type.
 * @param {string} name @param {{type: ComponentPropertyType, variantOptions?: string[]} | undefined} def @param {unknown} value
 */
async function checkPropertyValue(name, def, value) {
  const type = def ? def.type : undefined;
  if (type === "SLOT") {
    throw badParams("'" + name + "' is a SLOT property: slot content is not set through properties. Use design_append_to_slot or design_reset_slot.");
  }
  if (type === "BOOLEAN" && typeof value !== "boolean") throw badParams("'" + name + "' is a BOOLEAN property: give true or false.");
  if (type === "TEXT" && typeof value !== "string") throw badParams("'" + name + "' is a TEXT property: give a string.");
  if (type === "VARIANT") {
    const options = (def && def.variantOptions) || [];
    if (typeof value !== "string" || (options.length && options.indexOf(value) < 0)) {
      throw badParams("'" + name + "' is a VARIANT property: give one of " + options.map((o) => JSON.stringify(o)).join(", ") + ".");
    }
  }
  if (type === "INSTANCE_SWAP") {
    const swap = await figma.getNodeByIdAsync(typeof value === "string" ? value : "");
    if (!swap || swap.type !== "COMPONENT") {
      throw badParams("'" + name + "' is an INSTANCE_SWAP property: give the id of a component (got " + JSON.stringify(value) + ").");
    }
  }
}

/** SET_INSTANCE_PROPERTIES: values are checked against each property's type first; `previous` holds the old ones. */
export async function setInstanceProperties(/** @type {any} */ params) {
  const node = await getNode(params.nodeId);
  requireType(node, ["INSTANCE"], "set instance properties");
  const instance = /** @type {InstanceNode} */ (node);
  const properties = reqObject(params, "properties");
  const props = instance.componentProperties;
  const main = await instance.getMainComponentAsync();
  const owner = main && main.parent && main.parent.type === "COMPONENT_SET" ? main.parent : main;
  /** @type {Record<string, any>} */
  const defs = owner ? /** @type {ComponentNode | ComponentSetNode} */ (owner).componentPropertyDefinitions : {};
  /** @type {Record<string, any>} */
  const resolved = {};
  /** @type {Record<string, any>} */
  const previous = {};
  const texts = [];
  for (const key of Object.keys(properties)) {
    const full = props[key] ? key : Object.keys(props).find((k) => k.split("#")[0] === key);
    if (!full) throw notFound("Property '" + key + "' is not on this instance. Its properties: " + (Object.keys(props).join(", ") || "none") + ".");
    await checkPropertyValue(key, defs[full] || props[full], properties[key]);
    resolved[full] = properties[key];
    previous[full] = props[full].value;
    if (props[full].type === "TEXT") texts.push(full);
  }
  if (texts.length) await loadInstanceFonts(instance, texts);
  instance.setProperties(resolved);
  return { success: true, previous: previous, instance: summarize(instance), componentProperties: instance.componentProperties };
}

/**
 * CREATE_COMPONENT_SET: combine existing components, or clone a base component for every combination of axes; with
 * autoArrange, also lay the variants out in a labelled grid (arrangeOptions as ARRANGE_COMPONENT_SET's options), in
 * the same undo step. If only the arranging fails, the set stays as combined and `arrangeError` says why.
 * @param {any} params @param {import("../dispatch.js").CommandContext} ctx
 */
export async function createComponentSet(params, ctx) {
  const autoArrange = optBool(params, "autoArrange", false);
  const arrangement = arrangeOptions(optObject(params, "arrangeOptions") || {});
  /** @type {ComponentNode[]} */
  let components = [];
  /** @type {ComponentNode[]} */
  const created = [];
  if (Array.isArray(params.componentIds) && params.componentIds.length) {
    for (const id of params.componentIds) {
      const n = await getNode(id, "componentIds[]");
      requireType(n, ["COMPONENT"], "combine it as a variant");
      components.push(/** @type {ComponentNode} */ (n));
    }
  } else {
    const base = await getNode(params.baseComponentId, "baseComponentId");
    requireType(base, ["COMPONENT"], "use it as the base of variants");
    const axes = variantAxes(params);
    const combos = combinations(axes);
    if (combos.length > MAX_VARIANTS) throw badParams(combos.length + " variants requested; the limit is " + MAX_VARIANTS + ".");
    const b = /** @type {ComponentNode} */ (base);
    combos.forEach((combo, i) => {
      const c = i === 0 ? b : b.clone();
      c.name = combo.map((p) => p[0] + "=" + p[1]).join(", ");
      if (i > 0) created.push(c);
      components.push(c);
    });
  }
  if (!components.length) throw badParams("Give 'componentIds' or 'baseComponentId' with 'properties'/'variantProperties'.");
  const parent = params.parentId ? await getNode(params.parentId, "parentId") : components[0].parent || figma.currentPage;
  let set;
  try {
    set = figma.combineAsVariants(components, /** @type {any} */ (parent));
  } catch (err) {
    created.forEach((c) => c.remove());
    throw err;
  }
  const name = optString(params, "name");
  if (name) set.name = name;
  const position = optObject(params, "position");
  if (position) {
    if (typeof position.x === "number") set.x = position.x;
    if (typeof position.y === "number") set.y = position.y;
  }
  /** @type {Record<string, any>} */
  const out = { success: true };
  if (autoArrange) {
    try {
      out.arranged = await arrangeSet(set, arrangement, ctx);
    } catch (err) {
      if (err instanceof PluginError && err.code === "cancelled") throw err;
      out.arrangeError = errorSummary(err);
    }
  }
  out.componentSet = describeComponent(set);
  return out;
}

/** @param {unknown} err */
function errorSummary(err) {
  return err instanceof PluginError ? { error: err.message, code: err.code } : { error: errorText(err), code: "plugin_api_error" };
}

/** @param {any} params @returns {Array<[string, string[]]>} */
function variantAxes(params) {
  /** @type {Array<[string, string[]]>} */
  const axes = [];
  if (Array.isArray(params.variantProperties)) {
    params.variantProperties.forEach((/** @type {any} */ p) => {
      if (!p || typeof p.name !== "string" || !Array.isArray(p.values) || !p.values.length) {
        throw badParams("Each entry of 'variantProperties' needs 'name' and a non-empty 'values' array.");
      }
      axes.push([p.name, p.values.map(String)]);
    });
  } else if (isPlainObject(params.properties)) {
    Object.keys(params.properties).forEach((k) => {
      const values = params.properties[k];
      if (!Array.isArray(values) || !values.length) throw badParams("properties." + k + " must be a non-empty array of values.");
      axes.push([k, values.map(String)]);
    });
  }
  if (!axes.length) throw badParams("Give the variant axes in 'properties' ({\"Size\": [\"S\",\"M\"]}) or 'variantProperties'.");
  return axes;
}

/** @param {Array<[string, string[]]>} axes @returns {Array<Array<[string, string]>>} */
function combinations(axes) {
  /** @type {Array<Array<[string, string]>>} */
  let out = [[]];
  axes.forEach((axis) => {
    /** @type {Array<Array<[string, string]>>} */
    const next = [];
    out.forEach((prefix) => axis[1].forEach((v) => next.push(prefix.concat([[axis[0], v]]))));
    out = next;
  });
  return out;
}

