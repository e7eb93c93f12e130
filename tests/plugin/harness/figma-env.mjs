// The stand-in editor: figma-api-stub's `figma`, extended with what the stub lacks (async getters, variables,
// component sets and properties, clone, exports that return real PNGs, document changes, whiteboard and slides
// nodes, annotations, slots, node defaults). Used in node:vm and, bundled, in a browser Web Worker.
import { createFigma } from "figma-api-stub";
import { Fonts } from "figma-api-stub/dist/fonts.js";
import { solidPng } from "./png.mjs";

function toBase64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

function fromBase64(text) {
  const raw = atob(text);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/**
 * @param {{editorType?: string, fileKey?: string|null, fileName?: string}} [options]
 */
export function createDesignEnv(options = {}) {
  const figma = createFigma({ simulateErrors: true, isWithoutTimeout: false });
  // The stub keeps loaded fonts in a module-wide list; every new editor starts with none, as a new session does.
  Fonts.loadedFonts.length = 0;
  // The stub's own lookups read the global `figma`.
  globalThis.figma = figma;
  const editorType = options.editorType || "figma";
  Object.defineProperty(figma, "editorType", { value: editorType, configurable: true });
  Object.defineProperty(figma, "fileKey", { value: options.fileKey === undefined ? "FILEKEY123" : options.fileKey || undefined, configurable: true });
  figma.root.name = options.fileName || "Test File";
  figma.currentPage.name = "Page 1";
  figma.mixed = Symbol("mixed");

  let nextId = 100;
  const newId = () => "9:" + nextId++;
  const listeners = { documentchange: [], selectionchange: [], currentpagechange: [] };
  const pageListeners = [];
  const originalOn = figma.on.bind(figma);
  figma.on = (type, cb) => {
    if (type === "documentchange") listeners.documentchange.push(cb);
    else originalOn(type, cb);
  };
  figma.currentPage.on = (type, cb) => {
    if (type === "nodechange") pageListeners.push(cb);
  };

  // ---- node defaults and behaviour the stub lacks ------------------------------------------------------------
  function decorate(node, defaults = {}) {
    if (!node.id) node.id = newId();
    if (node.name === undefined) node.name = defaults.name || titleCase(node.type) + " " + (nextId - 99);
    if (node.x === undefined) node.x = 0;
    if (node.y === undefined) node.y = 0;
    if (node.width === undefined) node.width = defaults.width || 100;
    if (node.height === undefined) node.height = defaults.height || 100;
    if (node.visible === undefined) node.visible = true;
    if (node.opacity === undefined) node.opacity = 1;
    if (node.annotations === undefined) node.annotations = [];
    if (node.removed === undefined) node.removed = false;
    if (!("strokes" in node)) node.strokes = [];
    if (node.strokeWeight === undefined) node.strokeWeight = 1;
    if (node.reactions === undefined) node.reactions = [];
    if (["FRAME", "COMPONENT", "COMPONENT_SET", "INSTANCE", "SECTION", "SLOT", "SLIDE"].includes(node.type)) {
      if (!node.children) node.children = [];
      if (node.layoutMode === undefined) node.layoutMode = "NONE";
    }
    if (!("cornerRadius" in node) && ["RECTANGLE", "FRAME", "COMPONENT", "INSTANCE"].includes(node.type)) node.cornerRadius = 0;
    if (typeof node.resize !== "function") {
      node.resize = function (w, h) {
        this.width = w;
        this.height = h;
      };
    }
    if (typeof node.resizeWithoutConstraints !== "function") node.resizeWithoutConstraints = node.resize;
    node.clone = function () {
      return cloneNode(this, this.parent || figma.currentPage);
    };
    Object.defineProperty(node, "absoluteBoundingBox", {
      configurable: true,
      get() {
        return { x: this.x, y: this.y, width: this.width, height: this.height };
      },
    });
    node.exportAsync = async function (settings) {
      if (this.removed) throw new Error("The node with id " + this.id + " does not exist");
      if (settings && settings.format === "SVG") {
        return new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="' + this.width + '" height="' + this.height + '"/>');
      }
      const scale = settings && settings.constraint ? settings.constraint.value : 1;
      const w = Math.max(1, Math.round(this.width * scale));
      const h = Math.max(1, Math.round(this.height * scale));
      const fill = Array.isArray(this.fills) && this.fills[0] && this.fills[0].color;
      return solidPng(w, h, fill || undefined);
    };
    if (node.type === "TEXT") {
      node.getRangeAllFontNames = function () {
        return [this.fontName];
      };
      if (node.fontSize === undefined) node.fontSize = 12;
      if (node.textStyleId === undefined) node.textStyleId = "";
    }
    const originalRemove = node.remove;
    node.remove = function () {
      originalRemove.call(this);
      this.removed = true;
    };
    return node;
  }

  function titleCase(type) {
    return type.charAt(0) + type.slice(1).toLowerCase().replace(/_/g, " ");
  }

  function cloneNode(source, parent) {
    const copy = Object.create(Object.getPrototypeOf(source));
    for (const key of Object.keys(source)) {
      if (["id", "parent", "children", "_orig"].includes(key)) continue;
      const value = source[key];
      copy[key] = value && typeof value === "object" && !Array.isArray(value) && !(value instanceof Uint8Array) ? Object.assign({}, value) : Array.isArray(value) ? value.slice() : value;
    }
    copy.id = newId();
    copy.removed = false;
    decorate(copy);
    if (source.children) {
      copy.children = [];
      source.children.forEach((c) => {
        const child = cloneNode(c, null);
        child.parent = copy;
        copy.children.push(child);
      });
    }
    if (parent) parent.appendChild(copy);
    return copy;
  }

  function wrapCreate(name, type, extra) {
    const base = figma[name] ? figma[name].bind(figma) : () => figma.createRectangle();
    figma[name] = (...args) => {
      const node = base(...args);
      if (type) node.type = type;
      decorate(node);
      if (extra) extra(node, ...args);
      return node;
    };
  }

  wrapCreate("createRectangle");
  wrapCreate("createFrame");
  wrapCreate("createText");
  wrapCreate("createComponent");
  wrapCreate("createEllipse", "ELLIPSE");
  wrapCreate("createLine", "LINE", (n) => {
    n.height = 0;
    delete n.cornerRadius;
    n.resize = function (w, h) {
      this.width = w;
      this.height = h;
    };
  });
  wrapCreate("createPolygon", "POLYGON");
  wrapCreate("createStar", "STAR");
  wrapCreate("createVector", "VECTOR", (n) => delete n.cornerRadius);

  // The page exports what is on it; the stub's export returns no bytes.
  figma.currentPage.exportAsync = async function (settings) {
    const kids = (this.children || []).filter((c) => c.visible !== false);
    if (!kids.length) return new Uint8Array(0);
    const minX = Math.min(...kids.map((c) => c.x));
    const minY = Math.min(...kids.map((c) => c.y));
    const w = Math.max(...kids.map((c) => c.x + c.width)) - minX;
    const h = Math.max(...kids.map((c) => c.y + c.height)) - minY;
    const scale = settings && settings.constraint ? settings.constraint.value : 1;
    return solidPng(Math.max(1, Math.round(w * scale)), Math.max(1, Math.round(h * scale)), { r: 0.96, g: 0.96, b: 0.96 });
  };

  /** A node of a whiteboard type with a text sublayer, on the current page. */
  function boardNode(type, size) {
    const n = decorate(figma.createFrame(), size);
    n.type = type;
    n.name = titleCase(type);
    delete n.children;
    const text = figma.createText();
    text.parent.children = text.parent.children.filter((x) => x !== text);
    text.parent = null;
    n.text = text;
    return n;
  }

  function requireEditor(kind, what) {
    if (editorType !== kind) throw new Error("Cannot call " + what + " in this editor");
  }

  // ---- whiteboard ------------------------------------------------------------------------------------------
  figma.createSticky = () => {
    requireEditor("figjam", "createSticky");
    return boardNode("STICKY", { width: 240, height: 240 });
  };
  figma.createShapeWithText = () => {
    requireEditor("figjam", "createShapeWithText");
    const n = boardNode("SHAPE_WITH_TEXT");
    n.shapeType = "ROUNDED_RECTANGLE";
    n.dashPattern = [];
    return n;
  };
  figma.createConnector = () => {
    requireEditor("figjam", "createConnector");
    const n = boardNode("CONNECTOR");
    n.connectorStart = { position: { x: 0, y: 0 } };
    n.connectorEnd = { position: { x: 0, y: 0 } };
    return n;
  };
  figma.createSection = () => {
    const n = decorate(figma.createFrame(), { width: 100, height: 100 });
    n.type = "SECTION";
    return n;
  };
  figma.createCodeBlock = () => {
    requireEditor("figjam", "createCodeBlock");
    const n = decorate(figma.createRectangle());
    n.type = "CODE_BLOCK";
    n.code = "";
    const languages = ["TYPESCRIPT", "JAVASCRIPT", "PYTHON", "CSS", "HTML", "JSON", "PLAINTEXT"];
    let language = "PLAINTEXT";
    Object.defineProperty(n, "codeLanguage", {
      get: () => language,
      set: (v) => {
        if (!languages.includes(v)) throw new Error("Invalid code language " + v);
        language = v;
      },
    });
    return n;
  };
  figma.createTable = (rows = 2, columns = 2) => {
    requireEditor("figjam", "createTable");
    const n = decorate(figma.createFrame());
    n.type = "TABLE";
    n.numRows = rows;
    n.numColumns = columns;
    const cells = [];
    for (let r = 0; r < rows; r++) {
      cells.push([]);
      for (let c = 0; c < columns; c++) {
        const text = figma.createText();
        text.parent.children = text.parent.children.filter((x) => x !== text);
        cells[r].push({ rowIndex: r, columnIndex: c, text: text });
      }
    }
    n.cellAt = (r, c) => cells[r][c];
    return n;
  };

  // ---- slides ----------------------------------------------------------------------------------------------
  if (editorType === "slides") {
    let grid = [];
    figma.viewport = figma.viewport || {};
    figma.viewport.slidesView = "grid";
    figma.currentPage.focusedSlide = null;
    figma.createSlide = (row, col) => {
      const n = decorate(figma.createFrame(), { width: 1920, height: 1080 });
      n.type = "SLIDE";
      n.isSkippedSlide = false;
      let transition = { style: "NONE", duration: 0, curve: "EASE_IN_AND_OUT", timing: { type: "ON_CLICK" } };
      n.getSlideTransition = () => Object.assign({}, transition);
      n.setSlideTransition = (t) => (transition = Object.assign({}, t));
      const r = row === undefined ? grid.length : row;
      while (grid.length <= r) grid.push([]);
      grid[r].splice(col === undefined ? grid[r].length : col, 0, n);
      const originalRemove = n.remove;
      n.remove = function () {
        originalRemove.call(this);
        grid = grid.map((rowNodes) => rowNodes.filter((s) => s !== n)).filter((rowNodes) => rowNodes.length);
      };
      const originalClone = n.clone;
      n.clone = function () {
        const copy = originalClone.call(this);
        copy.type = "SLIDE";
        copy.getSlideTransition = n.getSlideTransition;
        copy.setSlideTransition = n.setSlideTransition;
        grid[grid.length - 1].push(copy);
        return copy;
      };
      return n;
    };
    figma.getSlideGrid = () => grid.map((r) => r.slice());
    figma.setSlideGrid = (next) => {
      const flat = next.flat();
      const current = grid.flat();
      if (flat.length !== current.length || !current.every((s) => flat.includes(s))) throw new Error("setSlideGrid needs every slide");
      grid = next.map((r) => r.slice());
    };
  }

  // ---- components ------------------------------------------------------------------------------------------
  let keyCounter = 1;
  function makeComponentLike(node) {
    node.key = "key" + keyCounter++;
    node.description = "";
    node.descriptionMarkdown = "";
    const defs = {};
    let propCounter = 1;
    Object.defineProperty(node, "componentPropertyDefinitions", {
      configurable: true,
      get() {
        if (this.type === "COMPONENT" && this.parent && this.parent.type === "COMPONENT_SET") {
          throw new Error("Can only get definitions of a component set or non-variant component");
        }
        const out = {};
        for (const k of Object.keys(defs)) out[k] = Object.assign({}, defs[k]);
        if (this.type === "COMPONENT_SET") {
          const axes = {};
          this.children.forEach((c) => Object.entries(c.variantProperties || {}).forEach(([a, v]) => (axes[a] = axes[a] || []).includes(v) || axes[a].push(v)));
          Object.entries(axes).forEach(([a, values]) => (out[a] = { type: "VARIANT", defaultValue: values[0], variantOptions: values }));
        }
        return out;
      },
    });
    node.addComponentProperty = (name, type, defaultValue, opts) => {
      if (!["BOOLEAN", "TEXT", "INSTANCE_SWAP", "VARIANT", "SLOT"].includes(type)) throw new Error("Invalid property type");
      const full = type === "VARIANT" ? name : name + "#" + propCounter++ + ":0";
      defs[full] = Object.assign({ type: type, defaultValue: defaultValue }, opts && opts.preferredValues ? { preferredValues: opts.preferredValues } : {});
      return full;
    };
    node.editComponentProperty = (name, value) => {
      if (!defs[name]) throw new Error("Property " + name + " not found");
      const def = defs[name];
      delete defs[name];
      const base = value.name || name.split("#")[0];
      const full = name.includes("#") ? base + "#" + name.split("#")[1] : base;
      defs[full] = Object.assign(def, value.defaultValue !== undefined ? { defaultValue: value.defaultValue } : {});
      return full;
    };
    node.deleteComponentProperty = (name) => {
      if (!defs[name]) throw new Error("Property " + name + " not found");
      delete defs[name];
    };
    return node;
  }

  const componentBase = figma.createComponent;
  figma.createComponent = () => {
    const node = makeComponentLike(componentBase());
    node.createInstance = function () {
      const main = this;
      const inst = decorate(figma.createFrame());
      inst.type = "INSTANCE";
      inst.width = main.width;
      inst.height = main.height;
      (main.children || []).forEach((c) => {
        const child = cloneNode(c, null);
        child.parent = inst;
        inst.children.push(child);
      });
      const values = {};
      const defsOwner = main.parent && main.parent.type === "COMPONENT_SET" ? main.parent : main;
      Object.defineProperty(inst, "componentProperties", {
        get() {
          const defs = defsOwner.componentPropertyDefinitions;
          const out = {};
          Object.keys(defs).forEach((k) => {
            const value = k in values ? values[k] : defs[k].type === "VARIANT" ? (main.variantProperties || {})[k] : defs[k].defaultValue;
            out[k] = { type: defs[k].type, value: value };
          });
          return out;
        },
      });
      inst.setProperties = (props) => {
        const defs = defsOwner.componentPropertyDefinitions;
        Object.keys(props).forEach((k) => {
          if (!defs[k]) throw new Error("Could not find a component property with name: '" + k + "'");
          values[k] = props[k];
        });
      };
      inst.getMainComponentAsync = async () => main;
      return inst;
    };
    node.createSlot = function () {
      const slot = decorate(figma.createFrame());
      slot.type = "SLOT";
      slot.limitViolations = [];
      const initial = [];
      // Slot content of an instance is the one part of an instance that may be removed and replaced.
      slot.resetSlot = function () {
        this.children.forEach((c) => (c.removed = true));
        this.children = [];
        initial.forEach((c) => this.appendChild(cloneNode(c, null)));
      };
      this.appendChild(slot);
      return slot;
    };
    return node;
  };

  figma.combineAsVariants = (components, parent) => {
    if (!components.length) throw new Error("combineAsVariants needs at least one component");
    components.forEach((c) => {
      if (c.type !== "COMPONENT") throw new Error("Can only combine components");
    });
    const set = makeComponentLike(decorate(figma.createFrame()));
    set.type = "COMPONENT_SET";
    set.name = "Component Set";
    components.forEach((c) => {
      c.variantProperties = {};
      c.name.split(",").forEach((pair) => {
        const [k, v] = pair.split("=").map((s) => s && s.trim());
        c.variantProperties[v === undefined ? "Property 1" : k] = v === undefined ? k : v;
      });
      set.appendChild(c);
    });
    Object.defineProperty(set, "defaultVariant", { get: () => set.children[0] });
    parent.appendChild(set);
    return set;
  };

  const published = new Map();
  figma.importComponentByKeyAsync = async (key) => {
    const c = published.get(key);
    if (!c || c.type !== "COMPONENT") throw new Error("Could not find a published component with the key '" + key + "'");
    return c;
  };
  figma.importComponentSetByKeyAsync = async (key) => {
    const c = published.get(key);
    if (!c || c.type !== "COMPONENT_SET") throw new Error("Could not find a published component set with the key '" + key + "'");
    return c;
  };

  // ---- async document access -------------------------------------------------------------------------------
  let pagesLoaded = false;
  figma.getNodeByIdAsync = async (id) => figma.getNodeById(id);
  figma.loadAllPagesAsync = async () => {
    pagesLoaded = true;
  };
  const rootFindAll = figma.root.findAllWithCriteria.bind(figma.root);
  figma.root.findAllWithCriteria = (criteria) => {
    if (!pagesLoaded) throw new Error("Call figma.loadAllPagesAsync() before searching the whole document");
    return rootFindAll(criteria);
  };
  figma.setCurrentPageAsync = async (page) => {
    figma.currentPage = page;
  };
  figma.base64Encode = toBase64;
  figma.base64Decode = fromBase64;
  const styles = new Map();
  figma.getStyleByIdAsync = async (id) => styles.get(id) || null;
  figma.getLocalTextStylesAsync = async () => [...styles.values()].filter((s) => s.type === "TEXT");
  figma.annotations = {
    getAnnotationCategoriesAsync: async () => [
      { id: "cat:1", label: "Interaction", color: "BLUE", isPreset: true },
      { id: "cat:2", label: "Accessibility", color: "GREEN", isPreset: true },
    ],
  };
  figma.ui.onmessage = undefined;

  // ---- variables -------------------------------------------------------------------------------------------
  const variables = new Map();
  const collections = new Map();
  let varCounter = 1;
  figma.variables = {
    getLocalVariablesAsync: async () => [...variables.values()],
    getLocalVariableCollectionsAsync: async () => [...collections.values()],
    getVariableByIdAsync: async (id) => variables.get(id) || null,
    getVariableCollectionByIdAsync: async (id) => collections.get(id) || null,
    createVariableCollection(name) {
      const id = "VariableCollectionId:" + varCounter++ + ":0";
      let modeCounter = 1;
      const c = {
        id: id,
        name: name,
        key: "ck" + id,
        remote: false,
        hiddenFromPublishing: false,
        modes: [{ modeId: id + ":m0", name: "Mode 1" }],
        get defaultModeId() {
          return this.modes[0].modeId;
        },
        get variableIds() {
          return [...variables.values()].filter((v) => v.variableCollectionId === id).map((v) => v.id);
        },
        addMode(modeName) {
          if (this.modes.length >= 4) throw new Error("Limited to 4 modes only");
          const modeId = id + ":m" + modeCounter++;
          this.modes.push({ modeId: modeId, name: modeName });
          return modeId;
        },
        renameMode(modeId, newName) {
          const mode = this.modes.find((m) => m.modeId === modeId);
          if (!mode) throw new Error("Mode not found");
          mode.name = newName;
        },
        remove() {
          this.variableIds.forEach((v) => variables.delete(v));
          collections.delete(id);
        },
      };
      collections.set(id, c);
      return c;
    },
    createVariable(name, collection, resolvedType) {
      if (typeof collection === "string") throw new Error("Passing a collection id is not supported under dynamic-page");
      const id = "VariableID:" + varCounter++ + ":1";
      const v = {
        id: id,
        name: name,
        key: "vk" + id,
        description: "",
        remote: false,
        hiddenFromPublishing: false,
        resolvedType: resolvedType,
        variableCollectionId: collection.id,
        valuesByMode: {},
        scopes: ["ALL_SCOPES"],
        setValueForMode(modeId, value) {
          if (!collections.get(this.variableCollectionId).modes.some((m) => m.modeId === modeId)) throw new Error("Invalid mode");
          this.valuesByMode[modeId] = value;
        },
        remove() {
          variables.delete(id);
        },
      };
      variables.set(id, v);
      return v;
    },
    createVariableAlias: (variable) => ({ type: "VARIABLE_ALIAS", id: variable.id }),
    setBoundVariableForPaint: (paint, field, variable) =>
      Object.assign({}, paint, { boundVariables: { [field]: { type: "VARIABLE_ALIAS", id: variable.id } } }),
  };

  // ---- test controls ---------------------------------------------------------------------------------------
  const control = {
    decorate,
    publish(node) {
      published.set(node.key, node);
    },
    addStyle(style) {
      styles.set(style.id, style);
    },
    fireDocumentChange(changes) {
      listeners.documentchange.forEach((cb) => cb({ documentChanges: changes }));
      pageListeners.forEach((cb) => cb({ nodeChanges: changes }));
    },
    setSelection(nodes) {
      figma.currentPage.selection = nodes;
    },
  };
  return { figma, control };
}
