// The stand-in editor: figma-api-stub's `figma`, extended with what the stub lacks (async getters, variables with
// modes, aliases and the real API's value checks, component sets and properties, instances whose text follows their
// properties, fonts that fail to load when not installed, clone, exports that return real PNGs, document changes,
// whiteboard and slides nodes, annotations, slots, undo commits, node defaults). Used in node:vm and, bundled, in a
// browser Web Worker. Test controls (control.*) inject faults and library items the way a real file would have them.
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

  // ---- faults a test asks for: the n-th call of an API throws, as a design tool failing midway would -----------
  const faults = new Map();
  function fault(name) {
    const f = faults.get(name);
    if (!f) return;
    f.left -= 1;
    if (f.left === 0) {
      faults.delete(name);
      throw new Error(f.message);
    }
  }

  // ---- undo: the editor keeps one step per commit -------------------------------------------------------------
  let undoCommits = 0;
  figma.commitUndo = () => {
    undoCommits += 1;
  };

  // ---- fonts: only installed fonts load, as in the editor ------------------------------------------------------
  const installedFonts = () => figma.listAvailableFontsAsync().then((list) => list.map((f) => f.fontName));
  const stubLoadFont = figma.loadFontAsync.bind(figma);
  figma.loadFontAsync = async (font) => {
    const installed = await installedFonts();
    if (!font || !installed.some((f) => f.family === font.family && f.style === font.style)) {
      throw new Error("in loadFontAsync: The font \"" + (font && font.family) + " " + (font && font.style) + "\" could not be loaded");
    }
    return stubLoadFont(font);
  };

  // Fonts a test installs on top of the stub's (Inter, Roboto, Helvetica), as a user's machine has more.
  const extraFonts = [];
  const stubListFonts = figma.listAvailableFontsAsync.bind(figma);
  figma.listAvailableFontsAsync = async () => (await stubListFonts()).concat(extraFonts);

  // ---- text ranges: each character's own style, as the editor keeps it; setters check the range and fonts ------
  const RANGE_FIELDS = ["fontName", "fontSize", "fills", "textDecoration", "textCase", "letterSpacing", "hyperlink"];
  function decorateTextRanges(node) {
    const checkRange = (n, start, end) => {
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end > n.characters.length || end <= start) {
        throw new Error("in setRange: Range outside of available characters, or empty: " + start + ".." + end);
      }
    };
    const valuesOf = (n, field) => {
      const own = (n._rangeStyles || {})[field] || [];
      return Array.from({ length: n.characters.length }, (_, i) => (own[i] === undefined ? n[field] : own[i]));
    };
    node.getRangeAllFontNames = function (start = 0, end = this.characters.length) {
      const seen = new Map();
      valuesOf(this, "fontName").slice(start, end).concat(end > start ? [] : [this.fontName]).forEach((f) => seen.set(f.family + "\u0000" + f.style, f));
      return seen.size ? [...seen.values()] : [this.fontName];
    };
    for (const field of RANGE_FIELDS) {
      const name = field[0].toUpperCase() + field.slice(1);
      node["setRange" + name] = function (start, end, value) {
        checkRange(this, start, end);
        const needed = field === "fontName" ? [value] : this.getRangeAllFontNames(start, end);
        const missing = needed.find((f) => !Fonts.isFontLoaded(f));
        if (missing) throw new Error("in setRange" + name + ": Cannot write to node with unloaded font \"" + missing.family + " " + missing.style + "\"");
        this._rangeStyles = this._rangeStyles || {};
        const own = (this._rangeStyles[field] = this._rangeStyles[field] || []);
        for (let i = start; i < end; i++) own[i] = value;
      };
      node["getRange" + name] = function (start, end) {
        checkRange(this, start, end);
        const values = valuesOf(this, field).slice(start, end);
        const first = JSON.stringify(values[0]);
        return values.every((v) => JSON.stringify(v) === first) ? values[0] : figma.mixed;
      };
    }
  }

  // insertChild of a node already in the parent moves it (the stub refuses).
  function allowReorder(parent) {
    const insert = parent.insertChild;
    parent.insertChild = function (index, child) {
      if (child && child.parent === this) {
        this.children = this.children.filter((c) => c !== child);
        child.parent = null;
      }
      return insert.call(this, Math.min(index, this.children ? this.children.length : 0), child);
    };
  }
  allowReorder(figma.currentPage);

  const annotationCategories = [
    { id: "cat:1", label: "Interaction", color: "BLUE", isPreset: true },
    { id: "cat:2", label: "Accessibility", color: "GREEN", isPreset: true },
  ];
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
  // Frames, components and rectangles keep a stroke weight per side, as the editor does: strokeWeight sets all four
  // and reads figma.mixed while they differ.
  const STROKE_SIDE_TYPES = new Set(["FRAME", "COMPONENT", "COMPONENT_SET", "INSTANCE", "RECTANGLE"]);
  const STROKE_SIDES = ["strokeTopWeight", "strokeRightWeight", "strokeBottomWeight", "strokeLeftWeight"];
  function defineStrokeSides(node) {
    const start = typeof node.strokeWeight === "number" ? node.strokeWeight : 1;
    const sides = STROKE_SIDES.map((k) => (typeof node[k] === "number" ? node[k] : start));
    STROKE_SIDES.forEach((k, i) => {
      Object.defineProperty(node, k, { configurable: true, enumerable: true, get: () => sides[i], set: (v) => { sides[i] = v; } });
    });
    Object.defineProperty(node, "strokeWeight", {
      configurable: true,
      enumerable: true,
      get: () => (sides.every((w) => w === sides[0]) ? sides[0] : figma.mixed),
      set: (v) => sides.fill(v),
    });
  }

  function decorate(node, defaults = {}) {
    if (!node.id) node.id = newId();
    if (node.name === undefined) node.name = defaults.name || titleCase(node.type) + " " + (nextId - 99);
    if (node.x === undefined) node.x = 0;
    if (node.y === undefined) node.y = 0;
    if (node.width === undefined) node.width = defaults.width || 100;
    if (node.height === undefined) node.height = defaults.height || 100;
    if (node.visible === undefined) node.visible = true;
    if (node.opacity === undefined) node.opacity = 1;
    if (!Object.getOwnPropertyDescriptor(node, "annotations")) defineAnnotations(node);
    if (STROKE_SIDE_TYPES.has(node.type) && !Object.getOwnPropertyDescriptor(node, "strokeTopWeight")) defineStrokeSides(node);
    if (!Object.getOwnPropertyDescriptor(node, "componentPropertyReferences")) defineReferences(node);
    if (node.removed === undefined) node.removed = false;
    if (!("strokes" in node)) node.strokes = [];
    if (node.strokeWeight === undefined) node.strokeWeight = 1;
    if (node.reactions === undefined) node.reactions = [];
    if (["FRAME", "COMPONENT", "COMPONENT_SET", "INSTANCE", "SECTION", "SLOT", "SLIDE"].includes(node.type)) {
      if (!node.children) node.children = [];
      if (node.layoutMode === undefined) node.layoutMode = "NONE";
      if (typeof node.insertChild === "function" && !Object.prototype.hasOwnProperty.call(node, "insertChild")) allowReorder(node);
    }
    if (!("cornerRadius" in node) && ["RECTANGLE", "FRAME", "COMPONENT", "INSTANCE"].includes(node.type)) node.cornerRadius = 0;
    if (typeof node.setBoundVariable !== "function") {
      // Scalar fields (width, itemSpacing, padding, radius, fontSize…) bound to a variable, as the editor keeps them.
      node.setBoundVariable = function (field, variable) {
        const bound = Object.assign({}, this.boundVariables || {});
        if (variable === null) delete bound[field];
        else bound[field] = { type: "VARIABLE_ALIAS", id: variable.id };
        this.boundVariables = bound;
      };
    }
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
        // In page coordinates, as the editor gives it: x and y are relative to the parent.
        let x = this.x;
        let y = this.y;
        for (let p = this.parent; p && p.type !== "PAGE" && p.type !== "DOCUMENT"; p = p.parent) {
          x += p.x || 0;
          y += p.y || 0;
        }
        return { x: x, y: y, width: this.width, height: this.height };
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
      decorateTextRanges(node);
      if (node.fontSize === undefined) node.fontSize = 12;
      if (node.textStyleId === undefined) node.textStyleId = "";
    }
    const originalRemove = node.remove;
    node.remove = function () {
      // Inside an instance only a slot's content may be removed (the stub refuses all of it).
      if (inSlotContent(this)) {
        this.parent.children = this.parent.children.filter((c) => c !== this);
      } else {
        originalRemove.call(this);
      }
      this.removed = true;
    };
    return node;
  }

  function inSlotContent(node) {
    for (let cur = node.parent; cur; cur = cur.parent) {
      if (cur.type === "SLOT") return true;
      if (cur.type === "INSTANCE") return false;
    }
    return false;
  }

  // Annotations are checked like the editor checks them: a known category, label or markdown (not both).
  function defineAnnotations(node) {
    if (!Array.isArray(node._annotations)) node._annotations = [];
    Object.defineProperty(node, "annotations", {
      configurable: true,
      get() {
        return this._annotations.map((a) => Object.assign({}, a));
      },
      set(list) {
        list.forEach((a) => {
          if (a.label !== undefined && a.labelMarkdown !== undefined) throw new Error("in set_annotations: Cannot set both label and labelMarkdown");
          if (a.categoryId !== undefined && !annotationCategories.some((c) => c.id === a.categoryId)) throw new Error("in set_annotations: Invalid category id");
        });
        this._annotations = list.map((a) => Object.assign({}, a));
      },
    });
  }

  // The component that holds the definitions a sublayer refers to: its component, or that component's set.
  function definitionsOwnerOf(node) {
    let cur = node.parent;
    while (cur && cur.type !== "COMPONENT" && cur.type !== "INSTANCE") cur = cur.parent;
    if (!cur || cur.type !== "COMPONENT") return null;
    return cur.parent && cur.parent.type === "COMPONENT_SET" ? cur.parent : cur;
  }

  // A slot property binds a frame placed directly in a component; the editor refuses other nodes.
  function defineReferences(node) {
    if (node._componentPropertyReferences === undefined) node._componentPropertyReferences = null;
    Object.defineProperty(node, "componentPropertyReferences", {
      configurable: true,
      get() {
        return this._componentPropertyReferences ? Object.assign({}, this._componentPropertyReferences) : null;
      },
      set(refs) {
        if (refs && refs.slotContentId !== undefined) {
          if (this.type !== "FRAME") throw new Error("cannotApplySlotPropertyToNonFrameNode");
          if (this.layoutMode === "GRID") throw new Error("cannotApplySlotPropertyToFrameWithGrid");
          const owner = definitionsOwnerOf(this);
          const def = owner && owner.componentPropertyDefinitions[refs.slotContentId];
          if (!def || def.type !== "SLOT" || !this.parent || this.parent.type !== "COMPONENT") throw new Error("cannotApplySlotPropertyToFrame");
        }
        this._componentPropertyReferences = refs ? Object.assign({}, refs) : null;
      },
    });
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
      fault(name);
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

  // An SVG becomes a frame of its size holding one vector per drawing element, as the editor imports it.
  figma.createNodeFromSvg = (svg) => {
    const open = /^\s*<svg\b([^>]*)>/.exec(String(svg));
    if (!open || !/<\/svg>\s*$/.test(String(svg))) throw new Error("in createNodeFromSvg: Failed to parse SVG");
    const size = (name) => parseFloat((new RegExp("\\b" + name + '="([\\d.]+)').exec(open[1]) || [])[1]) || 100;
    const frame = figma.createFrame();
    frame.name = "svg";
    frame.resize(size("width"), size("height"));
    const shapes = String(svg).match(/<(path|circle|rect|line|polyline|polygon|ellipse)\b/g) || [];
    shapes.forEach(() => frame.appendChild(figma.createVector()));
    return frame;
  };

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
    fault("createSticky");
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
    /** A removed slide leaves the grid. */
    const leaveGridOnRemove = (slide, remove) => {
      slide.remove = function () {
        remove.call(this);
        grid = grid.map((rowNodes) => rowNodes.filter((s) => s !== slide)).filter((rowNodes) => rowNodes.length);
      };
    };
    figma.createSlide = (row, col) => {
      const n = decorate(figma.createFrame(), { width: 1920, height: 1080 });
      const baseRemove = n.remove;
      n.type = "SLIDE";
      n.isSkippedSlide = false;
      let transition = { style: "NONE", duration: 0, curve: "EASE_IN_AND_OUT", timing: { type: "ON_CLICK" } };
      n.getSlideTransition = () => Object.assign({}, transition);
      n.setSlideTransition = (t) => (transition = Object.assign({}, t));
      const r = row === undefined ? grid.length : row;
      while (grid.length <= r) grid.push([]);
      grid[r].splice(col === undefined ? grid[r].length : col, 0, n);
      leaveGridOnRemove(n, baseRemove);
      const originalClone = n.clone;
      n.clone = function () {
        const copy = originalClone.call(this);
        copy.type = "SLIDE";
        copy.getSlideTransition = n.getSlideTransition;
        copy.setSlideTransition = n.setSlideTransition;
        // The copy leaves the grid itself when removed, not the slide it was cloned from.
        leaveGridOnRemove(copy, baseRemove);
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
    node.remote = false;
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
      if (opts && opts.preferredValues && !["INSTANCE_SWAP", "SLOT"].includes(type)) throw new Error("in addComponentProperty: preferredValues are only supported for INSTANCE_SWAP and SLOT properties");
      if (opts && opts.description !== undefined && type !== "SLOT") throw new Error("in addComponentProperty: description is only supported for SLOT properties");
      const full = type === "VARIANT" ? name : name + "#" + propCounter++ + ":0";
      const def = { type: type, defaultValue: defaultValue };
      if (type === "SLOT") Object.assign(def, { description: (opts && opts.description) || "", slotSettings: {}, preferredValues: [] });
      if (opts && opts.preferredValues) def.preferredValues = opts.preferredValues.map((v) => Object.assign({}, v));
      defs[full] = def;
      return full;
    };
    node.editComponentProperty = (name, value) => {
      if (!defs[name]) throw new Error("Property " + name + " not found");
      const def = defs[name];
      delete defs[name];
      const base = value.name || name.split("#")[0];
      const full = name.includes("#") ? base + "#" + name.split("#")[1] : base;
      defs[full] = Object.assign(def, value.defaultValue !== undefined ? { defaultValue: value.defaultValue } : {});
      if (value.description !== undefined) def.description = value.description;
      if (value.preferredValues !== undefined) def.preferredValues = value.preferredValues;
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
      // Text layers bound to a TEXT property take its value (their font must be loaded); BOOLEAN ones show or hide.
      inst.setProperties = (props) => {
        const defs = defsOwner.componentPropertyDefinitions;
        Object.keys(props).forEach((k) => {
          if (!defs[k]) throw new Error("Could not find a component property with name: '" + k + "'");
          if (defs[k].type === "SLOT") throw new Error("cannotSetSlotProperty");
        });
        Object.keys(props).forEach((k) => {
          inst.findAll((n) => n._componentPropertyReferences && n._componentPropertyReferences.characters === k).forEach((t) => (t.characters = String(props[k])));
          inst.findAll((n) => n._componentPropertyReferences && n._componentPropertyReferences.visible === k).forEach((n) => (n.visible = !!props[k]));
          values[k] = props[k];
        });
      };
      inst.getMainComponentAsync = async () => main;
      return inst;
    };
    // A new slot comes with its SLOT property, which follows the slot's name.
    node.createSlot = function () {
      const slot = decorate(figma.createFrame());
      slot.type = "SLOT";
      slot.limitViolations = [];
      const owner = this.parent && this.parent.type === "COMPONENT_SET" ? this.parent : this;
      let property = owner.addComponentProperty("Slot", "SLOT", "");
      slot._componentPropertyReferences = { slotContentId: property };
      let slotName = "Slot";
      Object.defineProperty(slot, "name", {
        configurable: true,
        enumerable: true,
        get: () => slotName,
        set(value) {
          slotName = value;
          if (owner.componentPropertyDefinitions[property]) property = owner.editComponentProperty(property, { name: value });
          slot._componentPropertyReferences = { slotContentId: property };
        },
      });
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
  // Images made in the file are found again by their hash, as the editor keeps them.
  const imagesByHash = new Map();
  const stubCreateImage = figma.createImage.bind(figma);
  figma.createImage = (bytes) => {
    const image = stubCreateImage(bytes);
    imagesByHash.set(image.hash, image);
    return image;
  };
  figma.getImageByHash = (hash) => imagesByHash.get(hash) || null;
  figma.base64Encode = toBase64;
  figma.base64Decode = fromBase64;
  const styles = new Map();
  figma.getStyleByIdAsync = async (id) => styles.get(id) || null;
  figma.getLocalTextStylesAsync = async () => [...styles.values()].filter((s) => s.type === "TEXT");
  figma.getLocalPaintStylesAsync = async () => [...styles.values()].filter((s) => s.type === "PAINT");
  figma.annotations = {
    getAnnotationCategoriesAsync: async () => annotationCategories.map((c) => Object.assign({}, c)),
  };
  figma.ui.onmessage = undefined;

  // ---- variables: modes, typed values, aliases and their checks, library (remote) items, plan mode limit --------
  const VARIABLE_TYPES = ["COLOR", "FLOAT", "STRING", "BOOLEAN"];
  // What a new variable holds in every mode until a value is set.
  const DEFAULT_VALUES = { COLOR: { r: 0, g: 0, b: 0, a: 1 }, FLOAT: 0, STRING: "", BOOLEAN: false };
  const variables = new Map();
  const collections = new Map();
  const internals = new Map();
  let varCounter = 1;
  let modeCounter = 1;
  let modeLimit = 4;
  const copy = (value) => (value && typeof value === "object" ? Object.assign({}, value) : value);

  function isAlias(value) {
    return !!value && typeof value === "object" && value.type === "VARIABLE_ALIAS";
  }

  // Whether aliasing `variable` in `modeId` to `target` closes a loop: same-collection aliases resolve in the same
  // mode, aliases into another collection in any of its modes.
  function closesLoop(variable, modeId, target) {
    const seen = new Set();
    const walk = (v, modes) => {
      if (v.id === variable.id) return true;
      for (const m of modes) {
        const key = v.id + "/" + m;
        if (seen.has(key)) continue;
        seen.add(key);
        const value = internals.get(v.id).values[m];
        if (!isAlias(value)) continue;
        const next = variables.get(value.id);
        if (!next) continue;
        const sameCollection = next.variableCollectionId === v.variableCollectionId;
        if (walk(next, sameCollection ? [m] : collections.get(next.variableCollectionId).modes.map((x) => x.modeId))) return true;
      }
      return false;
    };
    const same = target.variableCollectionId === variable.variableCollectionId;
    return walk(target, same ? [modeId] : collections.get(target.variableCollectionId).modes.map((x) => x.modeId));
  }

  function checkValue(variable, modeId, value) {
    const type = variable.resolvedType;
    if (isAlias(value)) {
      const target = variables.get(value.id);
      if (!target) throw new Error("in setValueForMode: Could not find variable with id " + value.id);
      if (target.resolvedType !== type) throw new Error("in setValueForMode: Cannot alias a " + type + " variable to a " + target.resolvedType + " variable");
      if (closesLoop(variable, modeId, target)) throw new Error("in setValueForMode: Alias would create a cycle");
      return { type: "VARIABLE_ALIAS", id: value.id };
    }
    const unit = (c) => typeof c === "number" && c >= 0 && c <= 1;
    const ok =
      type === "COLOR"
        ? !!value && typeof value === "object" && unit(value.r) && unit(value.g) && unit(value.b) && (value.a === undefined || unit(value.a))
        : type === "FLOAT"
          ? typeof value === "number" && isFinite(value)
          : type === "STRING"
            ? typeof value === "string"
            : typeof value === "boolean";
    if (!ok) throw new Error("in setValueForMode: Expected a value of type " + type + ", got " + JSON.stringify(value));
    return type === "COLOR" ? { r: value.r, g: value.g, b: value.b, a: value.a === undefined ? 1 : value.a } : value;
  }

  // Variable ids by collection and name, so the name check costs the same in a collection of 5,000 as of 5, as in
  // the editor; a scan here made the stand-in, not the plugin, the slow part of big imports.
  const variableNames = new Map();
  const nameKey = (collectionId, name) => collectionId + "\u0000" + name;

  function checkVariableName(name, collectionId, exceptId) {
    if (typeof name !== "string" || !name.trim()) throw new Error("in createVariable: Variable name cannot be empty");
    const taken = variableNames.get(nameKey(collectionId, name));
    if (taken !== undefined && taken !== exceptId) {
      throw new Error("in createVariable: A variable named \"" + name + "\" already exists in this collection");
    }
  }

  function newCollection(name, remote) {
    const id = "VariableCollectionId:" + varCounter++ + ":0";
    let collectionName = name;
    const modes = [{ modeId: modeCounter++ + ":0", name: "Mode 1" }];
    const ownVariables = () => [...variables.values()].filter((v) => v.variableCollectionId === id);
    const local = (what) => {
      if (remote) throw new Error("in " + what + ": Cannot edit a remote variable collection");
    };
    const c = {
      id: id,
      key: "ck" + id,
      remote: remote,
      isExtension: false,
      hiddenFromPublishing: false,
      get name() {
        return collectionName;
      },
      set name(value) {
        local("name");
        collectionName = value;
      },
      get modes() {
        return modes.map((m) => Object.assign({}, m));
      },
      get defaultModeId() {
        return modes[0].modeId;
      },
      get variableIds() {
        return ownVariables().map((v) => v.id);
      },
      addMode(modeName) {
        local("addMode");
        fault("addMode");
        if (modes.length >= modeLimit) throw new Error("in addMode: Limited to " + modeLimit + " modes only");
        const modeId = modeCounter++ + ":0";
        // A new mode starts with the default mode's values.
        ownVariables().forEach((v) => {
          const values = internals.get(v.id).values;
          values[modeId] = copy(values[modes[0].modeId]);
        });
        modes.push({ modeId: modeId, name: modeName });
        return modeId;
      },
      removeMode(modeId) {
        local("removeMode");
        const i = modes.findIndex((m) => m.modeId === modeId);
        if (i < 0) throw new Error("in removeMode: Mode not found");
        if (modes.length === 1) throw new Error("in removeMode: Cannot remove the last mode of a collection");
        modes.splice(i, 1);
        ownVariables().forEach((v) => delete internals.get(v.id).values[modeId]);
      },
      renameMode(modeId, newName) {
        local("renameMode");
        const mode = modes.find((m) => m.modeId === modeId);
        if (!mode) throw new Error("in renameMode: Mode not found");
        mode.name = newName;
      },
      remove() {
        local("remove");
        ownVariables().forEach((v) => v.remove());
        collections.delete(id);
      },
    };
    collections.set(id, c);
    return c;
  }

  function newVariable(name, collection, resolvedType) {
    const id = "VariableID:" + varCounter++ + ":1";
    let variableName = name;
    let description = "";
    let scopes = ["ALL_SCOPES"];
    const values = {};
    collection.modes.forEach((m) => (values[m.modeId] = copy(DEFAULT_VALUES[resolvedType])));
    const local = (what) => {
      if (v.remote) throw new Error("in " + what + ": Cannot edit a remote variable");
    };
    const v = {
      id: id,
      key: "vk" + id,
      remote: collection.remote,
      hiddenFromPublishing: false,
      resolvedType: resolvedType,
      variableCollectionId: collection.id,
      codeSyntax: {},
      get name() {
        return variableName;
      },
      set name(value) {
        local("name");
        checkVariableName(value, collection.id, id);
        variableNames.delete(nameKey(collection.id, variableName));
        variableName = value;
        variableNames.set(nameKey(collection.id, variableName), id);
      },
      get description() {
        return description;
      },
      set description(value) {
        local("description");
        description = value;
      },
      get scopes() {
        return scopes.slice();
      },
      set scopes(value) {
        local("scopes");
        if (!Array.isArray(value) || value.some((x) => typeof x !== "string")) throw new Error("in scopes: Expected an array of scopes");
        scopes = value.slice();
      },
      get valuesByMode() {
        const out = {};
        Object.keys(values).forEach((m) => (out[m] = copy(values[m])));
        return out;
      },
      setValueForMode(modeId, value) {
        fault("setValueForMode");
        local("setValueForMode");
        if (!collections.get(this.variableCollectionId).modes.some((m) => m.modeId === modeId)) throw new Error("in setValueForMode: Invalid mode id " + modeId);
        values[modeId] = checkValue(this, modeId, value);
      },
      remove() {
        variables.delete(id);
        if (variableNames.get(nameKey(collection.id, variableName)) === id) variableNames.delete(nameKey(collection.id, variableName));
        internals.delete(id);
      },
    };
    variables.set(id, v);
    variableNames.set(nameKey(collection.id, variableName), id);
    internals.set(id, { values: values });
    return v;
  }

  figma.variables = {
    getLocalVariablesAsync: async (type) => [...variables.values()].filter((v) => !v.remote && (!type || v.resolvedType === type)),
    getLocalVariableCollectionsAsync: async () => [...collections.values()].filter((c) => !c.remote),
    getVariableByIdAsync: async (id) => variables.get(id) || null,
    getVariableCollectionByIdAsync: async (id) => collections.get(id) || null,
    createVariableCollection(name) {
      fault("createVariableCollection");
      if (typeof name !== "string" || !name.trim()) throw new Error("in createVariableCollection: Collection name cannot be empty");
      return newCollection(name, false);
    },
    createVariable(name, collection, resolvedType) {
      fault("createVariable");
      if (typeof collection === "string") throw new Error("Passing a collection id is not supported under dynamic-page");
      const c = collection && collections.get(collection.id);
      if (!c) throw new Error("in createVariable: Collection not found");
      if (c.remote) throw new Error("in createVariable: Cannot add variables to a remote collection");
      if (!VARIABLE_TYPES.includes(resolvedType)) throw new Error("in createVariable: Invalid resolved type " + resolvedType);
      checkVariableName(name, c.id, null);
      return newVariable(name, c, resolvedType);
    },
    createVariableAlias: (variable) => {
      if (!variable || !variables.has(variable.id)) throw new Error("in createVariableAlias: Variable not found");
      return { type: "VARIABLE_ALIAS", id: variable.id };
    },
    setBoundVariableForPaint: (paint, field, variable) =>
      Object.assign({}, paint, { boundVariables: { [field]: { type: "VARIABLE_ALIAS", id: variable.id } } }),
  };

  // ---- test controls ---------------------------------------------------------------------------------------
  const control = {
    decorate,
    /** How many undo steps the plugin has committed so far. */
    get undoCommits() {
      return undoCommits;
    },
    /** The n-th call (from now, 1-based) of `api` throws: createVariable, setValueForMode, addMode, createVariableCollection, createSticky, or a node factory (createFrame, createText…). */
    failOn(api, n, message) {
      faults.set(api, { left: n, message: message || "Simulated failure of " + api });
    },
    /** The file's plan allows this many modes per collection (the stand-in starts at 4). */
    setModeLimit(n) {
      modeLimit = n;
    },
    /**
     * A library collection as a file sees it after importing: remote, readable, not editable, not listed as local.
     * @param {string} name @param {Array<{name: string, resolvedType: string, value: any}>} items
     */
    addLibraryCollection(name, items) {
      const c = newCollection(name, true);
      const made = items.map((item) => {
        const v = newVariable(item.name, c, item.resolvedType);
        internals.get(v.id).values[c.defaultModeId] = checkValue(v, c.defaultModeId, item.value);
        return v;
      });
      return { collection: c, variables: made };
    },
    /** Marks a component or set as coming from a library. */
    makeRemote(node) {
      node.remote = true;
    },
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
    /** Installs a font family in these styles (["Regular", "Bold"…]) on the machine the editor runs on. */
    installFont(family, styles) {
      styles.forEach((style) => extraFonts.push({ fontName: { family: family, style: style } }));
    },
  };
  return { figma, control };
}
