import { PluginError, badParams, notFound, conflict, errorText } from "../errors.js";
import { getNode, getSceneNode, requireType, mainComponentOnly, summarize } from "../nodes.js";
import { reqString, optString, optNumber, optEnum, optBool, optObject } from "../params.js";
import { checkPreferredValues } from "./components.js";
import { loadFontsOf, echoText } from "./text.js";

/** CREATE_SLOT */
export async function createSlot(/** @type {any} */ params) {
  const node = await mainComponentOnly(await getNode(params.nodeId), "create a slot");
  requireType(node, ["COMPONENT"], "create a slot (slots go into a component or one variant of a set)");
  const component = /** @type {ComponentNode} */ (node);
  if (typeof component.createSlot !== "function") throw new PluginError("unsupported", "This editor's plugin API has no slots yet; update the desktop app.");
  const name = optString(params, "name");
  const width = optNumber(params, "width", undefined, { min: 0.01 });
  const height = optNumber(params, "height", undefined, { min: 0.01 });
  const layout = optEnum(params, "layoutMode", /** @type {const} */ (["NONE", "HORIZONTAL", "VERTICAL"]), undefined);
  const slot = component.createSlot();
  try {
    if (name) slot.name = name;
    if (width !== undefined || height !== undefined) slot.resize(width || slot.width, height || slot.height);
    if (layout) slot.layoutMode = layout;
  } catch (err) {
    slot.remove();
    throw new PluginError("plugin_api_error", "CREATE_SLOT failed: " + errorText(err) + ". The slot was removed again.", { rolledBack: true });
  }
  return { success: true, slot: summarize(slot), componentId: component.id };
}

/**
 * ADD_SLOT_PROPERTY: a SLOT component property bound to an existing frame that is a direct child of the component
 * (for a set: of one of its variants). The property lives on the component, or on the set of a variant.
 */
export async function addSlotProperty(/** @type {any} */ params) {
  const node = await mainComponentOnly(await getNode(params.nodeId), "add a slot property");
  const owner = node.type === "COMPONENT" && node.parent && node.parent.type === "COMPONENT_SET" ? node.parent : node;
  const propertyName = reqString(params, "propertyName");
  const description = optString(params, "description");
  const preferred = checkPreferredValues(params.preferredValues, "ADD_SLOT_PROPERTY");
  const frame = await getNode(params.frameNodeId, "frameNodeId");
  const parent = frame.parent;
  const direct = node.type === "COMPONENT_SET" ? !!parent && parent.type === "COMPONENT" && parent.parent === node : parent === node;
  if (!direct) {
    throw badParams(
      "Node " + frame.id + " (" + frame.name + ") is not a direct child of " + node.name + (node.type === "COMPONENT_SET" ? "'s variants" : "") +
        ". A slot binds a frame placed directly in the component: move it there first, or use design_create_slot.",
    );
  }
  requireType(frame, ["FRAME"], "bind a slot property (it needs a frame)");
  const f = /** @type {any} */ (frame);
  if (f.layoutMode === "GRID") {
    throw badParams("Frame " + frame.id + " (" + frame.name + ") uses GRID layout, which slots do not allow: set it to NONE, HORIZONTAL or VERTICAL first.");
  }
  const refs = f.componentPropertyReferences;
  if (refs && refs.slotContentId) {
    throw conflict("Frame " + frame.id + " (" + frame.name + ") is already the content of slot property '" + refs.slotContentId + "'.");
  }
  /** @type {ComponentPropertyOptions} */
  const options = {};
  if (description !== undefined) options.description = description;
  if (preferred) options.preferredValues = preferred;
  const fullName = owner.addComponentProperty(propertyName, "SLOT", "", Object.keys(options).length ? options : undefined);
  try {
    f.componentPropertyReferences = Object.assign({}, refs || {}, { slotContentId: fullName });
  } catch (err) {
    owner.deleteComponentProperty(fullName);
    throw new PluginError(
      "plugin_api_error",
      "The design tool refused to bind frame " + frame.id + " (" + frame.name + ") to the slot property: " + errorText(err) +
        ". The property was removed again.",
      { rolledBack: true },
    );
  }
  const def = owner.componentPropertyDefinitions[fullName];
  return {
    success: true,
    propertyName: fullName,
    componentId: owner.id,
    frameId: frame.id,
    definition: def ? JSON.parse(JSON.stringify(def)) : null,
  };
}

/** @param {BaseNode} root */
function slotsIn(root) {
  return /** @type {any} */ (root).findAllWithCriteria({ types: ["SLOT"] });
}

