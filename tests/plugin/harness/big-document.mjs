// Big documents for the stand-in editor, nested as real design files nest them: a components page of component sets
// (variants holding a label and an icon) and standalone components, then pages of sections, each section a row of
// screens, each screen a header, a list of rows made of instances and text, and a footer. The layer count is exact,
// so a benchmark can compare 1k, 10k and 100k layers; variables come as collections of N variables in M modes with
// some aliases, as a token set is.
//
//   import { buildBigDocument } from "./big-document.mjs";
//   const p = loadPlugin({ setup: (figma, control) => buildBigDocument(figma, control, { layers: 10000, variables: 500, modes: 4 }) });
//
// Everything is deterministic: the same options give the same names, ids and structure.

const LABELS = ["Overview", "Settings", "Billing", "Members", "Activity", "Reports", "Search", "Inbox", "Profile", "Help"];
const BLUE = { r: 0.12, g: 0.53, b: 0.9 };
const GREY = { r: 0.96, g: 0.96, b: 0.96 };
const FONT = { family: "Inter", style: "Regular" };

/**
 * Fills the stand-in editor with a big document.
 *
 * @param {any} figma the stand-in's `figma` (from createDesignEnv or loadPlugin's setup)
 * @param {any} control the stand-in's test controls
 * @param {{layers?: number, pages?: number, screensPerSection?: number, componentSets?: number, variables?: number,
 *          modes?: number, collections?: number, select?: number}} [options]
 *   layers: layers below the pages in all (components included), exactly; pages: pages of screens (the first is the
 *   current page); componentSets: sets of three variants (Button, Input, Badge, Tab, Button 2…; default 4), 10
 *   layers each; variables: local variables in all, split over `collections`, each with `modes` modes;
 *   select: how many screens' rows end up selected on the current page; annotate: every so many layers made carries
 *   an annotation.
 * @returns {{layers: number, pages: any[], components: any[], componentSets: any[], screens: any[], texts: number,
 *            instances: number, variables: any[], collections: any[], selection: any[],
 *            annotated: number}}
 */
