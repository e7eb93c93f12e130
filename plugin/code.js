// Design Desktop Bridge: plugin sandbox code. Generated from plugin/src/code by plugin/build.mjs; do not edit.
"use strict";
(() => {
  // plugin/src/code/serialize.js
  var LIMITS = { depth: 6, stringLength: 1e4, arrayItems: 200, objectKeys: 200 };
  function toPlain(value, limits) {
    const caps = Object.assign({}, LIMITS, limits || {});
    return walk(value, caps, 0, []);
  }
  function walk(value, caps, depth, stack) {
    if (value === null || value === void 0) return null;
    const kind = typeof value;
    if (kind === "string") return capString(
      /** @type {string} */
      value,
      caps.stringLength
    );
    if (kind === "number") return isFinite(
      /** @type {number} */
      value
    ) ? value : String(value);
    if (kind === "boolean") return value;
    if (kind === "bigint") return String(value) + "n";
    if (kind === "symbol") return String(value);
    if (kind === "function") return "[Function " + /** @type {Function} */
    (value.name || "anonymous") + "]";
    const obj = (
      /** @type {any} */
      value
    );
    if (stack.indexOf(obj) >= 0) return "[Circular]";
    if (obj instanceof Error || typeof obj.message === "string" && typeof obj.stack === "string") {
      return { name: obj.name, message: capString(String(obj.message), caps.stringLength), stack: capString(String(obj.stack || ""), 2e3) };
    }
    if (isNodeLike(obj)) return nodeSummary(obj);
    if (obj instanceof Uint8Array) return { type: "Uint8Array", byteLength: obj.byteLength };
    if (obj instanceof Date) return isNaN(obj.getTime()) ? "Invalid Date" : obj.toISOString();
    if (depth >= caps.depth) return Array.isArray(obj) ? "[Array(" + obj.length + ")]" : "[Object]";
    stack.push(obj);
    try {
      if (Array.isArray(obj) || obj instanceof Set) {
        const items = Array.isArray(obj) ? obj : Array.from(obj);
        const out2 = [];
        const n2 = Math.min(items.length, caps.arrayItems);
        for (let i = 0; i < n2; i++) out2.push(walk(items[i], caps, depth + 1, stack));
        if (items.length > n2) out2.push("… " + (items.length - n2) + " more items");
        return out2;
      }
      if (obj instanceof Map) {
        const out2 = {};
        let count = 0;
        obj.forEach((v, k) => {
          if (count++ < caps.objectKeys) out2[String(k)] = walk(v, caps, depth + 1, stack);
        });
        if (count > caps.objectKeys) out2["…"] = count - caps.objectKeys + " more entries";
        return out2;
      }
      const out = {};
      const keys = Object.keys(obj);
      const n = Math.min(keys.length, caps.objectKeys);
      for (let i = 0; i < n; i++) {
        let item;
        try {
          item = obj[keys[i]];
        } catch (err) {
          item = "[Unreadable: " + (err instanceof Error ? err.message : String(err)) + "]";
        }
        out[keys[i]] = walk(item, caps, depth + 1, stack);
      }
      if (keys.length > n) out["…"] = keys.length - n + " more keys";
      return out;
    } finally {
      stack.pop();
    }
  }
  function capString(text, max) {
    if (text.length <= max) return text;
    return text.slice(0, max) + "… [" + (text.length - max) + " more characters]";
  }
  function isNodeLike(obj) {
    return typeof obj.id === "string" && typeof obj.type === "string" && "parent" in obj;
  }
  function nodeSummary(node) {
    if (node.removed) return { id: node.id, type: node.type, removed: true };
    return { id: node.id, type: node.type, name: node.name };
  }
  function formatMessage(args, max) {
    const parts = [];
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      if (typeof arg === "string") {
        parts.push(arg);
      } else if (arg === void 0) {
        parts.push("undefined");
      } else {
        let text;
        try {
          text = JSON.stringify(toPlain(arg, { depth: 4, stringLength: 2e3, arrayItems: 50, objectKeys: 50 }));
        } catch (err) {
          text = String(arg);
        }
        parts.push(text === void 0 ? String(arg) : text);
      }
    }
    return capString(parts.join(" "), max);
  }

  // plugin/src/code/console-capture.js
  var LEVELS = (
    /** @type {const} */
    ["log", "info", "warn", "error", "debug"]
  );
  var MAX_PER_SECOND = 200;
  var MAX_MESSAGE = 1e4;
  var MAX_ARGS = 20;
  function installConsoleCapture(emit2, now) {
    const clock = now || Date.now;
    const original = {};
    let inside = false;
    let windowStart = 0;
    let sent = 0;
    let dropped = 0;
    function capture(level, args) {
      const t = clock();
      if (t - windowStart >= 1e3) {
        if (dropped > 0) {
          emit2({
            type: "CONSOLE_CAPTURE",
            data: {
              level: "warn",
              message: dropped + " console messages were dropped: more than " + MAX_PER_SECOND + " a second.",
              args: [],
              timestamp: t,
              source: "design"
            }
          });
        }
        windowStart = t;
        sent = 0;
        dropped = 0;
      }
      if (sent >= MAX_PER_SECOND) {
        dropped++;
        return;
      }
      sent++;
      emit2({
        type: "CONSOLE_CAPTURE",
        data: {
          level,
          message: formatMessage(args, MAX_MESSAGE),
          args: args.slice(0, MAX_ARGS).map((a) => toPlain(a, { depth: 4, stringLength: 2e3, arrayItems: 50, objectKeys: 50 })),
          timestamp: t,
          source: "design"
        }
      });
    }
    LEVELS.forEach((level) => {
      const fn = console[level] || console.log;
      original[level] = fn.bind(console);
      console[level] = function() {
        const args = Array.prototype.slice.call(arguments);
        original[level].apply(null, args);
        if (inside) return;
        inside = true;
        try {
          capture(level, args);
        } catch (err) {
          original.error("[design bridge] console capture failed:", err);
        } finally {
          inside = false;
        }
      };
    });
    return original;
  }

  // plugin/src/code/errors.js
  var PluginError = class extends Error {
    /**
     * @param {string} code
     * @param {string} message
     * @param {Record<string, unknown>} [extra]
     */
    constructor(code, message, extra) {
      super(message);
      this.name = "PluginError";
      this.code = code;
      this.extra = extra || {};
    }
  };
  function badParams(message) {
    return new PluginError("bad_params", message);
  }
  function notFound(message) {
    return new PluginError("not_found", message);
  }
  function unsupported(what, editor) {
    return new PluginError(
      "unsupported",
      what + " is only available in " + editor + " files; this file is a '" + figma.editorType + "' file. Open the plugin in " + editor + " and retry."
    );
  }

  // plugin/src/code/dispatch.js
  var Dispatcher = class {
    /** @param {Record<string, Handler>} handlers */
    constructor(handlers2) {
      this.handlers = handlers2;
      this.inFlight = /* @__PURE__ */ new Map();
    }
    /**
     * @param {any} message the command exactly as designd sent it
     * @param {string} route the socket it came from
     * @returns {Promise<Record<string, any> | null>} the reply, or null when the message carried no id
     */
    async run(message, route) {
      if (!message || typeof message !== "object" || typeof message.id !== "string" || !message.id) return null;
      const id = message.id;
      const method = message.method;
      if (typeof method !== "string") {
        return { id, error: "Command has no 'method' string.", code: "bad_request" };
      }
      const params = message.params && typeof message.params === "object" ? message.params : {};
      if (method === "CANCEL") return this.cancel(id, params, route);
      const handler = Object.prototype.hasOwnProperty.call(this.handlers, method) ? this.handlers[method] : void 0;
      if (!handler) return { id, error: "Unknown method: " + method, code: "unknown_method" };
      const key = route + "\0" + id;
      const cancelHooks = [];
      const ctx = { id, route, cancelled: false, onCancel: (fn) => cancelHooks.push(fn) };
      let abandon = () => void 0;
      const abandoned = new Promise((_, reject) => {
        abandon = reject;
      });
      this.inFlight.set(key, { ctx, cancelHooks, abandon });
      try {
        const result = await Promise.race([handler(params, ctx), abandoned]);
        if (result && result.success === false) {
          return { id, error: String(result.error || method + " failed"), code: result.code || "failed" };
        }
        return { id, result };
      } catch (err) {
        return errorReply(id, method, err);
      } finally {
        this.inFlight.delete(key);
      }
    }
    /** @param {string} id @param {any} params @param {string} route */
    cancel(id, params, route) {
      const target = params.target;
      if (typeof target !== "string" || !target) {
        return { id, error: "CANCEL needs params.target: the id of the command to abandon.", code: "bad_params" };
      }
      const entry = this.inFlight.get(route + "\0" + target);
      if (!entry) return { id, result: { success: true, cancelled: false, target } };
      entry.ctx.cancelled = true;
      entry.cancelHooks.forEach((fn) => fn());
      entry.abandon(new PluginError("cancelled", "Command " + target + " was cancelled by the server."));
      return { id, result: { success: true, cancelled: true, target } };
    }
  };
  function errorReply(id, method, err) {
    if (err instanceof PluginError) {
      return Object.assign({}, err.extra, { id, error: err.message, code: err.code });
    }
    const e = (
      /** @type {any} */
      err
    );
    const text = e && typeof e.message === "string" ? e.message : String(err);
    return { id, error: method + " failed: " + text, code: "plugin_api_error" };
  }

  // plugin/src/code/version.js
  var PLUGIN_VERSION = "0.1.0";

  // plugin/src/code/file-info.js
  function fileInfo() {
    const key = figma.fileKey;
    return {
      fileName: figma.root.name,
      fileKey: typeof key === "string" && key ? key : "local:" + figma.root.name,
      currentPage: figma.currentPage.name,
      currentPageId: figma.currentPage.id,
      selectionCount: figma.currentPage.selection.length,
      pluginVersion: PLUGIN_VERSION,
      editorType: figma.editorType
    };
  }

  // plugin/src/code/events.js
  var MAX_SELECTION_NODES = 50;
  var MAX_CHANGED_IDS = 50;
  var DOCUMENT_FLUSH_MS = 150;
  var METADATA_FIELDS = ["name", "description", "descriptionMarkdown", "annotations", "componentPropertyDefinitions"];
  function selectionEvent(emit2) {
    const selection = figma.currentPage.selection;
    emit2({
      type: "SELECTION_CHANGE",
      data: {
        nodes: selection.slice(0, MAX_SELECTION_NODES).map((n) => ({
          id: n.id,
          name: n.name,
          type: n.type,
          width: "width" in n ? n.width : void 0,
          height: "height" in n ? n.height : void 0
        })),
        count: selection.length,
        page: figma.currentPage.name,
        pageId: figma.currentPage.id,
        timestamp: Date.now()
      }
    });
  }
  function watchDocument(emit2, diag2) {
    figma.on("selectionchange", () => selectionEvent(emit2));
    figma.on("currentpagechange", () => {
      emit2({ type: "PAGE_CHANGE", data: { pageId: figma.currentPage.id, pageName: figma.currentPage.name, timestamp: Date.now() } });
      emit2({ type: "FILE_INFO", data: fileInfo() });
    });
    let pending = null;
    function flush() {
      const batch = pending;
      pending = null;
      if (!batch) return;
      emit2({
        type: "DOCUMENT_CHANGE",
        data: {
          hasStyleChanges: batch.style,
          hasNodeChanges: batch.node,
          changedNodeIds: batch.nodeIds,
          changeCount: batch.count,
          timestamp: Date.now()
        }
      });
      if (batch.meta.length) emit2({ type: "METADATA_CHANGE", data: { changes: batch.meta } });
    }
    function collect2(changes) {
      if (!pending) {
        pending = { nodeIds: [], seen: {}, count: 0, style: false, node: false, meta: [] };
        setTimeout(flush, DOCUMENT_FLUSH_MS);
      }
      const batch = pending;
      changes.forEach((change) => {
        batch.count++;
        if (String(change.type).indexOf("STYLE_") === 0) {
          batch.style = true;
          return;
        }
        batch.node = true;
        const id = change.id || change.node && change.node.id;
        if (id && !batch.seen[id] && batch.nodeIds.length < MAX_CHANGED_IDS) {
          batch.seen[id] = true;
          batch.nodeIds.push(id);
        }
        if (change.type === "PROPERTY_CHANGE" && change.node && !change.node.removed) {
          (change.properties || []).forEach((field) => {
            if (METADATA_FIELDS.indexOf(field) < 0 || batch.meta.length >= MAX_CHANGED_IDS) return;
            const node = change.node;
            const value = field in node ? node[field] : void 0;
            batch.meta.push({
              node_id: node.id,
              node_name: node.name,
              node_type: node.type,
              field,
              new_value: typeof value === "string" ? value : JSON.stringify(value === void 0 ? null : value),
              timestamp: Date.now()
            });
          });
        }
      });
    }
    figma.loadAllPagesAsync().then(() => figma.on("documentchange", (event) => collect2(event.documentChanges))).catch((err) => {
      diag2("[design bridge] whole-document change events unavailable, watching the current page only:", err);
      figma.currentPage.on("nodechange", (event) => collect2(event.nodeChanges));
    });
  }

  // plugin/src/shared/contract.js
  var EXECUTE_DEFAULT_MS = 5e3;
  var EXECUTE_MAX_MS = 3e4;
  var MAX_CODE_CHARS = 2e5;

  // plugin/src/code/methods/execute.js
  var AsyncFunction = Object.getPrototypeOf(async function() {
  }).constructor;
  var headerLines = null;
  function measureHeader() {
    if (headerLines !== null) return headerLines;
    headerLines = 0;
    try {
      new Function("throw new Error('probe')")();
    } catch (err) {
      const pos = stackPosition(
        /** @type {any} */
        err.stack
      );
      if (pos) headerLines = pos.line - 1;
    }
    return headerLines;
  }
  function stackPosition(stack) {
    if (typeof stack !== "string") return null;
    const m = /<anonymous>:(\d+):(\d+)/.exec(stack) || /eval[^\n]*?:(\d+):(\d+)/.exec(stack);
    return m ? { line: parseInt(m[1], 10), column: parseInt(m[2], 10) } : null;
  }
  async function executeCode(params, ctx) {
    const code = params.code;
    if (typeof code !== "string") throw badParams("Parameter 'code' is required and must be a string of JavaScript.");
    const chars = code.length > MAX_CODE_CHARS ? codePoints(code) : code.length;
    if (chars > MAX_CODE_CHARS) {
      throw badParams("Code is " + chars + " characters; the limit is " + MAX_CODE_CHARS + ". Split it into smaller calls.");
    }
    const given = params.timeout === void 0 || params.timeout === null ? EXECUTE_DEFAULT_MS : params.timeout;
    if (typeof given !== "number" || !isFinite(given) || given <= 0) {
      throw badParams("Parameter 'timeout' must be a positive number of milliseconds (at most " + EXECUTE_MAX_MS + ").");
    }
    const timeout = Math.min(given, EXECUTE_MAX_MS);
    const header = measureHeader();
    let fn;
    try {
      fn = new AsyncFunction("figma", code);
    } catch (err) {
      const e = (
        /** @type {any} */
        err
      );
      throw new PluginError("syntax_error", "The code does not parse: " + e.name + ": " + e.message + ". Fix the syntax and retry.");
    }
    const started = Date.now();
    let timer = 0;
    const limit = new Promise((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new PluginError(
            "timeout",
            "The code did not finish within " + timeout + " ms and was abandoned (changes it already made stay). Raise 'timeout' (at most " + EXECUTE_MAX_MS + " ms) or split the work into smaller calls."
          )
        );
      }, timeout);
    });
    ctx.onCancel(() => clearTimeout(timer));
    try {
      const value = await Promise.race([fn.call(void 0, figma), limit]);
      return { success: true, result: toPlain(value), durationMs: Date.now() - started };
    } catch (err) {
      if (err instanceof PluginError) throw err;
      throw runtimeError(err, header);
    } finally {
      clearTimeout(timer);
    }
  }
  function codePoints(text) {
    let count = text.length;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit >= 56320 && unit <= 57343 && i > 0) {
        const before = text.charCodeAt(i - 1);
        if (before >= 55296 && before <= 56319) count--;
      }
    }
    return count;
  }
  function runtimeError(err, header) {
    const e = (
      /** @type {any} */
      err
    );
    const isError = e && typeof e === "object" && typeof e.message === "string";
    const name = isError ? e.name || "Error" : "Thrown value";
    const text = isError ? e.message : JSON.stringify(toPlain(err));
    const pos = isError ? stackPosition(e.stack) : null;
    const extra = {};
    let where = "";
    if (pos && pos.line - header >= 1) {
      extra.line = pos.line - header;
      extra.column = pos.column;
      where = " (line " + extra.line + ", column " + pos.column + ")";
    }
    return new PluginError("execution_error", "The code threw " + name + ": " + text + where + ".", extra);
  }

  // plugin/src/code/methods/file.js
  async function getFileInfo() {
    return Object.assign({ success: true }, fileInfo());
  }

  // plugin/src/code/colors.js
  function parseHex(value, what) {
    const label = what || "color";
    if (typeof value !== "string") throw badParams("'" + label + `' must be a hex colour string such as "#1E88E5".`);
    let hex = value.trim().replace(/^#/, "");
    if (!/^[0-9a-fA-F]+$/.test(hex) || [3, 4, 6, 8].indexOf(hex.length) < 0) {
      throw badParams(
        "'" + label + "' is not a hex colour: " + JSON.stringify(value) + ". Use #RGB, #RGBA, #RRGGBB or #RRGGBBAA."
      );
    }
    if (hex.length <= 4) {
      hex = hex.split("").map((c) => c + c).join("");
    }
    const channel = (i) => parseInt(hex.slice(i, i + 2), 16) / 255;
    return { r: channel(0), g: channel(2), b: channel(4), a: hex.length === 8 ? channel(6) : 1 };
  }
  function parseColor(value, what) {
    if (typeof value === "string") return parseHex(value, what);
    const v = (
      /** @type {any} */
      value
    );
    if (v && typeof v === "object" && [v.r, v.g, v.b].every((c) => typeof c === "number" && c >= 0 && c <= 1)) {
      return { r: v.r, g: v.g, b: v.b, a: typeof v.a === "number" ? v.a : 1 };
    }
    throw badParams("'" + (what || "color") + `' must be a hex string ("#RRGGBB") or {r,g,b,a} with channels 0..1.`);
  }
  function toHex(c) {
    const part = (x) => ("0" + Math.round(Math.max(0, Math.min(1, x)) * 255).toString(16)).slice(-2);
    const alpha = c.a === void 0 || c.a >= 1 ? "" : part(c.a);
    return ("#" + part(c.r) + part(c.g) + part(c.b) + alpha).toUpperCase();
  }
  function luminance(c) {
    const lin = (x) => x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
    return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
  }
  function contrastRatio(a, b) {
    const la = luminance(a);
    const lb = luminance(b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  }
  function solidPaint(color, opacity, what) {
    const c = parseColor(color, what);
    return { type: "SOLID", color: { r: c.r, g: c.g, b: c.b }, opacity: opacity === void 0 ? c.a : opacity };
  }

  // plugin/src/code/params.js
  function reqString(params, key) {
    const value = params[key];
    if (typeof value !== "string" || value.length === 0) {
      throw badParams("Parameter '" + key + "' is required and must be a non-empty string.");
    }
    return value;
  }
  function optString(params, key, fallback) {
    const value = params[key];
    if (value === void 0 || value === null) return fallback;
    if (typeof value !== "string") throw badParams("Parameter '" + key + "' must be a string.");
    return value;
  }
  function reqNumber(params, key, range) {
    const value = params[key];
    if (typeof value !== "number" || !isFinite(value)) {
      throw badParams("Parameter '" + key + "' is required and must be a finite number.");
    }
    checkRange(key, value, range);
    return value;
  }
  function optNumber(params, key, fallback, range) {
    const value = params[key];
    if (value === void 0 || value === null) return fallback;
    if (typeof value !== "number" || !isFinite(value)) throw badParams("Parameter '" + key + "' must be a finite number.");
    checkRange(key, value, range);
    return value;
  }
  function checkRange(key, value, range) {
    if (!range) return;
    if (range.min !== void 0 && value < range.min) {
      throw badParams("Parameter '" + key + "' must be at least " + range.min + " (got " + value + ").");
    }
    if (range.max !== void 0 && value > range.max) {
      throw badParams("Parameter '" + key + "' must be at most " + range.max + " (got " + value + ").");
    }
  }
  function optBool(params, key, fallback) {
    const value = params[key];
    if (value === void 0 || value === null) return fallback;
    if (typeof value !== "boolean") throw badParams("Parameter '" + key + "' must be true or false.");
    return value;
  }
  function reqArray(params, key) {
    const value = params[key];
    if (!Array.isArray(value)) throw badParams("Parameter '" + key + "' is required and must be an array.");
    return value;
  }
  function reqObject(params, key) {
    const value = params[key];
    if (!isPlainObject(value)) throw badParams("Parameter '" + key + "' is required and must be an object.");
    return value;
  }
  function optObject(params, key) {
    const value = params[key];
    if (value === void 0 || value === null) return void 0;
    if (!isPlainObject(value)) throw badParams("Parameter '" + key + "' must be an object.");
    return value;
  }
  function optEnum(params, key, allowed, fallback) {
    const value = params[key];
    if (value === void 0 || value === null) return fallback;
    if (typeof value !== "string" || allowed.indexOf(
      /** @type {T} */
      value
    ) < 0) {
      throw badParams("Parameter '" + key + "' must be one of " + allowed.join(", ") + " (got " + JSON.stringify(value) + ").");
    }
    return (
      /** @type {T} */
      value
    );
  }
  function isPlainObject(value) {
    return typeof value === "object" && value !== null && !Array.isArray(value);
  }

  // plugin/src/code/methods/variables.js
  var TYPES = (
    /** @type {const} */
    ["COLOR", "FLOAT", "STRING", "BOOLEAN"]
  );
  async function getVariable(id) {
    if (typeof id !== "string" || !id) throw badParams(`Parameter 'variableId' is required: an id such as "VariableID:1:2".`);
    const v = await figma.variables.getVariableByIdAsync(id);
    if (!v) throw notFound("Variable " + id + " does not exist in this file. List variables (design_get_variables) and retry with a current id.");
    return v;
  }
  async function getCollection(id) {
    if (typeof id !== "string" || !id) throw badParams(`Parameter 'collectionId' is required: an id such as "VariableCollectionId:1:0".`);
    const c = await figma.variables.getVariableCollectionByIdAsync(id);
    if (!c) throw notFound("Variable collection " + id + " does not exist in this file. List collections (design_get_variables) and retry.");
    return c;
  }
  function plainValue(value) {
    const v = (
      /** @type {any} */
      value
    );
    if (v && typeof v === "object" && v.type === "VARIABLE_ALIAS") return { type: "VARIABLE_ALIAS", id: v.id };
    if (v && typeof v === "object" && typeof v.r === "number") {
      return { r: v.r, g: v.g, b: v.b, a: typeof v.a === "number" ? v.a : 1, hex: toHex(v) };
    }
    return v;
  }
  function describeVariable(v) {
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
      valuesByMode,
      scopes: v.scopes,
      hiddenFromPublishing: v.hiddenFromPublishing,
      remote: v.remote
    };
  }
  function describeCollection(c) {
    return {
      id: c.id,
      name: c.name,
      key: c.key,
      modes: c.modes.map((m) => ({ modeId: m.modeId, name: m.name })),
      defaultModeId: c.defaultModeId,
      variableIds: c.variableIds.slice(),
      hiddenFromPublishing: c.hiddenFromPublishing,
      remote: c.remote
    };
  }
  async function variablesSnapshot() {
    const variables = await figma.variables.getLocalVariablesAsync();
    const collections = await figma.variables.getLocalVariableCollectionsAsync();
    return {
      success: true,
      timestamp: Date.now(),
      fileKey: figma.fileKey || null,
      variables: variables.map(describeVariable),
      variableCollections: collections.map(describeCollection)
    };
  }
  async function coerceValue(variable, value) {
    return coerceForType(variable.resolvedType, value, variable.name);
  }
  async function coerceForType(type, value, name) {
    if (typeof value === "string" && value.indexOf("VariableID:") === 0) {
      const target = await getVariable(value);
      return figma.variables.createVariableAlias(target);
    }
    const v = (
      /** @type {any} */
      value
    );
    if (v && typeof v === "object" && v.type === "VARIABLE_ALIAS" && typeof v.id === "string") {
      return figma.variables.createVariableAlias(await getVariable(v.id));
    }
    const fail = (expected) => badParams("Value " + JSON.stringify(value) + " does not fit " + type + " variable '" + name + "': expected " + expected + ".");
    if (type === "COLOR") {
      try {
        return parseColor(value, "value");
      } catch (err) {
        throw fail('a hex colour like "#1E88E5" or "#1E88E580", or a "VariableID:…" alias');
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
  async function getVariablesData() {
    return variablesSnapshot();
  }
  async function updateVariable(params) {
    const variable = await getVariable(params.variableId);
    if (!("value" in params)) throw badParams("Parameter 'value' is required.");
    const collection = await getCollection(variable.variableCollectionId);
    const modeId = optString(params, "modeId", collection.defaultModeId) || collection.defaultModeId;
    if (!collection.modes.some((m) => m.modeId === modeId)) {
      throw notFound(
        "Mode " + modeId + " is not a mode of collection '" + collection.name + "'. Its modes: " + collection.modes.map((m) => m.modeId + " (" + m.name + ")").join(", ") + "."
      );
    }
    variable.setValueForMode(modeId, await coerceValue(variable, params.value));
    return { success: true, variable: describeVariable(variable), modeId };
  }
  async function createVariable(params) {
    const name = reqString(params, "name");
    const collection = await getCollection(params.collectionId);
    const type = optEnum(params, "resolvedType", TYPES, void 0);
    if (!type) throw badParams("Parameter 'resolvedType' is required: one of " + TYPES.join(", ") + ".");
    const values = optObject(params, "valuesByMode") || {};
    const variable = figma.variables.createVariable(name, collection, type);
    try {
      const description = optString(params, "description");
      if (description !== void 0) variable.description = description;
      if (params.scopes !== void 0) variable.scopes = reqArray(params, "scopes");
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
  async function deleteVariable(params) {
    const variable = await getVariable(params.variableId);
    const info = { id: variable.id, name: variable.name };
    variable.remove();
    return { success: true, deleted: info };
  }
  async function renameVariable(params) {
    const variable = await getVariable(params.variableId);
    const newName = reqString(params, "newName");
    const oldName = variable.name;
    variable.name = newName;
    return { success: true, oldName, variable: describeVariable(variable) };
  }
  async function setVariableDescription(params) {
    const variable = await getVariable(params.variableId);
    if (typeof params.description !== "string") throw badParams("Parameter 'description' is required and must be a string.");
    variable.description = params.description;
    return { success: true, variable: describeVariable(variable) };
  }
  async function createCollection(params) {
    const name = reqString(params, "name");
    const initial = optString(params, "initialModeName");
    const extra = params.additionalModes === void 0 ? [] : reqArray(params, "additionalModes");
    if (extra.some((m) => typeof m !== "string" || !m)) throw badParams("'additionalModes' must be an array of non-empty strings.");
    const collection = figma.variables.createVariableCollection(name);
    try {
      if (initial) collection.renameMode(collection.defaultModeId, initial);
      extra.forEach((m) => collection.addMode(m));
    } catch (err) {
      collection.remove();
      throw new PluginError(
        "plugin_api_error",
        "Could not add the modes (" + (err instanceof Error ? err.message : String(err)) + "); the collection was not kept. Free plans allow few modes per collection: try fewer modes."
      );
    }
    return { success: true, collection: describeCollection(collection) };
  }
  async function deleteCollection(params) {
    const collection = await getCollection(params.collectionId);
    const info = { id: collection.id, name: collection.name, variableCount: collection.variableIds.length };
    collection.remove();
    return { success: true, deleted: info };
  }
  async function addMode(params) {
    const collection = await getCollection(params.collectionId);
    const modeName = reqString(params, "modeName");
    const modeId = collection.addMode(modeName);
    return { success: true, modeId, collection: describeCollection(collection) };
  }
  async function renameMode(params) {
    const collection = await getCollection(params.collectionId);
    const modeId = reqString(params, "modeId");
    const newName = reqString(params, "newName");
    if (!collection.modes.some((m) => m.modeId === modeId)) {
      throw notFound("Mode " + modeId + " is not in collection '" + collection.name + "'.");
    }
    collection.renameMode(modeId, newName);
    return { success: true, collection: describeCollection(collection) };
  }

  // plugin/src/code/nodes.js
  async function getNode(id, param) {
    const key = param || "nodeId";
    if (typeof id !== "string" || id.length === 0) {
      throw badParams("Parameter '" + key + `' is required: a node id such as "12:34".`);
    }
    const node = await figma.getNodeByIdAsync(id);
    if (!node || node.removed) {
      throw notFound(
        "Node " + id + " was not found in this file (" + figma.root.name + "). Node ids are specific to a file and session and go stale: look the node up again (design_get_selection, or design_execute with figma.currentPage.findAll) and retry with the new id."
      );
    }
    return node;
  }
  async function getSceneNode(id, param) {
    const node = await getNode(id, param);
    if (node.type === "DOCUMENT" || node.type === "PAGE") {
      throw badParams("Node " + node.id + " is a " + node.type + "; this command needs a layer on the canvas.");
    }
    return (
      /** @type {SceneNode} */
      node
    );
  }
  function requireProp(node, prop, action) {
    if (!(prop in node)) {
      throw new PluginError(
        "wrong_node_type",
        "Cannot " + action + " on " + node.type + " node " + node.id + " (" + node.name + "): it has no '" + prop + "'."
      );
    }
    return (
      /** @type {any} */
      node
    );
  }
  function requireType(node, types, action) {
    if (types.indexOf(node.type) < 0) {
      throw new PluginError(
        "wrong_node_type",
        "Cannot " + action + ": node " + node.id + " (" + node.name + ") is a " + node.type + ", expected " + types.join(" or ") + "."
      );
    }
  }
  function summarize(node) {
    const n = (
      /** @type {any} */
      node
    );
    const out = { id: node.id, name: node.name, type: node.type };
    if (typeof n.x === "number") {
      out.x = n.x;
      out.y = n.y;
    }
    if (typeof n.width === "number") {
      out.width = n.width;
      out.height = n.height;
    }
    if (n.visible === false) out.visible = false;
    if (node.parent) out.parentId = node.parent.id;
    return out;
  }
  function describePaints(paints) {
    if (!Array.isArray(paints)) return paints === void 0 ? void 0 : "mixed";
    return paints.map((p) => {
      const out = { type: p.type };
      if (p.type === "SOLID") out.color = toHex(p.color);
      if (p.opacity !== void 0 && p.opacity !== 1) out.opacity = p.opacity;
      if (p.visible === false) out.visible = false;
      const bound = (
        /** @type {any} */
        p.boundVariables
      );
      if (bound && bound.color) out.variableId = bound.color.id;
      return out;
    });
  }
  function describeTree(node, depth, budget) {
    const b = budget || { count: 0, max: 2e3 };
    b.count++;
    const n = (
      /** @type {any} */
      node
    );
    const out = summarize(node);
    if ("fills" in n) out.fills = describePaints(n.fills);
    if ("strokes" in n && n.strokes.length) {
      out.strokes = describePaints(n.strokes);
      out.strokeWeight = n.strokeWeight === figma.mixed ? "mixed" : n.strokeWeight;
    }
    if (typeof n.opacity === "number" && n.opacity !== 1) out.opacity = n.opacity;
    if (typeof n.cornerRadius === "number" && n.cornerRadius) out.cornerRadius = n.cornerRadius;
    if (n.layoutMode && n.layoutMode !== "NONE") {
      out.layout = {
        mode: n.layoutMode,
        itemSpacing: n.itemSpacing,
        padding: [n.paddingTop, n.paddingRight, n.paddingBottom, n.paddingLeft],
        primaryAxisAlignItems: n.primaryAxisAlignItems,
        counterAxisAlignItems: n.counterAxisAlignItems
      };
    }
    if (node.type === "TEXT") {
      out.characters = n.characters;
      out.fontSize = n.fontSize === figma.mixed ? "mixed" : n.fontSize;
      out.fontName = n.fontName === figma.mixed ? "mixed" : n.fontName;
    }
    if (n.boundVariables && Object.keys(n.boundVariables).length) out.boundVariables = boundVariableIds(n.boundVariables);
    if (typeof n.description === "string" && n.description) out.description = n.description;
    if (Array.isArray(n.reactions) && n.reactions.length) out.reactions = n.reactions.length;
    if (n.variantProperties) out.variantProperties = n.variantProperties;
    if (node.type === "INSTANCE" && n.componentProperties) out.componentProperties = n.componentProperties;
    if ("children" in n) {
      if (depth > 0 && b.count < b.max) {
        out.children = n.children.map((c) => describeTree(c, depth - 1, b));
      } else {
        out.childCount = n.children.length;
      }
    }
    return out;
  }
  function boundVariableIds(bound) {
    const out = {};
    Object.keys(bound).forEach((field) => {
      const v = bound[field];
      out[field] = Array.isArray(v) ? v.map((a) => a && a.id) : v && v.id;
    });
    return out;
  }
  function isHidden(node) {
    let cur = node;
    while (cur && cur.type !== "PAGE" && cur.type !== "DOCUMENT") {
      if (
        /** @type {any} */
        cur.visible === false
      ) return true;
      cur = cur.parent;
    }
    return false;
  }
  async function placeUnder(node, parentId) {
    if (parentId === void 0 || parentId === null) return;
    const parent = await getNode(parentId, "parentId");
    if (!("appendChild" in parent)) {
      throw new PluginError("wrong_node_type", "Parent " + parent.id + " is a " + parent.type + " and cannot hold children.");
    }
    parent.appendChild(node);
  }

  // plugin/src/code/methods/text.js
  var WEIGHT_STYLES = (
    /** @type {Record<number, string>} */
    {
      100: "Thin",
      200: "Extra Light",
      300: "Light",
      400: "Regular",
      500: "Medium",
      600: "Semi Bold",
      700: "Bold",
      800: "Extra Bold",
      900: "Black"
    }
  );
  async function loadFontsOf(node) {
    const fonts = node.characters.length ? node.getRangeAllFontNames(0, node.characters.length) : [];
    if (node.fontName !== figma.mixed) fonts.push(node.fontName);
    for (const font of fonts) await figma.loadFontAsync(font);
  }
  function normaliseStyle(style) {
    const key = style.replace(/[\s_-]+/g, "").toLowerCase();
    const names = ["Thin", "Extra Light", "Light", "Regular", "Medium", "Semi Bold", "Bold", "Extra Bold", "Black", "Italic", "Bold Italic"];
    const hit = names.find((n) => n.replace(/\s/g, "").toLowerCase() === key);
    return hit || style;
  }
  async function resolveFont(family, style) {
    const candidates = [style, normaliseStyle(style)];
    const available = await figma.listAvailableFontsAsync();
    const styles = available.filter((f) => f.fontName.family === family).map((f) => f.fontName.style);
    if (!styles.length) {
      throw new PluginError("font_unavailable", "Font family '" + family + "' is not available in this editor. Pick an installed family (for example Inter).");
    }
    const squash = (s) => s.replace(/[\s_-]+/g, "").toLowerCase();
    const close = styles.find((s) => squash(s) === squash(style));
    if (close) candidates.push(close);
    candidates.push("Regular");
    for (const candidate of candidates) {
      if (styles.indexOf(candidate) < 0) continue;
      const font = { family, style: candidate };
      await figma.loadFontAsync(font);
      return font;
    }
    throw new PluginError("font_unavailable", "Style '" + style + "' of " + family + " is not available. Its styles: " + styles.join(", ") + ".");
  }
  async function setTextContent(params) {
    const node = await getNode(params.nodeId);
    requireType(node, ["TEXT"], "set text");
    const text = (
      /** @type {TextNode} */
      node
    );
    if (typeof params.text !== "string") throw badParams("Parameter 'text' is required and must be a string.");
    const fontSize = optNumber(params, "fontSize", void 0, { min: 1, max: 1e3 });
    const family = optString(params, "fontFamily");
    let style = optString(params, "fontStyle");
    const weight = optNumber(params, "fontWeight", void 0, { min: 100, max: 900 });
    if (!style && weight !== void 0) style = WEIGHT_STYLES[Math.round(weight / 100) * 100];
    await loadFontsOf(text);
    if (family || style) {
      const current = text.fontName === figma.mixed ? { family: "Inter", style: "Regular" } : text.fontName;
      const font = await resolveFont(family || current.family, style || current.style);
      text.fontName = font;
    }
    text.characters = params.text;
    if (fontSize !== void 0) text.fontSize = fontSize;
    return { success: true, node: Object.assign(summarize(text), { characters: text.characters, fontName: text.fontName, fontSize: text.fontSize }) };
  }

  // plugin/src/code/methods/components.js
  var PROPERTY_TYPES = (
    /** @type {const} */
    ["BOOLEAN", "TEXT", "INSTANCE_SWAP", "VARIANT", "SLOT"]
  );
  var MAX_VARIANTS = 500;
  function propertyDefinitions(node) {
    if (node.type === "COMPONENT" && node.parent && node.parent.type === "COMPONENT_SET") return void 0;
    try {
      return node.componentPropertyDefinitions;
    } catch (err) {
      return void 0;
    }
  }
  function describeComponent(node) {
    const out = summarize(node);
    out.key = node.key;
    out.description = node.description;
    if (node.descriptionMarkdown) out.descriptionMarkdown = node.descriptionMarkdown;
    const defs = propertyDefinitions(node);
    if (defs) out.componentPropertyDefinitions = defs;
    if (node.variantProperties) out.variantProperties = node.variantProperties;
    if (node.type === "COMPONENT_SET") out.variants = node.children.map((c) => ({ id: c.id, name: c.name, key: c.key, variantProperties: c.variantProperties }));
    return out;
  }
  async function getComponentLike(id) {
    const node = await getNode(id);
    requireType(node, ["COMPONENT", "COMPONENT_SET"], "use it as a component");
    return (
      /** @type {ComponentNode | ComponentSetNode} */
      node
    );
  }
  async function getComponent(params) {
    const node = await getNode(params.nodeId);
    requireType(node, ["COMPONENT", "COMPONENT_SET", "INSTANCE"], "read component data");
    const out = node.type === "INSTANCE" ? describeTree(node, 1) : describeComponent(node);
    if (node.type === "INSTANCE") {
      const main = await /** @type {InstanceNode} */
      node.getMainComponentAsync();
      out.mainComponent = main ? { id: main.id, name: main.name, key: main.key } : null;
    } else {
      out.children = describeTree(node, 2).children;
    }
    return { success: true, component: out };
  }
  async function getLocalComponents() {
    await figma.loadAllPagesAsync();
    const found = figma.root.findAllWithCriteria({ types: ["COMPONENT", "COMPONENT_SET"] });
    const components = [];
    const componentSets = [];
    for (const node of found) {
      const page = pageOf(node);
      if (node.type === "COMPONENT_SET") {
        const d = describeComponent(node);
        d.page = page;
        componentSets.push(d);
      } else if (!node.parent || node.parent.type !== "COMPONENT_SET") {
        const d = describeComponent(node);
        d.page = page;
        components.push(d);
      }
    }
    return { success: true, components, componentSets, totalComponents: components.length, totalComponentSets: componentSets.length, timestamp: Date.now() };
  }
  function pageOf(node) {
    let cur = node;
    while (cur && cur.type !== "PAGE") cur = cur.parent;
    return cur ? { id: cur.id, name: cur.name } : null;
  }
  async function deepGetComponent(params) {
    const node = await getNode(params.nodeId);
    const depth = optNumber(params, "depth", 10, { min: 0, max: 30 });
    const budget = { count: 0, max: 5e3 };
    const tree = describeTree(
      node,
      /** @type {number} */
      depth,
      budget
    );
    await resolveVariableNames(tree);
    return { success: true, component: tree, nodeCount: budget.count, truncated: budget.count >= budget.max };
  }
  async function resolveVariableNames(tree) {
    const names = {};
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
            out.push({ id, name: names[id] });
          }
          resolved[field] = out.length === 1 ? out[0] : out;
        }
        n.boundVariables = resolved;
      }
      for (const c of n.children || []) await visit(c);
    }
    await visit(tree);
  }
  async function analyzeComponentSet(params) {
    const node = await getNode(params.nodeId);
    requireType(node, ["COMPONENT_SET"], "analyse variants");
    const set = (
      /** @type {ComponentSetNode} */
      node
    );
    const variants = (
      /** @type {ComponentNode[]} */
      set.children.filter((c) => c.type === "COMPONENT")
    );
    if (!variants.length) throw new PluginError("empty", "Component set " + set.name + " has no variants.");
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
      const changes = {};
      changed.forEach((k) => changes[k] = { from: baseDesc[k], to: d[k] });
      return { id: v.id, name: v.name, variantProperties: v.variantProperties, changes };
    });
    const stateAxis = Object.keys(axes).find((a) => /^(state|status|interaction)$/i.test(a));
    return {
      success: true,
      componentSet: { id: set.id, name: set.name, key: set.key, variantCount: variants.length },
      axes,
      defaultVariant: { id: base.id, name: base.name },
      states: stateAxis ? { axis: stateAxis, values: axes[stateAxis] } : null,
      variants: diffs
    };
  }
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
      layoutMode: n.layoutMode
    };
  }
  async function setNodeDescription(params) {
    const id = reqString(params, "nodeId");
    if (typeof params.description !== "string") throw badParams("Parameter 'description' is required and must be a string.");
    const markdown = optString(params, "descriptionMarkdown");
    let target;
    if (id.indexOf("S:") === 0) {
      target = await figma.getStyleByIdAsync(id);
      if (!target) throw notFound("Style " + id + " does not exist in this file.");
    } else {
      target = await getNode(id);
      requireType(target, ["COMPONENT", "COMPONENT_SET"], "set a description");
    }
    target.description = params.description;
    if (markdown !== void 0) target.descriptionMarkdown = markdown;
    return { success: true, node: { id: target.id, name: target.name, description: target.description } };
  }
  async function definitionsOwner(params) {
    const node = await getComponentLike(params.nodeId);
    if (node.type === "COMPONENT" && node.parent && node.parent.type === "COMPONENT_SET") {
      throw new PluginError(
        "wrong_node_type",
        "Component " + node.name + " is a variant; component properties live on its component set " + node.parent.id + ". Use that id."
      );
    }
    return node;
  }
  async function addComponentProperty(params) {
    const node = await definitionsOwner(params);
    const name = reqString(params, "propertyName");
    const type = optEnum(params, "propertyType", PROPERTY_TYPES, optEnum(params, "type", PROPERTY_TYPES, void 0));
    if (!type) throw badParams("Parameter 'propertyType' is required: one of " + PROPERTY_TYPES.join(", ") + ".");
    const defaultValue = params.defaultValue;
    if (type === "BOOLEAN" && typeof defaultValue !== "boolean") throw badParams("A BOOLEAN property needs a boolean 'defaultValue'.");
    if (type !== "BOOLEAN" && type !== "SLOT" && typeof defaultValue !== "string") {
      throw badParams("A " + type + " property needs a string 'defaultValue'" + (type === "INSTANCE_SWAP" ? " (a component id)." : "."));
    }
    const options = {};
    if (Array.isArray(params.preferredValues)) options.preferredValues = params.preferredValues;
    const description = optString(params, "description");
    if (description !== void 0) options.description = description;
    const fullName = node.addComponentProperty(name, type, type === "SLOT" ? "" : defaultValue, Object.keys(options).length ? options : void 0);
    return { success: true, propertyName: fullName, componentPropertyDefinitions: node.componentPropertyDefinitions };
  }
  function resolvePropertyName(node, name) {
    const defs = node.componentPropertyDefinitions;
    if (defs[name]) return name;
    const match = Object.keys(defs).filter((k) => k.split("#")[0] === name);
    if (match.length === 1) return match[0];
    throw notFound(
      "Component property '" + name + "' is not on " + node.name + ". Its properties: " + (Object.keys(defs).join(", ") || "none") + "."
    );
  }
  async function editComponentProperty(params) {
    const node = await definitionsOwner(params);
    const name = resolvePropertyName(node, reqString(params, "propertyName"));
    const newValue = reqObject(params, "newValue");
    const fullName = node.editComponentProperty(
      name,
      /** @type {any} */
      newValue
    );
    return { success: true, propertyName: fullName, componentPropertyDefinitions: node.componentPropertyDefinitions };
  }
  async function deleteComponentProperty(params) {
    const node = await definitionsOwner(params);
    const name = resolvePropertyName(node, reqString(params, "propertyName"));
    node.deleteComponentProperty(name);
    return { success: true, deleted: name, componentPropertyDefinitions: node.componentPropertyDefinitions };
  }
  function pickVariant(set, variant) {
    const variants = (
      /** @type {ComponentNode[]} */
      set.children.filter((c) => c.type === "COMPONENT")
    );
    if (!variant) return set.defaultVariant || variants[0];
    const wanted = Object.keys(variant);
    const hit = variants.find((v) => wanted.every((k) => v.variantProperties && String(v.variantProperties[k]) === String(variant[k])));
    if (!hit) {
      throw notFound(
        "No variant of " + set.name + " matches " + JSON.stringify(variant) + ". Variants: " + variants.map((v) => v.name).join("; ") + "."
      );
    }
    return hit;
  }
  async function instantiateComponent(params) {
    const variant = optObject(params, "variant");
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
            "No component or component set with key " + key + " could be imported. Check the key and that its library is enabled for this file; for a local component pass nodeId instead."
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
  async function applyOverrides(instance, overrides) {
    const props = instance.componentProperties;
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
      await loadFontsOf(
        /** @type {TextNode} */
        text
      );
      text.characters = String(overrides[key]);
      applied.push(key);
    }
    if (Object.keys(byProperty).length) {
      await loadInstanceFonts(instance);
      instance.setProperties(byProperty);
    }
    return applied;
  }
  async function loadInstanceFonts(instance) {
    const texts = instance.findAllWithCriteria({ types: ["TEXT"] });
    for (const t of texts) await loadFontsOf(t);
  }
  async function setInstanceProperties(params) {
    const node = await getNode(params.nodeId);
    requireType(node, ["INSTANCE"], "set instance properties");
    const instance = (
      /** @type {InstanceNode} */
      node
    );
    const properties = reqObject(params, "properties");
    const props = instance.componentProperties;
    const resolved = {};
    Object.keys(properties).forEach((key) => {
      const full = props[key] ? key : Object.keys(props).find((k) => k.split("#")[0] === key);
      if (!full) throw notFound("Property '" + key + "' is not on this instance. Its properties: " + Object.keys(props).join(", ") + ".");
      resolved[full] = properties[key];
    });
    await loadInstanceFonts(instance);
    instance.setProperties(resolved);
    return { success: true, instance: summarize(instance), componentProperties: instance.componentProperties };
  }
  async function createComponentSet(params) {
    let components = [];
    const created = [];
    if (Array.isArray(params.componentIds) && params.componentIds.length) {
      for (const id of params.componentIds) {
        const n = await getNode(id, "componentIds[]");
        requireType(n, ["COMPONENT"], "combine it as a variant");
        components.push(
          /** @type {ComponentNode} */
          n
        );
      }
    } else {
      const base = await getNode(params.baseComponentId, "baseComponentId");
      requireType(base, ["COMPONENT"], "use it as the base of variants");
      const axes = variantAxes(params);
      const combos = combinations(axes);
      if (combos.length > MAX_VARIANTS) throw badParams(combos.length + " variants requested; the limit is " + MAX_VARIANTS + ".");
      const b = (
        /** @type {ComponentNode} */
        base
      );
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
      set = figma.combineAsVariants(
        components,
        /** @type {any} */
        parent
      );
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
    return { success: true, componentSet: describeComponent(set) };
  }
  function variantAxes(params) {
    const axes = [];
    if (Array.isArray(params.variantProperties)) {
      params.variantProperties.forEach((p) => {
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
    if (!axes.length) throw badParams(`Give the variant axes in 'properties' ({"Size": ["S","M"]}) or 'variantProperties'.`);
    return axes;
  }
  function combinations(axes) {
    let out = [[]];
    axes.forEach((axis) => {
      const next = [];
      out.forEach((prefix) => axis[1].forEach((v) => next.push(prefix.concat([[axis[0], v]]))));
      out = next;
    });
    return out;
  }

  // plugin/src/code/methods/annotations.js
  function collect(node, depth, out) {
    if ("annotations" in node && node.annotations.length) {
      out.push({ nodeId: node.id, name: node.name, type: node.type, annotations: node.annotations.map((a) => Object.assign({}, a)) });
    }
    if (depth > 0 && "children" in node) node.children.forEach((c) => collect(c, depth - 1, out));
  }
  async function getAnnotations(params) {
    const node = requireProp(await getNode(params.nodeId), "annotations", "read annotations");
    const includeChildren = optBool(params, "includeChildren", optBool(params, "include_children", false));
    const depth = includeChildren ? (
      /** @type {number} */
      optNumber(params, "depth", 1, { min: 0, max: 20 })
    ) : 0;
    const found = [];
    collect(node, depth, found);
    return { success: true, nodeId: node.id, annotations: node.annotations.map((a) => Object.assign({}, a)), nodes: found };
  }
  async function setAnnotations(params) {
    const node = requireProp(await getNode(params.nodeId), "annotations", "set annotations");
    const list = reqArray(params, "annotations");
    const mode = optEnum(
      params,
      "mode",
      /** @type {const} */
      ["replace", "append"],
      "replace"
    );
    const clean = list.map((a, i) => {
      if (!a || typeof a !== "object") throw badParams("annotations[" + i + "] must be an object with 'label' or 'labelMarkdown'.");
      const out = {};
      if (typeof a.labelMarkdown === "string") out.labelMarkdown = a.labelMarkdown;
      else if (typeof a.label === "string") out.label = a.label;
      if (Array.isArray(a.properties)) out.properties = a.properties.map((p) => typeof p === "string" ? { type: p } : p);
      if (typeof a.categoryId === "string") out.categoryId = a.categoryId;
      if (!out.label && !out.labelMarkdown && !out.properties) throw badParams("annotations[" + i + "] needs 'label', 'labelMarkdown' or 'properties'.");
      return out;
    });
    node.annotations = mode === "append" ? node.annotations.concat(clean) : clean;
    return { success: true, nodeId: node.id, annotations: node.annotations.map((a) => Object.assign({}, a)) };
  }
  async function getAnnotationCategories() {
    const categories = await figma.annotations.getAnnotationCategoriesAsync();
    return { success: true, categories: categories.map((c) => ({ id: c.id, label: c.label, color: c.color, isPreset: c.isPreset })) };
  }

  // plugin/src/code/methods/slots.js
  async function createSlot(params) {
    const node = await getNode(params.nodeId);
    requireType(node, ["COMPONENT"], "create a slot");
    const component = (
      /** @type {ComponentNode} */
      node
    );
    if (typeof component.createSlot !== "function") throw new PluginError("unsupported", "This editor's plugin API has no slots yet; update the desktop app.");
    const slot = component.createSlot();
    const name = optString(params, "name");
    if (name) slot.name = name;
    const width = optNumber(params, "width", void 0, { min: 0.01 });
    const height = optNumber(params, "height", void 0, { min: 0.01 });
    if (width !== void 0 || height !== void 0) slot.resize(width || slot.width, height || slot.height);
    const layout = optEnum(
      params,
      "layoutMode",
      /** @type {const} */
      ["NONE", "HORIZONTAL", "VERTICAL"],
      void 0
    );
    if (layout) slot.layoutMode = layout;
    return { success: true, slot: summarize(slot), componentId: component.id };
  }
  function slotsIn(root) {
    return (
      /** @type {any} */
      root.findAllWithCriteria({ types: ["SLOT"] })
    );
  }
  async function getSlots(params) {
    const node = await getNode(params.nodeId);
    requireType(node, ["COMPONENT", "INSTANCE", "COMPONENT_SET"], "list slots");
    const slots = slotsIn(node).map((s) => Object.assign(summarize(s), { childCount: s.children.length, limitViolations: s.limitViolations }));
    return { success: true, nodeId: node.id, slots };
  }
  async function findSlot(params) {
    if (params.slotId) {
      const node = await getNode(params.slotId, "slotId");
      requireType(node, ["SLOT"], "use it as a slot");
      return (
        /** @type {SlotNode} */
        node
      );
    }
    if (!params.instanceId) throw badParams("Give 'slotId', or 'instanceId' with 'slotName'.");
    const instance = await getNode(params.instanceId, "instanceId");
    requireType(instance, ["INSTANCE"], "find a slot in it");
    const slots = slotsIn(instance);
    const name = optString(params, "slotName");
    const hit = name ? slots.find((s) => s.name === name) : slots.length === 1 ? slots[0] : void 0;
    if (!hit) {
      throw notFound(
        (name ? "No slot named '" + name + "'" : "'slotName' is needed to choose a slot") + " in instance " + instance.name + ". Its slots: " + (slots.map((s) => s.name).join(", ") || "none") + "."
      );
    }
    return (
      /** @type {SlotNode} */
      hit
    );
  }
  var SLOT_CHILD_TYPES = (
    /** @type {const} */
    ["FRAME", "RECTANGLE", "ELLIPSE", "TEXT", "LINE", "POLYGON", "STAR", "VECTOR"]
  );
  async function appendToSlot(params) {
    const slot = await findSlot(params);
    if (optBool(params, "clearExisting", false)) slot.children.slice().forEach((c) => c.remove());
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
        VECTOR: () => figma.createVector()
      };
      child = create[
        /** @type {keyof typeof create} */
        type
      ]();
      const props = optObject(params, "properties") || {};
      if (typeof props.name === "string") child.name = props.name;
      if (typeof props.width === "number" && typeof props.height === "number" && "resize" in child) child.resize(props.width, props.height);
    }
    slot.appendChild(child);
    return { success: true, slot: summarize(slot), appended: summarize(child) };
  }
  async function resetSlot(params) {
    const slot = await findSlot(params);
    slot.resetSlot();
    return { success: true, slot: Object.assign(summarize(slot), { childCount: slot.children.length }) };
  }

  // plugin/src/code/methods/edit.js
  var MAX_IMAGE_BYTES = 32 * 1024 * 1024;
  async function resizeNode(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "resize", "resize");
    const width = reqNumber(params, "width", { min: 0.01, max: 1e5 });
    const height = reqNumber(params, "height", { min: 0.01, max: 1e5 });
    if (optBool(params, "withConstraints", true)) node.resize(width, height);
    else node.resizeWithoutConstraints(width, height);
    return { success: true, node: summarize(node) };
  }
  async function moveNode(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "x", "move");
    node.x = reqNumber(params, "x");
    node.y = reqNumber(params, "y");
    return { success: true, node: summarize(node) };
  }
  async function buildPaints(list, what) {
    const out = [];
    for (let i = 0; i < list.length; i++) {
      const p = (
        /** @type {any} */
        list[i]
      );
      if (!p || typeof p !== "object") throw badParams(what + "[" + i + '] must be an object such as {"type":"SOLID","color":"#FF0000"}.');
      const type = p.type || "SOLID";
      if (type !== "SOLID") {
        out.push(p);
        continue;
      }
      let paint = solidPaint(p.color === void 0 && p.variableId ? "#000000" : p.color, typeof p.opacity === "number" ? p.opacity : void 0, what + "[" + i + "].color");
      if (p.variableId) {
        const variable = await figma.variables.getVariableByIdAsync(p.variableId);
        if (!variable) throw new PluginError("not_found", "Variable " + p.variableId + " (" + what + "[" + i + "].variableId) does not exist in this file.");
        if (variable.resolvedType !== "COLOR") throw badParams("Variable " + variable.name + " is " + variable.resolvedType + "; a fill needs a COLOR variable.");
        paint = figma.variables.setBoundVariableForPaint(paint, "color", variable);
      }
      out.push(paint);
    }
    return out;
  }
  async function setFills(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "fills", "set fills");
    node.fills = await buildPaints(reqArray(params, "fills"), "fills");
    return { success: true, node: summarize(node), fills: describePaints(node.fills) };
  }
  async function setStrokes(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "strokes", "set strokes");
    node.strokes = await buildPaints(reqArray(params, "strokes"), "strokes");
    const weight = optNumber(params, "strokeWeight", void 0, { min: 0, max: 1e3 });
    if (weight !== void 0) node.strokeWeight = weight;
    return { success: true, node: summarize(node), strokes: describePaints(node.strokes), strokeWeight: node.strokeWeight };
  }
  async function setOpacity(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "opacity", "set opacity");
    node.opacity = reqNumber(params, "opacity", { min: 0, max: 1 });
    return { success: true, node: summarize(node), opacity: node.opacity };
  }
  async function setCornerRadius(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "cornerRadius", "set the corner radius");
    node.cornerRadius = reqNumber(params, "radius", { min: 0, max: 1e5 });
    return { success: true, node: summarize(node), cornerRadius: node.cornerRadius };
  }
  function imageKind(b) {
    if (b.length > 8 && b[0] === 137 && b[1] === 80 && b[2] === 78 && b[3] === 71) return "PNG";
    if (b.length > 3 && b[0] === 255 && b[1] === 216 && b[2] === 255) return "JPEG";
    if (b.length > 6 && b[0] === 71 && b[1] === 73 && b[2] === 70) return "GIF";
    return null;
  }
  async function setImageFill(params) {
    const ids = reqArray(params, "nodeIds");
    if (!ids.length) throw badParams("Parameter 'nodeIds' must list at least one node id.");
    const scaleMode = optEnum(
      params,
      "scaleMode",
      /** @type {const} */
      ["FILL", "FIT", "CROP", "TILE"],
      "FILL"
    );
    let bytes;
    if (params.imageData instanceof Uint8Array) {
      bytes = params.imageData;
    } else {
      const data = reqString(params, "imageData").replace(/^data:[^,]*,/, "").replace(/\s+/g, "");
      if (data.length > MAX_IMAGE_BYTES * 4 / 3 + 4) throw badParams("Image is larger than " + MAX_IMAGE_BYTES / 1048576 + " MiB; scale it down first.");
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw badParams("'imageData' is not valid base64.");
      bytes = figma.base64Decode(data);
    }
    const kind = imageKind(bytes);
    if (!kind) throw badParams("'imageData' is not a PNG, JPEG or GIF image (unrecognised header).");
    const nodes = [];
    for (const id of ids) nodes.push(requireProp(await getSceneNode(id, "nodeIds[]"), "fills", "set an image fill"));
    const image = figma.createImage(bytes);
    nodes.forEach((n) => {
      n.fills = [{ type: "IMAGE", imageHash: image.hash, scaleMode }];
    });
    return { success: true, imageHash: image.hash, format: kind, byteLength: bytes.length, nodes: nodes.map(summarize) };
  }
  async function cloneNode(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "clone", "clone");
    const copy = node.clone();
    return { success: true, node: summarize(copy), sourceId: node.id };
  }
  async function deleteNode(params) {
    const node = await getNode(params.nodeId);
    if (node.type === "DOCUMENT") throw badParams("The document itself cannot be deleted.");
    if (node.type === "PAGE" && figma.root.children.length <= 1) throw badParams("The only page of a file cannot be deleted.");
    const info = { id: node.id, name: node.name, type: node.type };
    node.remove();
    return { success: true, deleted: info };
  }
  async function renameNode(params) {
    const node = await getNode(params.nodeId);
    const newName = reqString(params, "newName");
    const oldName = node.name;
    node.name = newName;
    return { success: true, oldName, node: summarize(node) };
  }
  var CHILD_TYPES = (
    /** @type {const} */
    ["RECTANGLE", "ELLIPSE", "FRAME", "TEXT", "LINE"]
  );
  async function createChildNode(params) {
    const type = optEnum(params, "nodeType", CHILD_TYPES, void 0);
    if (!type) throw badParams("Parameter 'nodeType' is required: one of " + CHILD_TYPES.join(", ") + ".");
    const parent = await getNode(params.parentId, "parentId");
    if (!("appendChild" in parent)) throw new PluginError("wrong_node_type", "Parent " + parent.id + " is a " + parent.type + " and cannot hold children.");
    const props = optObject(params, "properties") || {};
    let node;
    if (type === "RECTANGLE") node = figma.createRectangle();
    else if (type === "ELLIPSE") node = figma.createEllipse();
    else if (type === "FRAME") node = figma.createFrame();
    else if (type === "LINE") node = figma.createLine();
    else node = figma.createText();
    try {
      await placeUnder(node, parent.id);
      const n = (
        /** @type {any} */
        node
      );
      if (typeof props.name === "string") n.name = props.name;
      if (typeof props.x === "number") n.x = props.x;
      if (typeof props.y === "number") n.y = props.y;
      if (type === "TEXT") {
        await loadFontsOf(n);
        n.characters = typeof props.text === "string" ? props.text : "";
        if (typeof props.fontSize === "number") n.fontSize = props.fontSize;
      }
      if (typeof props.width === "number" || typeof props.height === "number") {
        const w = typeof props.width === "number" ? props.width : n.width;
        const h = typeof props.height === "number" ? props.height : n.height;
        n.resize(Math.max(w, 0.01), type === "LINE" ? 0 : Math.max(h, 0.01));
      }
      if (props.fills !== void 0) {
        n.fills = await buildPaints(Array.isArray(props.fills) ? props.fills : [typeof props.fills === "string" ? { type: "SOLID", color: props.fills } : props.fills], "properties.fills");
      } else if (typeof props.color === "string") {
        n.fills = [solidPaint(props.color, void 0, "properties.color")];
      }
    } catch (err) {
      node.remove();
      throw err;
    }
    return { success: true, node: summarize(node) };
  }

  // plugin/src/code/methods/screenshot.js
  var DEFAULT_MAX_EDGE = 1568;
  function boundsOf(node) {
    if (node.type !== "PAGE") return { width: node.width, height: node.height };
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    node.children.forEach((c) => {
      if (c.visible === false) return;
      const b = c.absoluteBoundingBox || { x: c.x, y: c.y, width: c.width, height: c.height };
      minX = Math.min(minX, b.x);
      minY = Math.min(minY, b.y);
      maxX = Math.max(maxX, b.x + b.width);
      maxY = Math.max(maxY, b.y + b.height);
    });
    return maxX > minX ? { width: maxX - minX, height: maxY - minY } : { width: 0, height: 0 };
  }
  async function captureScreenshot(params) {
    const format = optEnum(
      params,
      "format",
      /** @type {const} */
      ["PNG", "JPG", "SVG"],
      "PNG"
    );
    const scale = (
      /** @type {number} */
      optNumber(params, "scale", 1, { min: 0.01, max: 4 })
    );
    const maxEdge = (
      /** @type {number} */
      optNumber(params, "maxEdge", DEFAULT_MAX_EDGE, { min: 16, max: 8192 })
    );
    const node = params.nodeId ? await getNode(params.nodeId) : figma.currentPage;
    if (node.type === "DOCUMENT") throw new PluginError("wrong_node_type", "The document cannot be exported; pass a page or a layer id.");
    if (node.type === "PAGE" && node.id !== figma.currentPage.id) {
      throw new PluginError("wrong_node_type", "Page " + node.name + " is not the current page; switch to it or pass a layer id.");
    }
    if (typeof node.exportAsync !== "function") throw new PluginError("wrong_node_type", node.type + " nodes cannot be exported.");
    if (isHidden(node)) {
      throw new PluginError(
        "hidden_node",
        "Node " + node.id + " (" + node.name + ") is hidden (it or a parent has visible=false), so its image would be blank. Make it visible or capture another node."
      );
    }
    const box = boundsOf(node);
    if (!(box.width > 0 && box.height > 0)) {
      throw new PluginError(
        "empty_node",
        (node.type === "PAGE" ? "The current page has no visible layers" : "Node " + node.id + " has zero size") + ", so there is nothing to capture."
      );
    }
    const longEdge = Math.max(box.width, box.height);
    const effective = format === "SVG" ? 1 : Math.min(scale, maxEdge / longEdge);
    const settings = format === "SVG" ? { format: "SVG" } : { format, constraint: { type: "SCALE", value: effective } };
    const bytes = await node.exportAsync(settings);
    if (!bytes || !bytes.length) {
      throw new PluginError(
        "empty_export",
        "The export of " + node.id + " returned no data. The node id may be stale: look it up again and retry."
      );
    }
    return {
      success: true,
      image: {
        base64: figma.base64Encode(bytes),
        format,
        mimeType: format === "PNG" ? "image/png" : format === "JPG" ? "image/jpeg" : "image/svg+xml",
        width: Math.round(box.width * effective),
        height: Math.round(box.height * effective),
        scale: effective,
        requestedScale: scale,
        capped: effective < scale,
        byteLength: bytes.length,
        nodeId: node.id,
        nodeName: node.name
      }
    };
  }

  // plugin/src/code/methods/audit.js
  var RULE_GROUPS = {
    wcag: ["wcag-contrast", "wcag-text-size", "wcag-target-size"],
    "design-system": ["ds-hardcoded-color", "ds-detached-text-style"],
    layout: ["layout-no-autolayout", "layout-empty-frame"],
    "best-practice": ["bp-default-name", "bp-hidden-layer"]
  };
  var ALL_RULES = Object.keys(RULE_GROUPS).reduce((all, g) => all.concat(
    /** @type {any} */
    RULE_GROUPS[g]
  ), []);
  var DEFAULT_NAME = /^(Frame|Rectangle|Ellipse|Group|Text|Line|Vector|Polygon|Star|Component|Instance|Section)( \d+)?$/;
  function selectRules(rules) {
    if (rules === void 0 || rules === null) return ALL_RULES.slice();
    if (!Array.isArray(rules)) throw badParams("'rules' must be an array of rule ids or groups (" + Object.keys(RULE_GROUPS).join(", ") + ").");
    const out = [];
    rules.forEach((r) => {
      const group = (
        /** @type {any} */
        RULE_GROUPS[r]
      );
      const ids = group || (ALL_RULES.indexOf(r) >= 0 ? [r] : null);
      if (!ids) throw badParams("Unknown rule '" + r + "'. Rules: " + ALL_RULES.join(", ") + "; groups: " + Object.keys(RULE_GROUPS).join(", ") + ".");
      ids.forEach((id) => out.indexOf(id) < 0 && out.push(id));
    });
    return out;
  }
  function solidOf(node) {
    if (!node || !Array.isArray(node.fills)) return null;
    for (let i = node.fills.length - 1; i >= 0; i--) {
      const p = node.fills[i];
      if (p.type === "SOLID" && p.visible !== false && (p.opacity === void 0 || p.opacity > 0.5)) return p.color;
    }
    return null;
  }
  function backgroundOf(node) {
    let cur = node.parent;
    while (cur && cur.type !== "PAGE" && cur.type !== "DOCUMENT") {
      const c = solidOf(cur);
      if (c) return c;
      cur = cur.parent;
    }
    return { r: 1, g: 1, b: 1 };
  }
  function isInteractive(node) {
    return Array.isArray(node.reactions) && node.reactions.length > 0;
  }
  function checkNode(node, rules, opts, report) {
    const on = (r) => rules.indexOf(r) >= 0;
    if (node.type === "TEXT" && node.visible !== false) {
      const size = node.fontSize === figma.mixed ? null : node.fontSize;
      const fg = solidOf(node);
      if (on("wcag-contrast") && fg) {
        const bg = backgroundOf(node);
        const bold = node.fontWeight !== figma.mixed && node.fontWeight >= 700;
        const large = size !== null && (size >= 24 || bold && size >= 18.66);
        const needed = large ? 3 : 4.5;
        const ratio = contrastRatio(fg, bg);
        if (ratio < needed) {
          report({ rule: "wcag-contrast", severity: "error", message: "Text contrast " + ratio.toFixed(2) + ":1 (" + toHex(fg) + " on " + toHex(bg) + ") is below " + needed + ":1." });
        }
      }
      if (on("wcag-text-size") && size !== null && size < 12) {
        report({ rule: "wcag-text-size", severity: "warning", message: "Font size " + size + " px is below 12 px." });
      }
      if (on("ds-detached-text-style") && !node.textStyleId) {
        report({ rule: "ds-detached-text-style", severity: "info", message: "Text does not use a text style." });
      }
    }
    if (on("wcag-target-size") && isInteractive(node) && (node.width < opts.targetSize || node.height < opts.targetSize)) {
      report({ rule: "wcag-target-size", severity: "error", message: "Interactive target " + Math.round(node.width) + "×" + Math.round(node.height) + " is smaller than " + opts.targetSize + "×" + opts.targetSize + "." });
    }
    if (on("ds-hardcoded-color") && Array.isArray(node.fills)) {
      const hard = node.fills.some((p) => p.type === "SOLID" && p.visible !== false && !(p.boundVariables && p.boundVariables.color));
      if (hard && !node.fillStyleId) report({ rule: "ds-hardcoded-color", severity: "warning", message: "Solid fill is not bound to a variable or style." });
    }
    if ((node.type === "FRAME" || node.type === "COMPONENT") && node.children) {
      if (on("layout-no-autolayout") && node.children.length > 1 && node.layoutMode === "NONE") {
        report({ rule: "layout-no-autolayout", severity: "info", message: "Frame with " + node.children.length + " children does not use auto layout." });
      }
      if (on("layout-empty-frame") && node.children.length === 0) report({ rule: "layout-empty-frame", severity: "info", message: "Frame is empty." });
    }
    if (on("bp-default-name") && DEFAULT_NAME.test(node.name)) report({ rule: "bp-default-name", severity: "info", message: "Layer keeps its default name '" + node.name + "'." });
    if (on("bp-hidden-layer") && node.visible === false) report({ rule: "bp-hidden-layer", severity: "info", message: "Layer is hidden." });
  }
  async function lintDesign(params) {
    const root = params.nodeId ? await getNode(params.nodeId) : figma.currentPage;
    const rules = selectRules(params.rules);
    const maxDepth = (
      /** @type {number} */
      optNumber(params, "maxDepth", 10, { min: 0, max: 50 })
    );
    const maxFindings = (
      /** @type {number} */
      optNumber(params, "maxFindings", 100, { min: 1, max: 5e3 })
    );
    const findings = [];
    const counts = {};
    let visited = 0;
    let truncated = false;
    function visit(node, depth) {
      visited++;
      if (node.type !== "PAGE") {
        checkNode(node, rules, { targetSize: 24 }, (f) => {
          counts[f.rule] = (counts[f.rule] || 0) + 1;
          if (findings.length < maxFindings) findings.push(Object.assign({ nodeId: node.id, nodeName: node.name, nodeType: node.type }, f));
          else truncated = true;
        });
      }
      if (depth < maxDepth && node.children) node.children.forEach((c) => visit(c, depth + 1));
    }
    visit(root, 0);
    return { success: true, rootId: root.id, rootName: root.name, rulesRun: rules, nodesChecked: visited, counts, findings, truncated };
  }
  async function auditComponentAccessibility(params) {
    const targetSize = (
      /** @type {number} */
      optNumber(params, "targetSize", 24, { min: 1, max: 200 })
    );
    let components;
    let set = null;
    if (params.nodeId) {
      const node = (
        /** @type {any} */
        await getNode(params.nodeId)
      );
      if (node.type === "COMPONENT_SET") {
        set = node;
        components = node.children.filter((c) => c.type === "COMPONENT");
      } else if (node.type === "COMPONENT" || node.type === "INSTANCE") {
        components = [node];
      } else {
        components = node.findAllWithCriteria ? node.findAllWithCriteria({ types: ["COMPONENT"] }) : [];
      }
    } else {
      components = figma.currentPage.findAllWithCriteria({ types: ["COMPONENT"] });
    }
    const rules = ["wcag-contrast", "wcag-text-size", "wcag-target-size"];
    const results = components.map((c) => {
      const issues = [];
      const report = (f) => issues.push(f);
      if (c.width < targetSize || c.height < targetSize) {
        issues.push({ rule: "target-size", severity: "error", nodeId: c.id, message: "Component is " + Math.round(c.width) + "×" + Math.round(c.height) + ", below the " + targetSize + "×" + targetSize + " target size." });
      }
      const walk2 = (n) => {
        checkNode(n, rules, { targetSize }, (f) => report(Object.assign({ nodeId: n.id, nodeName: n.name }, f)));
        if (n.children) n.children.forEach(walk2);
      };
      if (c.children) c.children.forEach(walk2);
      const owner = c.parent && c.parent.type === "COMPONENT_SET" ? c.parent : c;
      if (c.type !== "INSTANCE" && !owner.description) issues.push({ rule: "description", severity: "warning", nodeId: owner.id, message: "No description for assistive documentation." });
      const score = Math.max(0, 100 - issues.reduce((s, i) => s + (i.severity === "error" ? 20 : i.severity === "warning" ? 10 : 2), 0));
      return { id: c.id, name: c.name, type: c.type, score, issues };
    });
    const out = { success: true, targetSize, components: results, componentCount: results.length };
    if (set) {
      const states = results.map((r) => r.name.toLowerCase());
      out.componentSet = { id: set.id, name: set.name, hasFocusState: states.some((s) => s.indexOf("focus") >= 0), hasDisabledState: states.some((s) => s.indexOf("disabled") >= 0) };
    }
    out.averageScore = results.length ? Math.round(results.reduce((s, r) => s + r.score, 0) / results.length) : null;
    return out;
  }

  // plugin/src/code/methods/whiteboard.js
  var STICKY_COLORS = (
    /** @type {Record<string, string>} */
    {
      YELLOW: "#FFE299",
      BLUE: "#A8DAFF",
      GREEN: "#B3EFBD",
      PINK: "#FFBDF2",
      ORANGE: "#FFC3A3",
      PURPLE: "#D3BDFF",
      RED: "#FFAFA3",
      LIGHT_GRAY: "#E6E6E6",
      GRAY: "#B3B3B3"
    }
  );
  var SHAPES = (
    /** @type {const} */
    ["ROUNDED_RECTANGLE", "DIAMOND", "ELLIPSE", "TRIANGLE_UP", "TRIANGLE_DOWN", "PARALLELOGRAM_RIGHT", "PARALLELOGRAM_LEFT", "ENG_DATABASE", "ENG_QUEUE", "ENG_FILE", "ENG_FOLDER"]
  );
  var MAGNETS = (
    /** @type {const} */
    ["AUTO", "TOP", "BOTTOM", "LEFT", "RIGHT"]
  );
  var MAX_STICKIES = 200;
  function requireBoard(method, fn) {
    if (figma.editorType !== "figjam" || typeof /** @type {any} */
    figma[fn] !== "function") throw unsupported(method, "whiteboard (FigJam)");
  }
  function place(node, p) {
    if (typeof p.x === "number") node.x = p.x;
    if (typeof p.y === "number") node.y = p.y;
  }
  async function makeSticky(p, i) {
    if (!p || typeof p.text !== "string") throw badParams("stickies[" + i + "].text is required.");
    const color = optEnum(
      p,
      "color",
      /** @type {any} */
      Object.keys(STICKY_COLORS),
      "YELLOW"
    );
    const sticky = figma.createSticky();
    await figma.loadFontAsync(
      /** @type {FontName} */
      sticky.text.fontName
    );
    sticky.text.characters = p.text;
    sticky.fills = [solidPaint(STICKY_COLORS[
      /** @type {string} */
      color
    ])];
    place(sticky, p);
    return sticky;
  }
  async function createSticky(params) {
    requireBoard("CREATE_STICKY", "createSticky");
    reqString(params, "text");
    const sticky = await makeSticky(params, 0);
    return { success: true, node: summarize(sticky) };
  }
  async function createStickies(params) {
    requireBoard("CREATE_STICKIES", "createSticky");
    const list = reqArray(params, "stickies");
    if (!list.length || list.length > MAX_STICKIES) throw badParams("'stickies' must hold 1 to " + MAX_STICKIES + " entries.");
    const made = [];
    for (let i = 0; i < list.length; i++) made.push(summarize(await makeSticky(list[i], i)));
    return { success: true, nodes: made, count: made.length };
  }
  async function createConnector(params) {
    requireBoard("CREATE_CONNECTOR", "createConnector");
    const start = await getSceneNode(params.startNodeId, "startNodeId");
    const end = await getSceneNode(params.endNodeId, "endNodeId");
    const connector = figma.createConnector();
    connector.connectorStart = { endpointNodeId: start.id, magnet: (
      /** @type {any} */
      optEnum(params, "startMagnet", MAGNETS, "AUTO")
    ) };
    connector.connectorEnd = { endpointNodeId: end.id, magnet: (
      /** @type {any} */
      optEnum(params, "endMagnet", MAGNETS, "AUTO")
    ) };
    const label = optString(params, "label");
    if (label) {
      await figma.loadFontAsync(
        /** @type {FontName} */
        connector.text.fontName
      );
      connector.text.characters = label;
    }
    return { success: true, node: summarize(connector), startNodeId: start.id, endNodeId: end.id };
  }
  async function createShapeWithText(params) {
    requireBoard("CREATE_SHAPE_WITH_TEXT", "createShapeWithText");
    const shape = figma.createShapeWithText();
    shape.shapeType = /** @type {any} */
    optEnum(params, "shapeType", SHAPES, "ROUNDED_RECTANGLE");
    const text = optString(params, "text");
    await figma.loadFontAsync(
      /** @type {FontName} */
      shape.text.fontName
    );
    if (text) shape.text.characters = text;
    const fontSize = optNumber(params, "fontSize", void 0, { min: 1, max: 200 });
    if (fontSize) shape.text.fontSize = fontSize;
    const w = optNumber(params, "width", void 0, { min: 1, max: 1e4 });
    const h = optNumber(params, "height", void 0, { min: 1, max: 1e4 });
    if (w || h) shape.resize(w || shape.width, h || shape.height);
    if (params.fillColor) shape.fills = [solidPaint(params.fillColor, void 0, "fillColor")];
    if (params.strokeColor) shape.strokes = [solidPaint(params.strokeColor, void 0, "strokeColor")];
    if (params.strokeDashPattern) {
      const dashes = String(params.strokeDashPattern).split(/[\s,]+/).filter(Boolean).map(Number);
      if (dashes.some((d) => !isFinite(d) || d < 0)) throw badParams(`'strokeDashPattern' must be numbers such as "10,5".`);
      shape.dashPattern = dashes;
    }
    place(shape, params);
    return { success: true, node: summarize(shape) };
  }
  async function createSection(params) {
    if (typeof figma.createSection !== "function") throw unsupported("CREATE_SECTION", "design or whiteboard");
    const section = figma.createSection();
    const name = optString(params, "name");
    if (name) section.name = name;
    section.resizeWithoutConstraints(
      /** @type {number} */
      optNumber(params, "width", 1e3, { min: 1, max: 2e4 }),
      /** @type {number} */
      optNumber(params, "height", 800, { min: 1, max: 2e4 })
    );
    if (params.fillColor) section.fills = [solidPaint(params.fillColor, void 0, "fillColor")];
    place(section, params);
    return { success: true, node: summarize(section) };
  }
  async function createTable(params) {
    requireBoard("CREATE_TABLE", "createTable");
    const rows = reqNumber(params, "rows", { min: 1, max: 100 });
    const columns = reqNumber(params, "columns", { min: 1, max: 50 });
    const table = figma.createTable(rows, columns);
    if (Array.isArray(params.data)) {
      for (let r = 0; r < Math.min(rows, params.data.length); r++) {
        const row = params.data[r];
        if (!Array.isArray(row)) throw badParams("data[" + r + "] must be an array of strings.");
        for (let c = 0; c < Math.min(columns, row.length); c++) {
          const cell = table.cellAt(r, c);
          await figma.loadFontAsync(
            /** @type {FontName} */
            cell.text.fontName
          );
          cell.text.characters = String(row[c]);
        }
      }
    }
    place(table, params);
    return { success: true, node: summarize(table), rows, columns };
  }
  async function createCodeBlock(params) {
    requireBoard("CREATE_CODE_BLOCK", "createCodeBlock");
    const code = reqString(params, "code");
    const block = figma.createCodeBlock();
    block.code = code;
    const language = optString(params, "language");
    if (language) {
      const lang = language.toUpperCase().replace(/[^A-Z_+]/g, "_");
      try {
        block.codeLanguage = /** @type {any} */
        lang;
      } catch (err) {
        block.remove();
        throw badParams("Language '" + language + "' is not supported by code blocks (for example TYPESCRIPT, PYTHON, CSS, HTML, JSON).");
      }
    }
    place(block, params);
    return { success: true, node: summarize(block) };
  }
  var BOARD_TYPES = (
    /** @type {const} */
    ["STICKY", "SHAPE_WITH_TEXT", "CONNECTOR", "TABLE", "CODE_BLOCK", "SECTION", "FRAME", "TEXT"]
  );
  function textOf(n) {
    if (n.type === "TEXT") return n.characters;
    if (n.type === "CODE_BLOCK") return n.code;
    if (n.text && typeof n.text.characters === "string") return n.text.characters;
    return void 0;
  }
  async function getBoardContents(params) {
    const types = params.nodeTypes === void 0 ? BOARD_TYPES.slice() : reqArray(params, "nodeTypes");
    types.forEach((t) => {
      if (BOARD_TYPES.indexOf(t) < 0) throw badParams("Unknown node type '" + t + "'. Types: " + BOARD_TYPES.join(", ") + ".");
    });
    const max = (
      /** @type {number} */
      optNumber(params, "maxNodes", 500, { min: 1, max: 1e3 })
    );
    const found = figma.currentPage.findAllWithCriteria({ types: (
      /** @type {any} */
      types
    ) });
    const nodes = found.slice(0, max).map((n) => {
      const out = summarize(n);
      const text = textOf(n);
      if (text !== void 0) out.text = text;
      return out;
    });
    return { success: true, page: figma.currentPage.name, nodes, total: found.length, truncated: found.length > max };
  }
  async function getConnections() {
    const connectors = figma.currentPage.findAllWithCriteria({ types: ["CONNECTOR"] });
    const edges = connectors.map((c) => {
      const s = (
        /** @type {any} */
        c.connectorStart
      );
      const e = (
        /** @type {any} */
        c.connectorEnd
      );
      return { id: c.id, startNodeId: s.endpointNodeId || null, endNodeId: e.endpointNodeId || null, label: c.text ? c.text.characters : "" };
    });
    return { success: true, connections: edges, count: edges.length };
  }

  // plugin/src/code/methods/slides.js
  var TRANSITIONS = (
    /** @type {const} */
    ["NONE", "DISSOLVE", "SLIDE_FROM_LEFT", "SLIDE_FROM_RIGHT", "SLIDE_FROM_TOP", "SLIDE_FROM_BOTTOM", "PUSH_FROM_LEFT", "PUSH_FROM_RIGHT", "PUSH_FROM_TOP", "PUSH_FROM_BOTTOM", "MOVE_FROM_LEFT", "MOVE_FROM_RIGHT", "MOVE_FROM_TOP", "MOVE_FROM_BOTTOM", "SLIDE_OUT_TO_LEFT", "SLIDE_OUT_TO_RIGHT", "SLIDE_OUT_TO_TOP", "SLIDE_OUT_TO_BOTTOM", "MOVE_OUT_TO_LEFT", "MOVE_OUT_TO_RIGHT", "MOVE_OUT_TO_TOP", "MOVE_OUT_TO_BOTTOM", "SMART_ANIMATE"]
  );
  var CURVES = (
    /** @type {const} */
    ["LINEAR", "EASE_IN", "EASE_OUT", "EASE_IN_AND_OUT", "GENTLE", "QUICK", "BOUNCY", "SLOW"]
  );
  function requireSlides(method) {
    if (figma.editorType !== "slides" || typeof figma.getSlideGrid !== "function") throw unsupported(method, "slides");
  }
  async function getSlide(params, method) {
    requireSlides(method);
    const node = await getNode(params.slideId, "slideId");
    requireType(node, ["SLIDE"], method);
    return (
      /** @type {SlideNode} */
      node
    );
  }
  async function listSlides() {
    requireSlides("LIST_SLIDES");
    const slides = [];
    const grid = figma.getSlideGrid();
    for (let r = 0; r < grid.length; r++) {
      for (let c = 0; c < grid[r].length; c++) {
        const s = grid[r][c];
        slides.push({ id: s.id, name: s.name, row: r, col: c, isSkipped: s.isSkippedSlide });
      }
    }
    return { success: true, slides, count: slides.length };
  }
  async function getSlideContent(params) {
    const slide = await getSlide(params, "GET_SLIDE_CONTENT");
    return { success: true, slide: describeTree(slide, 8) };
  }
  async function getSlideGrid() {
    requireSlides("GET_SLIDE_GRID");
    return { success: true, grid: figma.getSlideGrid().map((row) => row.map((s) => s.id)) };
  }
  async function createSlide(params) {
    requireSlides("CREATE_SLIDE");
    const row = optNumber(params, "row", void 0, { min: 0 });
    const col = optNumber(params, "col", void 0, { min: 0 });
    const slide = row === void 0 ? figma.createSlide() : figma.createSlide(row, col === void 0 ? 0 : col);
    return { success: true, slide: summarize(slide) };
  }
  async function deleteSlide(params) {
    const slide = await getSlide(params, "DELETE_SLIDE");
    const info = { id: slide.id, name: slide.name };
    slide.remove();
    return { success: true, deleted: info };
  }
  async function duplicateSlide(params) {
    const slide = await getSlide(params, "DUPLICATE_SLIDE");
    return { success: true, slide: summarize(slide.clone()), sourceId: slide.id };
  }
  async function reorderSlides(params) {
    requireSlides("REORDER_SLIDES");
    const grid = reqArray(params, "grid");
    const current = figma.getSlideGrid().reduce((all, row) => all.concat(row.map((s) => s.id)), []);
    const given = [];
    const rows = [];
    for (let r = 0; r < grid.length; r++) {
      if (!Array.isArray(grid[r])) throw badParams("grid[" + r + "] must be an array of slide ids.");
      const row = [];
      for (const id of grid[r]) {
        const s = await getNode(id, "grid[" + r + "][]");
        requireType(s, ["SLIDE"], "reorder it");
        row.push(
          /** @type {SlideNode} */
          s
        );
        given.push(id);
      }
      rows.push(row);
    }
    const missing = current.filter((id) => given.indexOf(id) < 0);
    if (missing.length || given.length !== current.length) {
      throw badParams("The grid must list every slide exactly once; missing: " + (missing.join(", ") || "none") + ", given " + given.length + " of " + current.length + ".");
    }
    figma.setSlideGrid(rows);
    return { success: true, grid: figma.getSlideGrid().map((row) => row.map((s) => s.id)) };
  }
  async function setSlideTransition(params) {
    const slide = await getSlide(params, "SET_SLIDE_TRANSITION");
    const style = optEnum(params, "style", TRANSITIONS, void 0);
    if (!style) throw badParams("Parameter 'style' is required: one of " + TRANSITIONS.join(", ") + ".");
    const duration = optNumber(params, "duration", 0.4, { min: 0.01, max: 10 });
    const curve = optEnum(params, "curve", CURVES, "EASE_IN_AND_OUT");
    slide.setSlideTransition(
      /** @type {any} */
      { style, duration, curve, timing: { type: "ON_CLICK" } }
    );
    return { success: true, slideId: slide.id, transition: slide.getSlideTransition() };
  }
  async function getSlideTransition(params) {
    const slide = await getSlide(params, "GET_SLIDE_TRANSITION");
    return { success: true, slideId: slide.id, transition: slide.getSlideTransition() };
  }
  async function setSlidesViewMode(params) {
    requireSlides("SET_SLIDES_VIEW_MODE");
    const mode = optEnum(
      params,
      "mode",
      /** @type {const} */
      ["grid", "single-slide"],
      void 0
    );
    if (!mode) throw badParams("Parameter 'mode' is required: grid or single-slide.");
    figma.viewport.slidesView = mode;
    return { success: true, mode: figma.viewport.slidesView };
  }
  async function getFocusedSlide() {
    requireSlides("GET_FOCUSED_SLIDE");
    const slide = figma.currentPage.focusedSlide;
    return { success: true, slide: slide ? summarize(slide) : null };
  }
  async function focusSlide(params) {
    const slide = await getSlide(params, "FOCUS_SLIDE");
    figma.currentPage.focusedSlide = slide;
    return { success: true, slide: summarize(slide) };
  }
  async function skipSlide(params) {
    const slide = await getSlide(params, "SKIP_SLIDE");
    if (typeof params.skip !== "boolean") throw badParams("Parameter 'skip' is required: true or false.");
    slide.isSkippedSlide = params.skip;
    return { success: true, slideId: slide.id, isSkipped: slide.isSkippedSlide };
  }
  async function addTextToSlide(params) {
    const slide = await getSlide(params, "ADD_TEXT_TO_SLIDE");
    const text = reqString(params, "text");
    const font = await resolveFont(optString(params, "fontFamily", "Inter") || "Inter", optString(params, "fontStyle", "Regular") || "Regular");
    const node = figma.createText();
    try {
      slide.appendChild(node);
      node.fontName = font;
      node.characters = text;
      node.fontSize = /** @type {number} */
      optNumber(params, "fontSize", 24, { min: 1, max: 1e3 });
      node.x = /** @type {number} */
      optNumber(params, "x", 100);
      node.y = /** @type {number} */
      optNumber(params, "y", 100);
      if (params.color) node.fills = [solidPaint(params.color, void 0, "color")];
      const align = optEnum(
        params,
        "textAlign",
        /** @type {const} */
        ["LEFT", "CENTER", "RIGHT"],
        void 0
      );
      if (align) node.textAlignHorizontal = align;
      const width = optNumber(params, "width", void 0, { min: 1, max: 1e4 });
      if (width) {
        node.textAutoResize = "HEIGHT";
        node.resize(width, node.height);
      }
      const lineHeight = optNumber(params, "lineHeight", void 0, { min: 1, max: 500 });
      if (lineHeight) node.lineHeight = { value: lineHeight, unit: "PIXELS" };
      const spacing = optNumber(params, "letterSpacing", void 0);
      if (spacing !== void 0) node.letterSpacing = { value: spacing, unit: "PIXELS" };
      const textCase = optEnum(
        params,
        "textCase",
        /** @type {const} */
        ["ORIGINAL", "UPPER", "LOWER", "TITLE"],
        void 0
      );
      if (textCase) node.textCase = textCase;
    } catch (err) {
      node.remove();
      throw err;
    }
    return { success: true, node: summarize(node), slideId: slide.id };
  }
  async function addShapeToSlide(params) {
    const slide = await getSlide(params, "ADD_SHAPE_TO_SLIDE");
    const type = optEnum(
      params,
      "shapeType",
      /** @type {const} */
      ["RECTANGLE", "ELLIPSE"],
      void 0
    );
    if (!type) throw badParams("Parameter 'shapeType' is required: RECTANGLE or ELLIPSE.");
    const x = reqNumber(params, "x");
    const y = reqNumber(params, "y");
    const w = reqNumber(params, "width", { min: 1, max: 1e4 });
    const h = reqNumber(params, "height", { min: 1, max: 1e4 });
    const paint = solidPaint(params.fillColor || "#CCCCCC", void 0, "fillColor");
    const node = type === "RECTANGLE" ? figma.createRectangle() : figma.createEllipse();
    slide.appendChild(node);
    node.x = x;
    node.y = y;
    node.resize(w, h);
    node.fills = [paint];
    return { success: true, node: summarize(node), slideId: slide.id };
  }
  async function setSlideBackground(params) {
    const slide = await getSlide(params, "SET_SLIDE_BACKGROUND");
    slide.fills = [solidPaint(reqString(params, "color"), void 0, "color")];
    return { success: true, slideId: slide.id };
  }
  async function getTextStyles() {
    const styles = await figma.getLocalTextStylesAsync();
    return {
      success: true,
      styles: styles.map((s) => ({ id: s.id, name: s.name, key: s.key, fontName: s.fontName, fontSize: s.fontSize, lineHeight: s.lineHeight, letterSpacing: s.letterSpacing, description: s.description }))
    };
  }

  // plugin/src/code/main.js
  var UI_OPTIONS = { width: 300, height: 240, themeColors: true, title: "Design Desktop Bridge" };
  function emit(event) {
    figma.ui.postMessage({ kind: "event", event });
  }
  var diag = installConsoleCapture(emit);
  async function refreshVariables() {
    const snapshot = await variablesSnapshot();
    emit({ type: "VARIABLES_DATA", data: snapshot });
    return snapshot;
  }
  async function reloadUi() {
    return { success: true, reloading: true };
  }
  var handlers = {
    EXECUTE_CODE: executeCode,
    GET_FILE_INFO: getFileInfo,
    RELOAD_UI: reloadUi,
    GET_VARIABLES_DATA: getVariablesData,
    REFRESH_VARIABLES: refreshVariables,
    UPDATE_VARIABLE: updateVariable,
    CREATE_VARIABLE: createVariable,
    DELETE_VARIABLE: deleteVariable,
    RENAME_VARIABLE: renameVariable,
    SET_VARIABLE_DESCRIPTION: setVariableDescription,
    CREATE_VARIABLE_COLLECTION: createCollection,
    DELETE_VARIABLE_COLLECTION: deleteCollection,
    ADD_MODE: addMode,
    RENAME_MODE: renameMode,
    GET_COMPONENT: getComponent,
    GET_LOCAL_COMPONENTS: getLocalComponents,
    DEEP_GET_COMPONENT: deepGetComponent,
    ANALYZE_COMPONENT_SET: analyzeComponentSet,
    SET_NODE_DESCRIPTION: setNodeDescription,
    ADD_COMPONENT_PROPERTY: addComponentProperty,
    EDIT_COMPONENT_PROPERTY: editComponentProperty,
    DELETE_COMPONENT_PROPERTY: deleteComponentProperty,
    INSTANTIATE_COMPONENT: instantiateComponent,
    CREATE_COMPONENT_SET: createComponentSet,
    SET_INSTANCE_PROPERTIES: setInstanceProperties,
    GET_ANNOTATIONS: getAnnotations,
    SET_ANNOTATIONS: setAnnotations,
    GET_ANNOTATION_CATEGORIES: getAnnotationCategories,
    CREATE_SLOT: createSlot,
    GET_SLOTS: getSlots,
    APPEND_TO_SLOT: appendToSlot,
    RESET_SLOT: resetSlot,
    RESIZE_NODE: resizeNode,
    MOVE_NODE: moveNode,
    SET_NODE_FILLS: setFills,
    SET_NODE_STROKES: setStrokes,
    SET_NODE_OPACITY: setOpacity,
    SET_NODE_CORNER_RADIUS: setCornerRadius,
    SET_IMAGE_FILL: setImageFill,
    CLONE_NODE: cloneNode,
    DELETE_NODE: deleteNode,
    RENAME_NODE: renameNode,
    CREATE_CHILD_NODE: createChildNode,
    SET_TEXT_CONTENT: setTextContent,
    CAPTURE_SCREENSHOT: captureScreenshot,
    LINT_DESIGN: lintDesign,
    AUDIT_COMPONENT_ACCESSIBILITY: auditComponentAccessibility,
    CREATE_STICKY: createSticky,
    CREATE_STICKIES: createStickies,
    CREATE_CONNECTOR: createConnector,
    CREATE_SHAPE_WITH_TEXT: createShapeWithText,
    CREATE_SECTION: createSection,
    CREATE_TABLE: createTable,
    CREATE_CODE_BLOCK: createCodeBlock,
    GET_BOARD_CONTENTS: getBoardContents,
    GET_CONNECTIONS: getConnections,
    LIST_SLIDES: listSlides,
    GET_SLIDE_CONTENT: getSlideContent,
    CREATE_SLIDE: createSlide,
    DELETE_SLIDE: deleteSlide,
    DUPLICATE_SLIDE: duplicateSlide,
    GET_SLIDE_GRID: getSlideGrid,
    REORDER_SLIDES: reorderSlides,
    SET_SLIDE_TRANSITION: setSlideTransition,
    GET_SLIDE_TRANSITION: getSlideTransition,
    SET_SLIDES_VIEW_MODE: setSlidesViewMode,
    GET_FOCUSED_SLIDE: getFocusedSlide,
    FOCUS_SLIDE: focusSlide,
    SKIP_SLIDE: skipSlide,
    ADD_TEXT_TO_SLIDE: addTextToSlide,
    ADD_SHAPE_TO_SLIDE: addShapeToSlide,
    SET_SLIDE_BACKGROUND: setSlideBackground,
    GET_TEXT_STYLES: getTextStyles
  };
  var dispatcher = new Dispatcher(handlers);
  var watching = false;
  function onUiReady() {
    figma.ui.postMessage({ kind: "init", pluginVersion: PLUGIN_VERSION, fileInfo: fileInfo() });
    if (!watching) {
      watching = true;
      watchDocument(emit, diag.warn);
    }
    selectionEvent(emit);
    variablesSnapshot().then((snapshot) => emit({ type: "VARIABLES_DATA", data: snapshot })).catch((err) => diag.warn("[design bridge] variables snapshot failed:", err));
  }
  function onMessage(msg) {
    if (!msg || typeof msg !== "object") return;
    if (msg.kind === "ui-ready") {
      onUiReady();
    } else if (msg.kind === "command") {
      const route = String(msg.route);
      const command = msg.command;
      dispatcher.run(command, route).then((reply) => {
        if (!reply) return;
        const then = command && command.method === "RELOAD_UI" && !reply.error ? "reload" : void 0;
        figma.ui.postMessage({ kind: "reply", route, reply, then });
      });
    } else if (msg.kind === "reload") {
      figma.showUI(__html__, UI_OPTIONS);
    } else if (msg.kind === "notify" && typeof msg.text === "string") {
      figma.notify(msg.text.slice(0, 200));
    }
  }
  figma.showUI(__html__, UI_OPTIONS);
  figma.ui.onmessage = onMessage;
})();