/** GET_SLOTS */
export async function getSlots(/** @type {any} */ params) {
  const node = await getNode(params.nodeId);
  requireType(node, ["COMPONENT", "INSTANCE", "COMPONENT_SET"], "list slots");
  const slots = slotsIn(node).map((/** @type {any} */ s) => Object.assign(summarize(s), { childCount: s.children.length, limitViolations: s.limitViolations }));
  return { success: true, nodeId: node.id, slots: slots };
}

/** An instance slot named by id, or by instance id and slot name. @param {any} params */
async function findSlot(params) {
  if (params.slotId) {
    const node = await getNode(params.slotId, "slotId");
    requireType(node, ["SLOT"], "use it as a slot");
    return /** @type {SlotNode} */ (node);
  }
  if (!params.instanceId) throw badParams("Give 'slotId', or 'instanceId' with 'slotName'.");
  const instance = await getNode(params.instanceId, "instanceId");
  requireType(instance, ["INSTANCE"], "find a slot in it");
  const slots = slotsIn(instance);
  const name = optString(params, "slotName");
  const hit = name ? slots.find((/** @type {any} */ s) => s.name === name) : slots.length === 1 ? slots[0] : undefined;
  if (!hit) {
    throw notFound(
      (name ? "No slot named '" + name + "'" : "'slotName' is needed to choose a slot") + " in instance " + instance.name +
        ". Its slots: " + (slots.map((/** @type {any} */ s) => s.name).join(", ") || "none") + ".",
    );
  }
  return /** @type {SlotNode} */ (hit);
}

const SLOT_CHILD_TYPES = /** @type {const} */ (["FRAME", "RECTANGLE", "ELLIPSE", "TEXT", "LINE", "POLYGON", "STAR", "VECTOR"]);

/**
 * APPEND_TO_SLOT: the new content is made before anything is cleared, so a failure leaves the slot as it was.
 * A node moved in (clone: false) reports where it came from.
 */
export async function appendToSlot(/** @type {any} */ params) {
  const slot = await findSlot(params);
  const clear = optBool(params, "clearExisting", false);
  /** @type {SceneNode} */
  let child;
  /** @type {Record<string, any> | undefined} */
  let movedFrom;
  let made = false;
  if (params.sourceNodeId) {
    const source = await getSceneNode(params.sourceNodeId, "sourceNodeId");
    if (optBool(params, "clone", true)) {
      child = source.clone();
      made = true;
    } else {
      child = source;
      const from = source.parent;
      movedFrom = from ? { parentId: from.id, index: /** @type {any} */ (from).children.indexOf(source) } : undefined;
    }
  } else {
    const type = optEnum(params, "nodeType", SLOT_CHILD_TYPES, "FRAME");
    const create = {
      FRAME: () => figma.createFrame(),
      RECTANGLE: () => figma.createRectangle(),
      ELLIPSE: () => figma.createEllipse(),
      TEXT: () => figma.createText(),
      LINE: () => figma.createLine(),
      POLYGON: () => figma.createPolygon(),
      STAR: () => figma.createStar(),
      VECTOR: () => figma.createVector(),
    };
    const props = optObject(params, "properties") || {};
    const name = optString(props, "name");
    const width = optNumber(props, "width", undefined, { min: 0.01, max: 100000 });
    const height = optNumber(props, "height", undefined, { min: 0.01, max: 100000 });
    const text = optString(props, "text");
    if (text !== undefined && type !== "TEXT") throw badParams("properties.text sets the characters of a TEXT node; this call makes a " + type + ".");
    child = create[/** @type {keyof typeof create} */ (type)]();
    made = true;
    try {
      if (name !== undefined) child.name = name;
      if (text !== undefined) {
        const node = /** @type {TextNode} */ (child);
        await loadFontsOf(node);
        node.characters = text;
      }
      if ((width !== undefined || height !== undefined) && "resize" in child) child.resize(width || child.width, height || child.height);
    } catch (err) {
      child.remove();
      throw err;
    }
  }
  const removed = clear ? slot.children.length : 0;
  try {
    if (clear) slot.children.slice().forEach((c) => c.remove());
    slot.appendChild(child);
  } catch (err) {
    if (made) child.remove();
    throw err;
  }
  /** @type {Record<string, any>} */
  const out = { success: true, slot: summarize(slot), appended: summarize(child), removedChildren: removed };
  if (child.type === "TEXT" && made && !params.sourceNodeId) out.appended.characters = echoText(/** @type {TextNode} */ (child).characters);
  if (movedFrom) out.movedFrom = movedFrom;
  return out;
}

/** RESET_SLOT */
export async function resetSlot(/** @type {any} */ params) {
  const slot = await findSlot(params);
  const before = slot.children.length;
  slot.resetSlot();
  return { success: true, previousChildCount: before, slot: Object.assign(summarize(slot), { childCount: slot.children.length }) };
}
