import { PluginError, badParams, notFound } from "../errors.js";
import { getNode, getSceneNode, requireType, summarize } from "../nodes.js";
import { optString, optNumber, optEnum, optBool, optObject } from "../params.js";

/** CREATE_SLOT */
export async function createSlot(/** @type {any} */ params) {
  const node = await getNode(params.nodeId);
  requireType(node, ["COMPONENT"], "create a slot");
  const component = /** @type {ComponentNode} */ (node);
  if (typeof component.createSlot !== "function") throw new PluginError("unsupported", "This editor's plugin API has no slots yet; update the desktop app.");
  const slot = component.createSlot();
  const name = optString(params, "name");
  if (name) slot.name = name;
  const width = optNumber(params, "width", undefined, { min: 0.01 });
  const height = optNumber(params, "height", undefined, { min: 0.01 });
  if (width !== undefined || height !== undefined) slot.resize(width || slot.width, height || slot.height);
  const layout = optEnum(params, "layoutMode", /** @type {const} */ (["NONE", "HORIZONTAL", "VERTICAL"]), undefined);
  if (layout) slot.layoutMode = layout;
  return { success: true, slot: summarize(slot), componentId: component.id };
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

/** APPEND_TO_SLOT */
export async function appendToSlot(/** @type {any} */ params) {
  const slot = await findSlot(params);
  if (optBool(params, "clearExisting", false)) slot.children.slice().forEach((c) => c.remove());
  /** @type {SceneNode} */
  let child;
  if (params.sourceNodeId) {
    const source = await getSceneNode(params.sourceNodeId, "sourceNodeId");
    child = optBool(params, "clone", true) ? source.clone() : source;
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
    child = create[/** @type {keyof typeof create} */ (type)]();
    const props = optObject(params, "properties") || {};
    if (typeof props.name === "string") child.name = props.name;
    if (typeof props.width === "number" && typeof props.height === "number" && "resize" in child) child.resize(props.width, props.height);
  }
  slot.appendChild(child);
  return { success: true, slot: summarize(slot), appended: summarize(child) };
}

/** RESET_SLOT */
export async function resetSlot(/** @type {any} */ params) {
  const slot = await findSlot(params);
  slot.resetSlot();
  return { success: true, slot: Object.assign(summarize(slot), { childCount: slot.children.length }) };
}