export function buildBigDocument(figma, control, options = {}) {
  const total = options.layers ?? 1000;
  const pageCount = Math.max(1, options.pages ?? 1);
  const screensPerSection = options.screensPerSection ?? 10;
  let left = total;
  const summary = { layers: 0, pages: [], components: [], componentSets: [], screens: [], texts: 0, instances: 0, variables: [], collections: [], selection: [], annotated: 0 };
  const byId = new Map();

  /** The stand-in makes every node on the current page; it is moved under its parent here. */
  function place(node, parent, name) {
    node.name = name;
    if (parent) parent.appendChild(node);
    byId.set(node.id, node);
    return node;
  }

  /** One layer made, or null when the budget is spent. */
  function make(factory, parent, name) {
    if (left <= 0) return null;
    left -= 1;
    summary.layers += 1;
    const node = place(factory(), parent, name);
    if (options.annotate && summary.layers % options.annotate === 0 && "annotations" in node) {
      node.annotations = [{ label: "Check " + name + " (" + summary.layers + ")" }];
      summary.annotated += 1;
    }
    return node;
  }

  function frame(parent, name, props = {}) {
    const f = make(() => figma.createFrame(), parent, name);
    if (f) Object.assign(f, props);
    return f;
  }

  function text(parent, name, characters) {
    const t = make(() => figma.createText(), parent, name);
    if (!t) return null;
    // A saved file holds its text without the plugin loading a font first.
    t._fontName = FONT;
    t._characters = characters;
    t.fontSize = 14;
    summary.texts += 1;
    return t;
  }

  function rect(parent, name, fill) {
    const r = make(() => figma.createRectangle(), parent, name);
    if (r) r.fills = [{ type: "SOLID", color: fill, opacity: 1, visible: true, blendMode: "NORMAL" }];
    return r;
  }

  /** An instance counts as one layer plus the copies of its component's layers, as the editor counts them. */
  function instance(component, parent, name) {
    const size = 1 + component.children.length;
    if (left < size) return null;
    const inst = component.createInstance();
    left -= size;
    summary.layers += size;
    summary.instances += 1;
    place(inst, parent, name);
    inst.children.forEach((c) => byId.set(c.id, c));
    return inst;
  }

  // ---- pages: the current page is the first page of screens (reads with no page named look there, as in the
  // editor), then a page of components, then the other pages of screens -----------------------------------------
  const screenPages = [figma.currentPage];
  figma.currentPage.name = "Screens 1";
  const componentsPage = figma.createPage();
  componentsPage.name = "Components";
  for (let p = 1; p < pageCount; p++) {
    const page = figma.createPage();
    page.name = "Screens " + (p + 1);
    screenPages.push(page);
  }
  summary.pages.push(screenPages[0], componentsPage, ...screenPages.slice(1));
  summary.pages.forEach((page) => byId.set(page.id, page));

  // ---- components: sets of variants (a label and an icon each) and standalone components ----------------------
  function component(name, parent, variant) {
    if (left < 3) return null;
    const c = make(() => figma.createComponent(), parent, name);
    c.layoutMode = "HORIZONTAL";
    c.itemSpacing = 8;
    c.fills = [{ type: "SOLID", color: BLUE, opacity: 1, visible: true, blendMode: "NORMAL" }];
    const label = text(c, "Label", name.split("=").pop() || name);
    rect(c, "Icon", GREY);
    if (!variant) label._componentPropertyReferences = { characters: c.addComponentProperty("Label", "TEXT", label.characters) };
    summary.components.push(c);
    return c;
  }
  const setKinds = ["Button", "Input", "Badge", "Tab"];
  for (let s = 0; s < (options.componentSets ?? 4); s++) {
    if (left < 10) break;
    const setName = setKinds[s % setKinds.length] + (s < setKinds.length ? "" : " " + (Math.floor(s / setKinds.length) + 1));
    const variants = ["Primary", "Secondary", "Ghost"].map((v) => component("Variant=" + v, null, true));
    left -= 1;
    summary.layers += 1;
    const set = place(figma.combineAsVariants(variants, componentsPage), null, setName);
    set.description = setName + " in three variants";
    summary.componentSets.push(set);
  }
  for (const name of ["Avatar", "Icon/Chevron", "Divider"]) component(name, componentsPage, false);
  const parts = summary.components.filter((c) => c.parent === componentsPage);
  const buttons = summary.components.filter((c) => c.parent !== componentsPage);

  function screen(section, index) {
    const label = LABELS[index % LABELS.length];
    const s = frame(section, label + " " + (index + 1), { x: (index % screensPerSection) * 1480, width: 1440, height: 1024, layoutMode: "VERTICAL" });
    if (!s) return;
    summary.screens.push(s);
    const header = frame(s, "Header", { layoutMode: "HORIZONTAL", width: 1440, height: 64 });
    if (header) {
      text(header, "Title", label);
      if (buttons.length) instance(buttons[index % buttons.length], header, "Action");
    }
    const list = frame(s, "List", { layoutMode: "VERTICAL", width: 1440, height: 800 });
    for (let r = 0; list && r < 12 && left > 0; r++) {
      const row = frame(list, "Row " + (r + 1), { layoutMode: "HORIZONTAL", width: 1440, height: 56 });
      if (!row) break;
      if (parts.length) instance(parts[0], row, "Avatar");
      text(row, "Name", "Item " + (index + 1) + "." + (r + 1));
      text(row, "Detail", label + " detail " + (r + 1));
      if (r % 4 === 3) rect(row, "Divider", GREY);
    }
    const footer = frame(s, "Footer", { layoutMode: "HORIZONTAL", width: 1440, height: 48 });
    if (footer) text(footer, "Copyright", "© Example");
  }

  // Layers go to the pages in turn, a section at a time, until the budget is spent.
  let screenIndex = 0;
  for (let sectionIndex = 0; left > 0; sectionIndex++) {
    const page = screenPages[sectionIndex % screenPages.length];
    const section = make(() => figma.createSection(), null, "Section " + (sectionIndex + 1));
    if (!section) break;
    page.appendChild(section);
    section.y = Math.floor(sectionIndex / screenPages.length) * 1200;
    for (let i = 0; i < screensPerSection && left > 0; i++) screen(section, screenIndex++);
  }
  // Whatever a partly built screen could not hold (an instance needing more layers than remain) goes as text.
  const lastScreen = summary.screens[summary.screens.length - 1] || screenPages[0];
  while (left > 0) text(lastScreen, "Note", "Note");

  // ---- variables: collections of N variables in M modes, every fifth an alias of the one before ------------------
  const variableCount = options.variables ?? 0;
  const modeCount = Math.max(1, options.modes ?? 1);
  const collectionCount = Math.max(1, Math.min(options.collections ?? 1, variableCount || 1));
  if (variableCount > 0) {
    if (modeCount > 4) control.setModeLimit(modeCount);
    for (let c = 0; c < collectionCount; c++) {
      const collection = figma.variables.createVariableCollection("Tokens " + (c + 1));
      for (let m = 1; m < modeCount; m++) collection.addMode("Mode " + (m + 1));
      summary.collections.push(collection);
    }
    const types = ["COLOR", "FLOAT", "STRING", "BOOLEAN"];
    for (let i = 0; i < variableCount; i++) {
      const collection = summary.collections[i % collectionCount];
      const type = types[i % types.length];
      const v = figma.variables.createVariable(type.toLowerCase() + "/group-" + Math.floor(i / 50) + "/token-" + i, collection, type);
      const previous = summary.variables[i - collectionCount * types.length];
      collection.modes.forEach((mode, m) => {
        if (i % 5 === 4 && previous && previous.variableCollectionId === collection.id) {
          v.setValueForMode(mode.modeId, figma.variables.createVariableAlias(previous));
        } else if (type === "COLOR") {
          v.setValueForMode(mode.modeId, { r: (i % 100) / 100, g: m / modeCount, b: 0.5, a: 1 });
        } else if (type === "FLOAT") {
          v.setValueForMode(mode.modeId, i + m);
        } else if (type === "STRING") {
          v.setValueForMode(mode.modeId, "value " + i + " in mode " + (m + 1));
        } else {
          v.setValueForMode(mode.modeId, (i + m) % 2 === 0);
        }
      });
      summary.variables.push(v);
    }
  }

  // ---- selection -------------------------------------------------------------------------------------------
  if (options.select) {
    const rows = [];
    for (const s of summary.screens) {
      if (s.parent && s.parent.parent !== figma.currentPage) continue;
      const list = s.children.find((c) => c.name === "List");
      if (list) rows.push(...list.children);
      if (rows.length >= options.select) break;
    }
    summary.selection = rows.slice(0, options.select);
    control.setSelection(summary.selection);
  }

  // The editor finds a node by id in constant time; the stand-in walks the whole document, which on a big file
  // would be most of what a benchmark measured. Nodes made later, and removed ones, go by the stand-in's walk.
  const walk = figma.getNodeById.bind(figma);
  figma.getNodeById = (id) => {
    const node = byId.get(id);
    return node && !node.removed && attached(node) ? node : walk(id);
  };
  function attached(node) {
    let cur = node;
    while (cur.parent) cur = cur.parent;
    return cur === figma.root;
  }
  return summary;
}
