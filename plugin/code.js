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
  function cutText(text, max) {
    if (text.length <= max) return text;
    const last = text.charCodeAt(max - 1);
    return text.slice(0, last >= 55296 && last <= 56319 ? max - 1 : max);
  }
  function capString(text, max) {
    if (text.length <= max) return text;
    const kept = cutText(text, max);
    return kept + "… [" + (text.length - kept.length) + " more characters]";
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
  function conflict(message) {
    return new PluginError("conflict", message);
  }
  function readOnly(what) {
    return new PluginError(
      "read_only",
      what + " comes from a library and cannot be edited in this file. Edit it in the library's file and publish, or create a local copy and change that."
    );
  }
  function unsupported(what, editor) {
    return new PluginError(
      "unsupported",
      what + " is only available in " + editor + " files; this file is a '" + figma.editorType + "' file. Open the plugin in " + editor + " and retry."
    );
  }
  function errorText(err) {
    const e = (
      /** @type {any} */
      err
    );
    if (e instanceof PluginError) return e.message;
    return e && typeof e.message === "string" ? e.message : String(err);
  }

  // plugin/src/code/dispatch.js
  var PROGRESS_EVERY_ITEMS = 10;
  var PROGRESS_EVERY_MS = 250;
  var PROGRESS_MIN_TOTAL = 20;
  var CANCEL_GRACE_MS = 1e3;
  var REFUSALS = /* @__PURE__ */ new Set([
    "bad_params",
    "not_found",
    "conflict",
    "read_only",
    "wrong_node_type",
    "font_unavailable",
    "unsupported",
    "cancelled",
    "syntax_error",
    "empty"
  ]);
  function refused(outcome) {
    if (outcome instanceof PluginError) return REFUSALS.has(outcome.code);
    return Boolean(outcome && outcome.success === false && REFUSALS.has(outcome.code));
  }
  var Dispatcher = class {
    /** @param {Record<string, Handler>} handlers @param {Options} [options] */
    constructor(handlers2, options) {
      const opts = options || {};
      this.handlers = handlers2;
      this.writes = new Set(opts.writes || []);
      this.writes.forEach((m) => {
        if (!Object.prototype.hasOwnProperty.call(handlers2, m)) throw new Error("Write method " + m + " has no handler");
      });
      this.commitUndo = opts.commitUndo || (() => void 0);
      this.onProgress = opts.onProgress || (() => void 0);
      this.inFlight = /* @__PURE__ */ new Map();
      this.writeTail = Promise.resolve();
    }
    /** @param {string} method */
    isWrite(method) {
      return this.writes.has(method);
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
      const ctx = {
        id,
        route,
        cancelled: false,
        onCancel: (fn) => cancelHooks.push(fn),
        progress: this.progressReporter(id, route, () => ctx.cancelled)
      };
      let abandon = () => void 0;
      const abandoned = new Promise((_, reject) => {
        abandon = reject;
      });
      this.inFlight.set(key, { ctx, cancelHooks, abandon });
      try {
        const work = this.isWrite(method) ? this.write(handler, params, ctx) : handler(params, ctx);
        const result = await Promise.race([work, abandoned]);
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
    /**
     * Runs a write after the writes before it, and commits its undo step when its handler settles (unless refused). A write cancelled
     * while it waits never starts (and commits nothing); one cancelled while it runs lets the next start once it has
     * settled, or after CANCEL_GRACE_MS.
     * @param {Handler} handler @param {any} params @param {CommandContext} ctx
     */
    write(handler, params, ctx) {
      const turn = this.writeTail;
      let finished = () => void 0;
      const mine = new Promise((resolve) => {
        finished = () => resolve(void 0);
      });
      this.writeTail = turn.then(() => mine);
      ctx.onCancel(() => setTimeout(finished, CANCEL_GRACE_MS));
      return turn.then(() => {
        if (ctx.cancelled) {
          finished();
          throw new PluginError("cancelled", "Command " + ctx.id + " was cancelled before it started; nothing changed.");
        }
        const settle = (outcome) => {
          if (!refused(outcome)) this.commitUndo();
          finished();
        };
        return Promise.resolve().then(() => handler(params, ctx)).then(
          (result) => {
            settle(result);
            return result;
          },
          (err) => {
            settle(err);
            throw err;
          }
        );
      });
    }
    /**
     * @param {string} id @param {string} route @param {() => boolean} cancelled
     * @returns {(done: number, total: number, message: string) => Promise<void>}
     */
    progressReporter(id, route, cancelled) {
      let lastDone = 0;
      let lastAt = Date.now();
      return async (done, total, message) => {
        if (cancelled()) throw new PluginError("cancelled", "Command " + id + " was cancelled by the server.");
        if (total < PROGRESS_MIN_TOTAL || done <= lastDone) return;
        const now = Date.now();
        if (done < total && done - lastDone < PROGRESS_EVERY_ITEMS && now - lastAt < PROGRESS_EVERY_MS) return;
        lastDone = done;
        lastAt = now;
        this.onProgress(route, { id, progress: done, total, message });
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (cancelled()) throw new PluginError("cancelled", "Command " + id + " was cancelled by the server.");
      };
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
    function collect(changes) {
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
    figma.loadAllPagesAsync().then(() => figma.on("documentchange", (event) => collect(event.documentChanges))).catch((err) => {
      diag2("[design bridge] whole-document change events unavailable, watching the current page only:", err);
      figma.currentPage.on("nodechange", (event) => collect(event.nodeChanges));
    });
  }

  // plugin/src/shared/contract.js
  var EXECUTE_DEFAULT_MS = 5e3;
  var EXECUTE_MAX_MS = 3e4;
  var MAX_CODE_CHARS = 2e5;
  var MAX_STICKIES = 200;
  var MAX_ARRANGED = 500;

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
  var COLOR_FORMS = "#RGB, #RGBA, #RRGGBB, #RRGGBBAA, rgb(r, g, b) or rgba(r, g, b, a)";
  function parseColorString(value, what) {
    const label2 = what || "color";
    if (typeof value !== "string") throw badParams("'" + label2 + `' must be a colour string such as "#1E88E5" (` + COLOR_FORMS + ").");
    const text = value.trim();
    if (/^rgba?\(/i.test(text)) return parseRgb(text, label2);
    let hex = text.replace(/^#/, "");
    if (!/^[0-9a-fA-F]+$/.test(hex) || [3, 4, 6, 8].indexOf(hex.length) < 0) {
      throw badParams("'" + label2 + "' is not a hex colour: " + JSON.stringify(value) + ". Use " + COLOR_FORMS + ".");
    }
    if (hex.length <= 4) {
      hex = hex.split("").map((c) => c + c).join("");
    }
    const channel = (i) => parseInt(hex.slice(i, i + 2), 16) / 255;
    return { r: channel(0), g: channel(2), b: channel(4), a: hex.length === 8 ? channel(6) : 1 };
  }
  function parseRgb(text, label2) {
    const fail = () => badParams("'" + label2 + "' is not a valid rgb()/rgba() colour: " + JSON.stringify(text) + ". Use " + COLOR_FORMS + ".");
    const m = /^rgba?\(\s*([^)]*?)\s*\)$/i.exec(text);
    if (!m) throw fail();
    const slash = m[1].split("/");
    if (slash.length > 2) throw fail();
    const parts = slash[0].trim().split(/\s*,\s*|\s+/).filter((p) => p !== "");
    if (slash.length === 2) parts.push(slash[1].trim());
    if (parts.length !== 3 && parts.length !== 4) throw fail();
    const read = (part, scale) => {
      const pct = /%$/.test(part);
      const n = Number(pct ? part.slice(0, -1) : part);
      if (part === "" || !isFinite(n)) throw fail();
      const x = pct ? n / 100 : n / scale;
      if (x < 0 || x > 1) throw fail();
      return x;
    };
    return { r: read(parts[0], 255), g: read(parts[1], 255), b: read(parts[2], 255), a: parts.length === 4 ? read(parts[3], 1) : 1 };
  }
  function parseColor(value, what) {
    if (typeof value === "string") return parseColorString(value, what);
    const v = (
      /** @type {any} */
      value
    );
    const unit = (c) => typeof c === "number" && c >= 0 && c <= 1;
    if (v && typeof v === "object" && [v.r, v.g, v.b].every(unit) && (v.a === void 0 || unit(v.a))) {
      return { r: v.r, g: v.g, b: v.b, a: typeof v.a === "number" ? v.a : 1 };
    }
    throw badParams("'" + (what || "color") + `' must be a hex colour string ("#RRGGBB"), rgb()/rgba(), or {r,g,b,a} with channels 0..1.`);
  }
  function toHex(c) {
    const part = (x) => ("0" + Math.round(Math.max(0, Math.min(1, x)) * 255).toString(16)).slice(-2);
    const alpha = c.a === void 0 || c.a >= 1 ? "" : part(c.a);
    return ("#" + part(c.r) + part(c.g) + part(c.b) + alpha).toUpperCase();
  }
  function luminance(c) {
    const lin = (x) => x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
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

  // plugin/src/code/nodes.js
  async function getNode(id, param) {
    const key = param || "nodeId";
    if (typeof id !== "string" || id.length === 0) {
      throw badParams("Parameter '" + key + `' is required: a node id such as "12:34".`);
    }
    const node = await figma.getNodeByIdAsync(id);
    if (!node || node.removed) {
      throw notFound(
        "Node " + id + " was not found in this file (" + figma.root.name + "). Node ids are specific to a file and session and go stale: look the node up again (design_get_selection, design_get_file_data, or design_execute with figma.currentPage.findAll) and retry with the new id."
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
  async function mainComponentOnly(node, action) {
    if (node.type === "INSTANCE") {
      const main = await /** @type {InstanceNode} */
      node.getMainComponentAsync();
      const owner = main && main.parent && main.parent.type === "COMPONENT_SET" ? main.parent : main;
      throw new PluginError(
        "wrong_node_type",
        "Cannot " + action + " on instance " + node.id + " (" + node.name + "): that belongs on its main component" + (owner ? " '" + owner.name + "' (" + owner.id + ")" + (owner.remote ? ", which comes from a library and is edited there" : ", so use that id") : "") + "."
      );
    }
    requireType(node, ["COMPONENT", "COMPONENT_SET"], action);
    const component = (
      /** @type {ComponentNode | ComponentSetNode} */
      node
    );
    if (component.remote) throw readOnly("Component '" + component.name + "' (" + component.id + ")");
    return component;
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
  function describePaints(paints2) {
    if (!Array.isArray(paints2)) return paints2 === void 0 ? void 0 : "mixed";
    return paints2.map((p) => {
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

  // plugin/src/code/methods/layers.js
  var READ_MAX_CHARS = 256 * 1024;
  var READ_MAX_NODES = 5e3;
  async function readLayers(params) {
    const depth = (
      /** @type {number} */
      optNumber(params, "depth", 6, { min: 0, max: 50 })
    );
    const maxNodes = (
      /** @type {number} */
      optNumber(params, "maxNodes", 1e3, { min: 1, max: READ_MAX_NODES })
    );
    const scope = (
      /** @type {string} */
      optEnum(params, "scope", ["auto", "selection"], "auto")
    );
    const start = startPath(params.start);
    const found = await rootsOf(params.rootId, scope);
    const key = rootsKey(found.roots);
    const expected = optString(params, "rootsKey", void 0);
    if (expected !== void 0 && expected !== key) {
      throw new PluginError(
        "stale_cursor",
        "The layers this read started from changed (" + found.scope + " of page '" + figma.currentPage.name + "'): read again from the start, without a cursor."
      );
    }
    const out = { success: true, scope: found.scope, rootsKey: key, roots: found.roots.length, ancestors: [], nodes: [], next: null };
    if (!found.roots.length) return out;
    const walk2 = resume(found.roots, start, out.ancestors);
    let chars = 0;
    while (walk2.length) {
      const frame = walk2[walk2.length - 1];
      if (frame.index >= frame.siblings.length) {
        walk2.pop();
        continue;
      }
      if (out.nodes.length >= maxNodes || chars >= READ_MAX_CHARS) {
        out.next = walk2.map((f, level) => level === walk2.length - 1 ? f.index : f.index - 1);
        break;
      }
      const node = frame.siblings[frame.index];
      const rec = record(node, frame.index, walk2.length - 1, frame.box);
      frame.index += 1;
      const kids = childrenOf(node);
      if (kids && kids.length && walk2.length - 1 < depth) {
        walk2.push({ siblings: kids, index: 0, box: boxOf(node) });
      } else if (kids && kids.length) {
        rec.more = kids.length;
      }
      chars += JSON.stringify(rec).length + 1;
      out.nodes.push(rec);
    }
    return out;
  }
  function startPath(value) {
    if (value === void 0 || value === null) return [];
    if (!Array.isArray(value) || value.length > 51 || !value.every((i) => Number.isInteger(i) && i >= 0)) {
      throw badParams("Parameter 'start' must be a list of child indexes, as a previous READ_LAYERS answered in 'next'.");
    }
    return value;
  }
  async function rootsOf(rootId, scope) {
    if (rootId !== void 0 && rootId !== null) {
      const node = await getNode(rootId, "rootId");
      if (node.type === "DOCUMENT") throw badParams("Node " + node.id + " is the document: name a page or a layer.");
      return { roots: [node], scope: "node" };
    }
    const selection = figma.currentPage.selection;
    if (scope === "selection" || selection.length) return { roots: selection.slice(), scope: "selection" };
    return { roots: figma.currentPage.children.slice(), scope: "page" };
  }
  function rootsKey(roots) {
    let hash = 2166136261;
    const text = figma.currentPage.id + "|" + roots.length + "|" + roots.map((r) => r.id).join(",");
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 16777619) >>> 0;
    }
    return hash.toString(16);
  }
  function resume(roots, start, ancestors) {
    const walk2 = [{ siblings: roots, index: start.length ? start[0] : 0, box: null }];
    for (let level = 0; level < start.length - 1; level++) {
      const frame = walk2[level];
      const node = frame.siblings[frame.index];
      const kids = node && childrenOf(node);
      if (!kids) throw staleStart();
      ancestors.push(record(node, frame.index, level, frame.box));
      frame.index += 1;
      walk2.push({ siblings: kids, index: start[level + 1], box: boxOf(node) });
    }
    const last = walk2[walk2.length - 1];
    if (last.index > last.siblings.length) throw staleStart();
    return walk2;
  }
  function staleStart() {
    return new PluginError("stale_cursor", "The position to read from is no longer in this file's tree: read again from the start, without a cursor.");
  }
  function childrenOf(node) {
    return "children" in node && node.children ? node.children : null;
  }
  function boxOf(node) {
    const n = (
      /** @type {any} */
      node
    );
    const b = n.absoluteBoundingBox;
    return b ? { x: b.x, y: b.y, width: b.width, height: b.height } : { x: n.x || 0, y: n.y || 0, width: n.width || 0, height: n.height || 0 };
  }
  function rootBox(root) {
    const parent = root.parent;
    return parent && parent.type !== "PAGE" && parent.type !== "DOCUMENT" ? boxOf(parent) : { x: 0, y: 0 };
  }
  function record(node, index, depth, box) {
    const n = (
      /** @type {any} */
      node
    );
    const b = boxOf(node);
    const parentBox = box || rootBox(node);
    const rec = { id: node.id, name: node.name, type: node.type, d: depth, i: index, x: b.x - parentBox.x, y: b.y - parentBox.y, w: b.width, h: b.height };
    if (typeof n.width === "number") rec.w = n.width;
    if (typeof n.height === "number") rec.h = n.height;
    if (n.visible === false) rec.hidden = true;
    return rec;
  }

  // plugin/src/code/variable-values.js
  var TYPES = (
    /** @type {const} */
    ["COLOR", "FLOAT", "STRING", "BOOLEAN"]
  );
  function referenceName(text) {
    const m = /^\{\s*([^{}]+?)\s*\}$/.exec(text);
    return m ? m[1].split(".").join("/") : null;
  }
  function referenceTo(name) {
    return name.indexOf(".") < 0 && !/[{}]/.test(name) ? "{" + name.split("/").join(".") + "}" : null;
  }
  function parseValue(type, raw, where) {
    if (typeof raw === "string") {
      const text = raw.trim();
      if (text.indexOf("VariableID:") === 0) return { aliasId: text };
      const ref = referenceName(text);
      if (ref !== null) return { aliasName: ref };
    }
    const v = (
      /** @type {any} */
      raw
    );
    if (v && typeof v === "object" && v.type === "VARIABLE_ALIAS") {
      if (typeof v.id !== "string" || !v.id) throw badParams(where + `: an alias object needs an 'id' such as "VariableID:1:2".`);
      return { aliasId: v.id };
    }
    const fail = (expected) => badParams(where + ": value " + JSON.stringify(raw) + " does not fit a " + type + " variable: expected " + expected + ".");
    if (type === "COLOR") {
      try {
        return { value: parseColor(raw, "value") };
      } catch (err) {
        throw fail(
          'a colour as hex ("#1E88E5", "#1E88E580", #RGB, #RGBA), rgb()/rgba(), or an alias ("VariableID:…" or "{group.name}")'
        );
      }
    }
    if (type === "FLOAT") {
      const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
      if (typeof n !== "number" || !isFinite(n)) throw fail("a number");
      return { value: n };
    }
    if (type === "BOOLEAN") {
      if (typeof raw === "boolean") return { value: raw };
      if (raw === "true" || raw === "false") return { value: raw === "true" };
      throw fail("true or false");
    }
    if (typeof raw !== "string") throw fail("a string");
    return { value: raw };
  }
  function compactValue(value) {
    const v = (
      /** @type {any} */
      value
    );
    if (v === void 0 || v === null) return null;
    if (typeof v === "object" && v.type === "VARIABLE_ALIAS") return String(v.id);
    if (typeof v === "object" && typeof v.r === "number") return toHex(v);
    return v;
  }
  function aliasLoop(fromKey, modeId, toKey, lookup) {
    if (toKey === fromKey) return [fromKey, fromKey];
    const from = lookup(fromKey);
    const to = lookup(toKey);
    if (!to) return null;
    const seen = /* @__PURE__ */ new Set();
    const path = [fromKey];
    function visit(key, node, modes) {
      path.push(key);
      for (const mode of modes) {
        const state = key + "\0" + mode;
        if (seen.has(state)) continue;
        seen.add(state);
        const next = node.alias(mode);
        if (next === null) continue;
        if (next === fromKey) {
          path.push(next);
          return true;
        }
        const nextNode = lookup(next);
        if (nextNode && visit(next, nextNode, nextNode.collection === node.collection ? [mode] : nextNode.modes)) return true;
      }
      path.pop();
      return false;
    }
    const startModes = from && from.collection === to.collection ? [modeId] : to.modes;
    return visit(toKey, to, startModes) ? path : null;
  }
  function describeLoop(loop, label2) {
    return loop.map((k) => label2 ? label2(k) : k).join(" → ");
  }

  // plugin/src/code/methods/variables.js
  var MAX_SETUP_TOKENS = 500;
  var LIST_HINT = "List them with design_get_variables and retry with a current id.";
  async function getVariable(id, param) {
    const key = param || "variableId";
    if (typeof id !== "string" || !id) throw badParams("Parameter '" + key + `' is required: an id such as "VariableID:1:2".`);
    const v = await figma.variables.getVariableByIdAsync(id);
    if (!v) throw notFound("Variable " + id + " (" + key + ") was not found in this file. " + LIST_HINT);
    return v;
  }
  async function getCollection(id) {
    if (typeof id !== "string" || !id) throw badParams(`Parameter 'collectionId' is required: an id such as "VariableCollectionId:1:0".`);
    const c = await figma.variables.getVariableCollectionByIdAsync(id);
    if (!c) throw notFound("Variable collection " + id + " was not found in this file. " + LIST_HINT);
    return c;
  }
  function editableVariable(v) {
    if (v.remote) throw readOnly("Variable '" + v.name + "' (" + v.id + ")");
    return v;
  }
  function editableCollection(c) {
    if (c.remote) throw readOnly("Variable collection '" + c.name + "' (" + c.id + ")");
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
  async function readVariables(params) {
    const offset = (
      /** @type {number} */
      optNumber(params, "offset", 0, { min: 0 })
    );
    const maxItems = (
      /** @type {number} */
      optNumber(params, "maxItems", 1e3, { min: 1, max: READ_MAX_NODES })
    );
    const all = await figma.variables.getLocalVariablesAsync();
    const out = { success: true, total: all.length, offset, variables: [], next: null };
    if (offset === 0) {
      out.variableCollections = (await figma.variables.getLocalVariableCollectionsAsync()).map((c) => {
        const d = (
          /** @type {Record<string, any>} */
          describeCollection(c)
        );
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
  async function variablesByName(collectionId) {
    const all = await figma.variables.getLocalVariablesAsync();
    const out = /* @__PURE__ */ new Map();
    all.forEach((v) => {
      if (v.variableCollectionId === collectionId) out.set(v.name, v);
    });
    return out;
  }
  async function aliasTarget(parsed, type, names, collectionName, where) {
    let target;
    if ("aliasId" in parsed) {
      target = await figma.variables.getVariableByIdAsync(parsed.aliasId);
      if (!target) throw notFound(where + ": the alias target " + parsed.aliasId + " was not found in this file. " + LIST_HINT);
    } else {
      target = names.get(parsed.aliasName);
      if (!target) {
        throw notFound(
          where + ": no variable named '" + parsed.aliasName + "' in collection '" + collectionName + `' for the alias. References like {color.blue.500} name a variable of the same collection (color/blue/500); use "VariableID:…" for one in another collection.`
        );
      }
    }
    if (target.resolvedType !== type) {
      throw badParams(
        where + ": the alias target '" + target.name + "' is a " + target.resolvedType + " variable; a " + type + " variable can only alias a " + type + " variable."
      );
    }
    return target;
  }
  async function aliasGraph(pending) {
    const variables = await figma.variables.getLocalVariablesAsync();
    const collections = await figma.variables.getLocalVariableCollectionsAsync();
    const modes = /* @__PURE__ */ new Map();
    collections.forEach((c) => modes.set(c.id, c.modes.map((m) => m.modeId)));
    const byId = /* @__PURE__ */ new Map();
    variables.forEach((v) => byId.set(v.id, v));
    return (key) => {
      const v = byId.get(key);
      if (!v) return null;
      const values = v.valuesByMode;
      const over2 = pending.get(key);
      return {
        collection: v.variableCollectionId,
        modes: modes.get(v.variableCollectionId) || Object.keys(values),
        alias: (modeId) => {
          if (over2 && over2.has(modeId)) return (
            /** @type {string | null} */
            over2.get(modeId)
          );
          const value = (
            /** @type {any} */
            values[modeId]
          );
          return value && typeof value === "object" && value.type === "VARIABLE_ALIAS" ? value.id : null;
        }
      };
    };
  }
  async function refuseAliasLoops(changes) {
    if (!changes.some((c) => c[2] !== null)) return;
    const pending = /* @__PURE__ */ new Map();
    changes.forEach(([v, modeId, target]) => {
      if (!pending.has(v.id)) pending.set(v.id, /* @__PURE__ */ new Map());
      pending.get(v.id).set(modeId, target);
    });
    const lookup = await aliasGraph(pending);
    const names = /* @__PURE__ */ new Map();
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
  function findMode(collection, key, where) {
    const mode = collection.modes.find((m) => m.modeId === key) || collection.modes.find((m) => m.name === key);
    if (!mode) {
      throw notFound(
        where + ": mode " + JSON.stringify(key) + " is not a mode of collection '" + collection.name + "'. Its modes: " + collection.modes.map((m) => m.modeId + " (" + m.name + ")").join(", ") + "."
      );
    }
    return mode;
  }
  async function resolveValue(type, raw, collection, names, where) {
    const parsed = parseValue(type, raw, where);
    if ("value" in parsed) return { value: parsed.value, target: null };
    const target = await aliasTarget(parsed, type, names, collection.name, where);
    return { value: figma.variables.createVariableAlias(target), target };
  }
  function label(v, where) {
    return where + " ('" + v.name + "')";
  }
  async function getVariablesData() {
    return variablesSnapshot();
  }
  async function updateVariable(params) {
    const variable = editableVariable(await getVariable(params.variableId));
    const hasValue = "value" in params;
    const description = optString(params, "description");
    if (!hasValue && description === void 0) throw badParams("Give 'value' (with 'modeId', default: the first mode), 'description', or both.");
    let change = null;
    if (hasValue) {
      const collection = await getCollection(variable.variableCollectionId);
      const mode = findMode(collection, optString(params, "modeId", collection.defaultModeId), "UPDATE_VARIABLE");
      const where = label(variable, "value");
      const resolved = await resolveValue(variable.resolvedType, params.value, collection, await variablesByName(collection.id), where);
      await refuseAliasLoops([[variable, mode.modeId, resolved.target ? resolved.target.id : null, where]]);
      change = { modeId: mode.modeId, value: resolved.value };
    }
    const out = { success: true };
    const previousDescription = variable.description;
    try {
      if (description !== void 0) {
        variable.description = description;
        out.previousDescription = previousDescription;
      }
      if (change) {
        const previous = compactValue(variable.valuesByMode[change.modeId]);
        variable.setValueForMode(change.modeId, change.value);
        Object.assign(out, { modeId: change.modeId, previous, value: compactValue(variable.valuesByMode[change.modeId]) });
      }
    } catch (err) {
      if (variable.description !== previousDescription) variable.description = previousDescription;
      throw new PluginError("plugin_api_error", "UPDATE_VARIABLE failed: " + errorText(err) + ". Nothing was changed.", { rolledBack: true });
    }
    out.variable = describeVariable(variable);
    return out;
  }
  function refuseTakenName(names, name, collectionName, where, exceptId) {
    const taken = names.get(name);
    if (taken && taken.id !== exceptId) {
      throw conflict(where + ": collection '" + collectionName + "' already has a variable named '" + name + "' (" + taken.id + "). Pick another name or update that variable.");
    }
  }
  function checkScopes(scopes, where) {
    if (scopes === void 0 || scopes === null) return void 0;
    if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== "string" || !s)) {
      throw badParams(where + `: 'scopes' must be an array of scope names such as ["ALL_FILLS", "STROKE_COLOR"].`);
    }
    return (
      /** @type {VariableScope[]} */
      scopes
    );
  }
  async function createVariable(params) {
    const name = reqString(params, "name");
    const collection = editableCollection(await getCollection(params.collectionId));
    const type = optEnum(params, "resolvedType", TYPES, void 0);
    if (!type) throw badParams("Parameter 'resolvedType' is required: one of " + TYPES.join(", ") + ".");
    const description = optString(params, "description");
    const scopes = checkScopes(params.scopes, "CREATE_VARIABLE");
    const names = await variablesByName(collection.id);
    refuseTakenName(names, name, collection.name, "CREATE_VARIABLE");
    const given = optObject(params, "valuesByMode") || {};
    const values = [];
    for (const key of Object.keys(given)) {
      const mode = findMode(collection, key, "valuesByMode");
      const resolved = await resolveValue(type, given[key], collection, names, "valuesByMode['" + key + "'] of '" + name + "'");
      values.push([mode.modeId, resolved.value]);
    }
    const variable = figma.variables.createVariable(name, collection, type);
    try {
      if (description !== void 0) variable.description = description;
      if (scopes) variable.scopes = scopes;
      values.forEach(([modeId, value]) => variable.setValueForMode(modeId, value));
    } catch (err) {
      variable.remove();
      throw new PluginError("plugin_api_error", "CREATE_VARIABLE failed: " + errorText(err) + ". Nothing was created.", { rolledBack: true });
    }
    return { success: true, variable: describeVariable(variable) };
  }
  function recreatable(v) {
    const values = {};
    const byMode = v.valuesByMode;
    Object.keys(byMode).forEach((m) => values[m] = compactValue(byMode[m]));
    const out = {
      id: v.id,
      name: v.name,
      resolvedType: v.resolvedType,
      description: v.description,
      scopes: v.scopes.slice(),
      hiddenFromPublishing: v.hiddenFromPublishing,
      collectionId: v.variableCollectionId,
      valuesByMode: values
    };
    const syntax = (
      /** @type {any} */
      v.codeSyntax
    );
    if (syntax && Object.keys(syntax).length) out.codeSyntax = Object.assign({}, syntax);
    return out;
  }
  async function deleteVariable(params) {
    const variable = editableVariable(await getVariable(params.variableId));
    const info = recreatable(variable);
    variable.remove();
    return { success: true, deleted: info };
  }
  async function renameVariable(params) {
    const variable = editableVariable(await getVariable(params.variableId));
    const newName = reqString(params, "newName");
    const collection = await getCollection(variable.variableCollectionId);
    refuseTakenName(await variablesByName(collection.id), newName, collection.name, "RENAME_VARIABLE", variable.id);
    const oldName = variable.name;
    variable.name = newName;
    return { success: true, oldName, newName: variable.name, variable: describeVariable(variable) };
  }
  async function setVariableDescription(params) {
    const variable = editableVariable(await getVariable(params.variableId));
    if (typeof params.description !== "string") throw badParams("Parameter 'description' is required and must be a string.");
    const previous = variable.description;
    variable.description = params.description;
    return { success: true, previousDescription: previous, variable: describeVariable(variable) };
  }
  async function refuseTakenCollectionName(name, where) {
    const existing = (await figma.variables.getLocalVariableCollectionsAsync()).find((c) => c.name === name);
    if (existing) {
      throw conflict(where + ": a variable collection named '" + name + "' already exists (" + existing.id + "). Pick another name, or add to that collection.");
    }
  }
  function checkModeNames(names, where) {
    const seen = {};
    names.forEach((m, i) => {
      if (typeof m !== "string" || !m.trim()) throw badParams(where + "[" + i + "] must be a non-empty mode name.");
      if (seen[m]) throw conflict(where + ": mode name '" + m + "' is given twice; mode names must differ.");
      seen[m] = true;
    });
    return (
      /** @type {string[]} */
      names
    );
  }
  async function createCollection(params) {
    const name = reqString(params, "name");
    const initial = optString(params, "initialModeName");
    const extra = params.additionalModes === void 0 ? [] : reqArray(params, "additionalModes");
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
        "Could not add the modes (" + errorText(err) + "); the collection was not kept. Free plans allow few modes per collection: try fewer modes.",
        { rolledBack: true }
      );
    }
    return { success: true, collection: describeCollection(collection) };
  }
  async function recreateCollection(collection) {
    const all = (await figma.variables.getLocalVariablesAsync()).filter((v) => v.variableCollectionId === collection.id);
    const inside = /* @__PURE__ */ new Map();
    all.forEach((v) => inside.set(v.id, v.name));
    const modeName2 = (id) => (collection.modes.find((m) => m.modeId === id) || { name: id }).name;
    const tokens = all.slice(0, MAX_SETUP_TOKENS).map((v) => {
      const values = {};
      const byMode = v.valuesByMode;
      Object.keys(byMode).forEach((m) => {
        const value = (
          /** @type {any} */
          byMode[m]
        );
        const targetName = value && value.type === "VARIABLE_ALIAS" ? inside.get(value.id) : void 0;
        const ref = targetName === void 0 ? null : referenceTo(targetName);
        values[modeName2(m)] = ref !== null ? ref : compactValue(value);
      });
      const token = { name: v.name, resolvedType: v.resolvedType, values };
      if (v.description) token.description = v.description;
      if (v.scopes.length !== 1 || v.scopes[0] !== "ALL_SCOPES") token.scopes = v.scopes.slice();
      return token;
    });
    return {
      collectionName: collection.name,
      modes: collection.modes.map((m) => m.name),
      tokens,
      omitted: all.length - tokens.length
    };
  }
  async function deleteCollection(params) {
    const collection = editableCollection(await getCollection(params.collectionId));
    const info = {
      id: collection.id,
      name: collection.name,
      variableCount: collection.variableIds.length,
      modes: collection.modes.map((m) => ({ modeId: m.modeId, name: m.name })),
      recreate: await recreateCollection(collection)
    };
    collection.remove();
    return { success: true, deleted: info };
  }
  function refuseTakenModeName(collection, name, where, exceptId) {
    const taken = collection.modes.find((m) => m.name === name && m.modeId !== exceptId);
    if (taken) throw conflict(where + ": collection '" + collection.name + "' already has a mode named '" + name + "' (" + taken.modeId + ").");
  }
  async function addMode(params) {
    const collection = editableCollection(await getCollection(params.collectionId));
    const modeName2 = reqString(params, "modeName");
    refuseTakenModeName(collection, modeName2, "ADD_MODE");
    let modeId;
    try {
      modeId = collection.addMode(modeName2);
    } catch (err) {
      throw new PluginError(
        "plugin_api_error",
        "Could not add mode '" + modeName2 + "': " + errorText(err) + ". The plan of this file may limit modes per collection."
      );
    }
    return { success: true, modeId, modeName: modeName2, collection: describeCollection(collection) };
  }
  async function renameMode(params) {
    const collection = editableCollection(await getCollection(params.collectionId));
    const modeId = reqString(params, "modeId");
    const newName = reqString(params, "newName");
    const mode = collection.modes.find((m) => m.modeId === modeId);
    if (!mode) {
      throw notFound(
        "Mode " + modeId + " is not in collection '" + collection.name + "'. Its modes: " + collection.modes.map((m) => m.modeId + " (" + m.name + ")").join(", ") + "."
      );
    }
    refuseTakenModeName(collection, newName, "RENAME_MODE", modeId);
    const oldName = mode.name;
    collection.renameMode(modeId, newName);
    return { success: true, modeId, oldName, newName, collection: describeCollection(collection) };
  }

  // plugin/src/code/chunks.js
  var SLICE_MS = 30;
  var resumedAt = Date.now();
  async function yieldToEditor() {
    await new Promise((resolve) => setTimeout(resolve, 0));
    resumedAt = Date.now();
  }
  function sliceUsed() {
    return Date.now() - resumedAt >= SLICE_MS;
  }
  var Pacer = class {
    /** @param {CommandContext} ctx @param {number} total the items `step` will count */
    constructor(ctx, total) {
      this.ctx = ctx;
      this.total = total;
      this.done = 0;
      this.slices = 0;
    }
    /**
     * Counts one item done; at the end of a slice reports progress with `message(done, total)` and yields.
     * @param {(done: number, total: number) => string} message
     */
    async step(message) {
      this.done++;
      if (this.done < this.total && !sliceUsed()) return;
      await this.ctx.progress(this.done, this.total, message(this.done, this.total));
      await this.pause();
    }
    /** For work that is not counted (checking the items before any change): yields at the end of a slice. */
    async check() {
      if (sliceUsed()) await this.pause();
    }
    async pause() {
      await yieldToEditor();
      this.slices++;
      if (this.ctx.cancelled) throw new PluginError("cancelled", "Command " + this.ctx.id + " was cancelled by the server.");
    }
  };

  // plugin/src/code/methods/tokens.js
  var MAX_BATCH = 5e3;
  var LISTED_ITEMS = 100;
  function checkCount(items, list, max) {
    if (!items.length) throw badParams("'" + list + "' is empty: give at least one item.");
    if (items.length > max) {
      throw badParams("'" + list + "' has " + items.length + " items; the limit is " + max + " per call. Split it into calls of at most " + max + ".");
    }
  }
  async function planVariables(items, opts) {
    const planned = [];
    const seen = /* @__PURE__ */ new Map();
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
      const type = (
        /** @type {VariableResolvedDataType} */
        item.resolvedType
      );
      if (item.description !== void 0 && item.description !== null && typeof item.description !== "string") {
        throw badParams(where + ": 'description' must be a string.");
      }
      const scopes = checkScopes(item.scopes, where);
      const twin = seen.get(name);
      if (twin !== void 0) throw conflict(where + ": the same name is used by " + opts.list + "[" + twin + "]; names in one collection must differ.");
      seen.set(name, i);
      refuseTakenName(opts.existing, name, opts.collectionName, where);
      const given = item[opts.valuesKey];
      if (given !== void 0 && given !== null && !isPlainObject(given)) {
        throw badParams(where + ": '" + opts.valuesKey + "' must be an object of mode → value.");
      }
      const values = [];
      Object.keys(given || {}).forEach((key) => {
        const valueWhere = where + " in mode '" + key + "'";
        values.push({ mode: opts.modeKey(key, valueWhere), parsed: parseValue(type, given[key], valueWhere), where: valueWhere });
      });
      if (opts.fillModes) {
        if (!values.length) throw badParams(where + ": '" + opts.valuesKey + "' needs a value for at least one mode.");
        const source = values.find((v) => v.mode === opts.allModes[0]) || values[0];
        opts.allModes.forEach((mode) => {
          if (!values.some((v) => v.mode === mode)) values.push({ mode, parsed: source.parsed, where: source.where });
        });
      }
      const entry = { index: i, name, type, values };
      if (typeof item.description === "string") entry.description = item.description;
      if (scopes) entry.scopes = scopes;
      planned.push(entry);
    }
    await resolveTargets(planned, opts.existing, opts.collectionName);
    refuseLoops(planned, opts.allModes);
    return planned;
  }
  async function otherCollections() {
    const collections = await figma.variables.getLocalVariableCollectionsAsync();
    const variables = await figma.variables.getLocalVariablesAsync();
    const owners = {};
    collections.forEach((c) => owners[c.id] = c.name);
    return (name) => {
      const found = [];
      for (const variable of variables) {
        const owner = owners[variable.variableCollectionId] || "";
        const label2 = "{" + (owner + "/" + variable.name).split("/").join(".") + "}";
        if (variable.name === name || owner && owner + "/" + variable.name === name) found.push({ variable, label: label2 });
      }
      return found;
    };
  }
  async function resolveTargets(planned, existing, collectionName) {
    const byName = /* @__PURE__ */ new Map();
    planned.forEach((p) => byName.set(p.name, p));
    let elsewhere = null;
    for (const p of planned) {
      for (const v of p.values) {
        const parsed = v.parsed;
        if ("value" in parsed) continue;
        let targetType;
        if ("aliasName" in parsed && byName.has(parsed.aliasName)) {
          const target = (
            /** @type {Planned} */
            byName.get(parsed.aliasName)
          );
          v.target = { planned: target };
          targetType = target.type;
        } else if ("aliasName" in parsed && existing.has(parsed.aliasName)) {
          const target = (
            /** @type {Variable} */
            existing.get(parsed.aliasName)
          );
          v.target = { variable: target };
          targetType = target.resolvedType;
        } else if ("aliasName" in parsed) {
          if (!elsewhere) elsewhere = await otherCollections();
          const reference = "{" + parsed.aliasName.split("/").join(".") + "}";
          const found = elsewhere(parsed.aliasName);
          if (found.length > 1) {
            throw badParams(
              v.where + ": the reference " + reference + " is ambiguous: it names " + found.map((f) => f.label + " (" + f.variable.id + ")").join(", ") + ". Qualify it with its collection, e.g. " + found[0].label + ", or use the variable's id."
            );
          }
          if (!found.length) {
            throw notFound(
              v.where + ": the reference " + reference + " names no variable '" + parsed.aliasName + "' of this call, of '" + collectionName + `' or of any local collection (by name, or qualified by its collection as {Collection.group.name}). Check the name (dots stand for the slashes of groups), or use "VariableID:…".`
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
  function refuseLoops(planned, modes) {
    const byName = /* @__PURE__ */ new Map();
    planned.forEach((p) => byName.set(p.name, p));
    const lookup = (key) => {
      const p = byName.get(key);
      if (!p) return null;
      return {
        collection: "new",
        modes,
        alias: (mode) => {
          const v = p.values.find((x) => x.mode === mode);
          return v && v.target && "planned" in v.target ? v.target.planned.name : null;
        }
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
  async function createPlanned(planned, collection, modeIdOf, ctx, created, current) {
    const n = planned.length;
    const pacer = new Pacer(ctx, n * 2);
    for (let i = 0; i < n; i++) {
      const p = planned[i];
      current.item = p;
      const v = figma.variables.createVariable(p.name, collection, p.type);
      created.push(v);
      if (p.description !== void 0) v.description = p.description;
      if (p.scopes) v.scopes = p.scopes;
      await pacer.step((done) => "Created " + done + " of " + n + " variables");
    }
    const madeFor = /* @__PURE__ */ new Map();
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
  function valueFor(v, madeFor) {
    const parsed = v.parsed;
    if ("value" in parsed) return parsed.value;
    const target = (
      /** @type {{variable: Variable} | {planned: Planned}} */
      v.target
    );
    const variable = "variable" in target ? target.variable : (
      /** @type {Variable} */
      madeFor.get(target.planned)
    );
    return figma.variables.createVariableAlias(variable);
  }
  function listed(entries, key) {
    const shown = {};
    entries.slice(0, LISTED_ITEMS).forEach(([k, v]) => shown[k] = v);
    const out = { [key]: shown };
    if (entries.length > LISTED_ITEMS) {
      out.notListed = entries.length - LISTED_ITEMS;
      out.hint = "The first " + LISTED_ITEMS + " are listed; read the rest with design_get_variables.";
    }
    return out;
  }
  function failure(err, list, item, undone) {
    if (err instanceof PluginError && err.code === "cancelled") {
      return new PluginError("cancelled", err.message + " " + undone);
    }
    const which = item ? list + "[" + item.index + "] ('" + item.name + "')" : list;
    return new PluginError("plugin_api_error", "The design tool refused " + which + ": " + errorText(err) + ". " + undone, {
      rolledBack: true,
      failedIndex: item ? item.index : null,
      failedName: item ? item.name : null
    });
  }
  function removeCreated(created) {
    let left = 0;
    created.slice().reverse().forEach((v) => {
      try {
        v.remove();
      } catch (err) {
        left++;
      }
    });
    return left ? "Removing what this call made failed for " + left + " of " + created.length + " variables; check the collection." : "Nothing was kept: the " + created.length + " variables this call had made were removed.";
  }
  async function batchCreateVariables(params, ctx) {
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
      fillModes: false
    });
    const created = [];
    const current = { item: (
      /** @type {Planned | null} */
      null
    ) };
    try {
      await createPlanned(planned, collection, (mode) => mode, ctx, created, current);
    } catch (err) {
      throw failure(err, "variables", current.item, removeCreated(created));
    }
    return Object.assign(
      { success: true, collectionId: collection.id, count: created.length },
      listed(created.map((v) => [v.name, v.id]), "created")
    );
  }
  async function batchUpdateVariables(params, ctx) {
    const items = reqArray(params, "updates");
    checkCount(items, "updates", MAX_BATCH);
    const checking = new Pacer(ctx, 0);
    const plan2 = [];
    const links = [];
    const collections = /* @__PURE__ */ new Map();
    const names = /* @__PURE__ */ new Map();
    const seen = /* @__PURE__ */ new Map();
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
      const collection = (
        /** @type {VariableCollection} */
        collections.get(cid)
      );
      const modeKey = item.modeId === void 0 || item.modeId === null ? collection.defaultModeId : item.modeId;
      const mode = findMode(collection, modeKey, where);
      const key = variable.id + "\0" + mode.modeId;
      const twin = seen.get(key);
      if (twin !== void 0) throw conflict(where + ": updates[" + twin + "] sets the same variable in the same mode; give each value once.");
      seen.set(key, i);
      const resolved = await resolveValue(
        variable.resolvedType,
        item.value,
        collection,
        /** @type {Map<string, Variable>} */
        names.get(cid),
        where
      );
      plan2.push({ variable, modeId: mode.modeId, value: resolved.value, where, index: i });
      links.push([variable, mode.modeId, resolved.target ? resolved.target.id : null, where]);
    }
    await refuseAliasLoops(links);
    const done = [];
    let current = plan2[0];
    const pacer = new Pacer(ctx, plan2.length);
    try {
      for (let i = 0; i < plan2.length; i++) {
        current = plan2[i];
        const before = current.variable.valuesByMode[current.modeId];
        current.variable.setValueForMode(current.modeId, current.value);
        done.push({ variable: current.variable, modeId: current.modeId, before });
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
      const undone = left ? "Setting back the earlier values failed for " + left + " of " + done.length + "; check those variables." : "Nothing was kept: the " + done.length + " values already changed were set back.";
      throw failure(err, "updates", { index: current.index, name: current.variable.name }, undone);
    }
    const changes = /* @__PURE__ */ new Map();
    for (const d of done) {
      if (!changes.has(d.variable.id) && changes.size >= LISTED_ITEMS) continue;
      const byMode = changes.get(d.variable.id) || {};
      changes.set(d.variable.id, byMode);
      byMode[d.modeId] = [compactValue(d.before), compactValue(d.variable.valuesByMode[d.modeId])];
    }
    const variableCount = new Set(done.map((d) => d.variable.id)).size;
    const out = { success: true, count: done.length, changes: Object.fromEntries(changes) };
    if (variableCount > changes.size) {
      out.notListed = variableCount - changes.size;
      out.hint = "Changes of the first " + LISTED_ITEMS + " variables are listed; read the others with design_get_variables.";
    }
    return out;
  }
  async function aliasesInto(ids, pacer) {
    const found = [];
    for (const variable of await figma.variables.getLocalVariablesAsync()) {
      await pacer.check();
      const values = variable.valuesByMode;
      for (const modeId of Object.keys(values)) {
        const value = (
          /** @type {any} */
          values[modeId]
        );
        if (value && value.type === "VARIABLE_ALIAS" && ids.has(value.id)) found.push({ variable, modeId, target: value.id });
      }
    }
    return found;
  }
  function recreate(removed, aliasers) {
    const made = /* @__PURE__ */ new Map();
    const broken = /* @__PURE__ */ new Set();
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
    const follow = (value) => {
      const v = (
        /** @type {any} */
        value
      );
      const target = v && v.type === "VARIABLE_ALIAS" ? made.get(v.id) : void 0;
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
      if (!target || made.has(a.variable.id) || broken.has(a.variable.id)) continue;
      try {
        a.variable.setValueForMode(a.modeId, figma.variables.createVariableAlias(target));
      } catch (err) {
        broken.add(a.target);
      }
    }
    return broken.size;
  }
  async function batchDeleteVariables(params, ctx) {
    const ids = reqArray(params, "variableIds");
    checkCount(ids, "variableIds", MAX_BATCH);
    const checking = new Pacer(ctx, 0);
    const doomed = [];
    const seen = /* @__PURE__ */ new Map();
    for (let i = 0; i < ids.length; i++) {
      await checking.check();
      const at = "variableIds[" + i + "]";
      const variable = editableVariable(await getVariable(ids[i], at));
      const twin = seen.get(variable.id);
      if (twin !== void 0) throw conflict(at + " ('" + variable.name + "'): variableIds[" + twin + "] names it too; give each id once.");
      seen.set(variable.id, i);
      doomed.push(variable);
    }
    const homes = /* @__PURE__ */ new Map();
    for (const v of doomed) {
      if (!homes.has(v.variableCollectionId)) homes.set(v.variableCollectionId, await getCollection(v.variableCollectionId));
    }
    const aliasers = await aliasesInto(seen, checking);
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
          home: (
            /** @type {VariableCollection} */
            homes.get(v.variableCollectionId)
          ),
          description: v.description,
          scopes: v.scopes.slice(),
          values: Object.assign({}, v.valuesByMode)
        };
        v.remove();
        removed.push(recipe);
        await pacer.step((n, total) => "Deleted " + n + " of " + total + " variables");
      }
    } catch (err) {
      const left = recreate(removed, aliasers);
      const undone = left ? "Making the " + removed.length + " deleted variables again failed for " + left + "; check the collections." : "Nothing was kept: the " + removed.length + " variables already deleted were made again (under new ids).";
      const item = index < doomed.length ? { index, name: doomed[index].name } : null;
      throw failure(err, "variableIds", item, undone);
    }
    return Object.assign({ success: true, count: removed.length }, listed(removed.map((r) => [r.id, r.name]), "deleted"));
  }
  async function setupDesignTokens(params, ctx) {
    const collectionName = reqString(params, "collectionName");
    const modes = checkModeNames(reqArray(params, "modes"), "modes");
    if (!modes.length) throw badParams(`'modes' is empty: give at least one mode name, e.g. ["Light", "Dark"].`);
    const tokens = reqArray(params, "tokens");
    checkCount(tokens, "tokens", MAX_SETUP_TOKENS);
    await refuseTakenCollectionName(collectionName, "SETUP_DESIGN_TOKENS");
    const planned = await planVariables(tokens, {
      pacer: new Pacer(ctx, 0),
      list: "tokens",
      valuesKey: "values",
      existing: /* @__PURE__ */ new Map(),
      collectionName,
      modeKey: (key, where) => {
        if (modes.indexOf(key) < 0) throw notFound(where + ": '" + key + "' is not one of the modes given (" + modes.join(", ") + ").");
        return key;
      },
      allModes: modes,
      fillModes: true
    });
    const collection = figma.variables.createVariableCollection(collectionName);
    const modeIds = {};
    const created = [];
    const current = { item: (
      /** @type {Planned | null} */
      null
    ) };
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
          "Could not make the modes " + modes.join(", ") + ": " + errorText(err) + ". " + undone + " The file's plan may allow fewer modes per collection: try fewer modes.",
          { rolledBack: true, failedIndex: null, failedName: null }
        );
      }
      throw failure(err, "tokens", current.item, undone);
    }
    return Object.assign(
      { success: true, collectionId: collection.id, collectionName: collection.name, modes: modeIds, count: created.length },
      listed(created.map((v) => [v.name, v.id]), "created")
    );
  }

  // plugin/src/code/methods/token_import.js
  function refOf(item, at) {
    if (!isPlainObject(item)) throw badParams(at + " must be an object.");
    if (typeof item.ref !== "string" || !item.ref) throw badParams(at + ": 'ref' is required and must be a non-empty string.");
    return item.ref;
  }
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
    return (
      /** @type {VariableValue} */
      raw
    );
  }
  async function plan(params) {
    const allCollections = await figma.variables.getLocalVariableCollectionsAsync();
    const allVariables = await figma.variables.getLocalVariablesAsync();
    const collections = /* @__PURE__ */ new Map();
    reqArray(params, "collections").forEach((item, i) => {
      const at = "collections[" + i + "]";
      const ref = refOf(item, at);
      if (collections.has(ref)) throw conflict(at + ": ref '" + ref + "' is given twice.");
      if (typeof item.name !== "string" || !item.name.trim()) throw badParams(at + ": 'name' must be a non-empty string.");
      const modes = checkModeNames(Array.isArray(item.modes) ? item.modes : [], at + ".modes");
      let found = null;
      if (item.id !== void 0) {
        found = allCollections.find((c) => c.id === item.id);
        if (!found) throw notFound(at + ": collection " + item.id + " is not in this file. List them with design_get_variables.");
        editableCollection(found);
      } else {
        if (!modes.length) throw badParams(at + ": a new collection needs at least one mode.");
        const twin = allCollections.find((c) => c.name === item.name);
        if (twin) throw conflict(at + ": a collection named '" + item.name + "' already exists (" + twin.id + ").");
      }
      collections.set(ref, { ref, collection: found, name: item.name, modes });
    });
    const byId = /* @__PURE__ */ new Map();
    allVariables.forEach((v) => byId.set(v.id, v));
    const deletes = reqArray(params, "deletes").map((id, i) => {
      const v = byId.get(id);
      if (!v) throw notFound("deletes[" + i + "]: variable " + JSON.stringify(id) + " is not in this file.");
      return editableVariable(v);
    });
    const deleted = new Set(deletes.map((v) => v.id));
    const variables = /* @__PURE__ */ new Map();
    const listedIds = /* @__PURE__ */ new Set();
    reqArray(params, "variables").forEach((item, i) => {
      const at = "variables[" + i + "]";
      const ref = refOf(item, at);
      if (variables.has(ref)) throw conflict(at + ": ref '" + ref + "' is given twice.");
      const coll = collections.get(item.collection);
      if (!coll) throw notFound(at + ": collection ref " + JSON.stringify(item.collection) + " is not in 'collections'.");
      if (typeof item.name !== "string" || !item.name.trim()) throw badParams(at + ": 'name' must be a non-empty string.");
      const where = at + " ('" + item.name + "')";
      if (TYPES.indexOf(item.type) < 0) throw badParams(where + ": 'type' must be one of " + TYPES.join(", ") + ".");
      if (item.description !== void 0 && typeof item.description !== "string") throw badParams(where + ": 'description' must be a string.");
      let found = null;
      if (item.id !== void 0) {
        found = byId.get(item.id);
        if (!found) throw notFound(where + ": variable " + item.id + " is not in this file.");
        if (deleted.has(found.id)) throw conflict(where + ": variable " + item.id + " is also in 'deletes'.");
        if (listedIds.has(found.id)) throw conflict(where + ": variable " + item.id + " is listed twice.");
        listedIds.add(found.id);
        if (!coll.collection || found.variableCollectionId !== coll.collection.id) throw badParams(where + ": variable " + item.id + " is not in that collection.");
        if (found.resolvedType !== item.type) throw badParams(where + ": variable " + item.id + " is a " + found.resolvedType + ", not a " + item.type + ".");
        if (found.name !== item.name || item.description !== void 0) editableVariable(found);
      }
      const entry = { ref, variable: found, coll, name: item.name, type: item.type };
      if (item.description !== void 0) entry.description = item.description;
      variables.set(ref, entry);
    });
    const taken = /* @__PURE__ */ new Map();
    const claim = (collKey, name, who) => {
      const key = collKey + "\0" + name;
      const other = taken.get(key);
      if (other !== void 0) throw conflict(who + ": the name '" + name + "' is also " + other + "; names in one collection must differ.");
      taken.set(key, who);
    };
    const touched = new Set([...collections.values()].map((c) => c.collection ? c.collection.id : ""));
    allVariables.forEach((v) => {
      if (touched.has(v.variableCollectionId) && !deleted.has(v.id) && !listedIds.has(v.id)) {
        claim(v.variableCollectionId, v.name, "the name of variable " + v.id);
      }
    });
    [...variables.values()].forEach((p, i) => claim(p.coll.collection ? p.coll.collection.id : "new:" + p.coll.ref, p.name, "variables[" + i + "]"));
    const values = [];
    const seen = /* @__PURE__ */ new Set();
    reqArray(params, "values").forEach((item, i) => {
      const at = "values[" + i + "]";
      if (!isPlainObject(item)) throw badParams(at + " must be an object with 'variable', 'mode' and 'value' or 'alias'.");
      const target = variables.get(item.variable);
      if (!target) throw notFound(at + ": variable ref " + JSON.stringify(item.variable) + " is not in 'variables'.");
      const where = at + " ('" + target.name + "' in mode '" + item.mode + "')";
      const modeNames = target.coll.collection ? target.coll.collection.modes.map((m) => m.name).concat(target.coll.modes) : target.coll.modes;
      if (modeNames.indexOf(item.mode) < 0) throw notFound(where + ": collection '" + target.coll.name + "' has no mode '" + item.mode + "'.");
      const key = target.ref + "\0" + item.mode;
      if (seen.has(key)) throw conflict(where + ": this variable's value in this mode is given twice.");
      seen.add(key);
      if (item.alias !== void 0) {
        const to = variables.get(item.alias);
        if (!to) throw notFound(where + ": the alias target ref " + JSON.stringify(item.alias) + " is not in 'variables'.");
        if (to.type !== target.type) throw badParams(where + ": a " + target.type + " variable cannot alias '" + to.name + "', a " + to.type + " variable.");
        values.push({ target, mode: item.mode, alias: to, where });
      } else {
        if (!("value" in item)) throw badParams(where + ": give 'value' or 'alias'.");
        values.push({ target, mode: item.mode, value: literal(target.type, item.value, where), where });
      }
    });
    refuseLoops2(allVariables, allCollections, variables, values, deleted);
    allVariables.forEach((v) => {
      if (deleted.has(v.id)) return;
      Object.keys(v.valuesByMode).forEach((modeId) => {
        const raw = (
          /** @type {any} */
          v.valuesByMode[modeId]
        );
        if (!raw || raw.type !== "VARIABLE_ALIAS" || !deleted.has(raw.id)) return;
        const overridden = values.some((x) => x.target.variable === v && modeName(v, modeId, allCollections) === x.mode);
        if (!overridden) {
          throw conflict("variable '" + v.name + "' (" + v.id + ") aliases " + raw.id + ", which this import deletes; keep that token or change the alias too.");
        }
      });
    });
    return { collections: [...collections.values()], variables: [...variables.values()], values, deletes };
  }
  function modeName(v, modeId, all) {
    const c = all.find((x) => x.id === v.variableCollectionId);
    const m = c && c.modes.find((x) => x.modeId === modeId);
    return m ? m.name : modeId;
  }
  function refuseLoops2(allVariables, allCollections, variables, values, deleted) {
    if (!values.some((v) => v.alias)) return;
    const nodes = /* @__PURE__ */ new Map();
    const keyOfId = /* @__PURE__ */ new Map();
    variables.forEach((p) => {
      if (p.variable) keyOfId.set(p.variable.id, "r:" + p.ref);
    });
    const collModes = (id) => {
      const c = allCollections.find((x) => x.id === id);
      return c ? c.modes.map((m) => m.name) : [];
    };
    allVariables.forEach((v) => {
      if (deleted.has(v.id) || keyOfId.has(v.id)) return;
      const aliases = /* @__PURE__ */ new Map();
      Object.keys(v.valuesByMode).forEach((modeId) => {
        const raw = (
          /** @type {any} */
          v.valuesByMode[modeId]
        );
        if (raw && raw.type === "VARIABLE_ALIAS") aliases.set(modeName(v, modeId, allCollections), keyOfId.get(raw.id) || "i:" + raw.id);
      });
      nodes.set("i:" + v.id, { collection: v.variableCollectionId, modes: collModes(v.variableCollectionId), aliases, name: v.name });
    });
    variables.forEach((p) => {
      const aliases = /* @__PURE__ */ new Map();
      if (p.variable) {
        const v = p.variable;
        Object.keys(v.valuesByMode).forEach((modeId) => {
          const raw = (
            /** @type {any} */
            v.valuesByMode[modeId]
          );
          if (raw && raw.type === "VARIABLE_ALIAS") aliases.set(modeName(v, modeId, allCollections), keyOfId.get(raw.id) || "i:" + raw.id);
        });
      }
      const modes = p.coll.collection ? collModes(p.coll.collection.id).concat(p.coll.modes.filter((m) => collModes(
        /** @type {VariableCollection} */
        p.coll.collection.id
      ).indexOf(m) < 0)) : p.coll.modes;
      nodes.set("r:" + p.ref, { collection: "c:" + p.coll.ref, modes, aliases, name: p.name });
    });
    const refOfCollection = /* @__PURE__ */ new Map();
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
    const lookup = (key) => {
      const n = nodes.get(key);
      return n ? { collection: n.collection, modes: n.modes, alias: (mode) => n.aliases.get(mode) || null } : null;
    };
    for (const v of values) {
      if (!v.alias) continue;
      const loop = aliasLoop("r:" + v.target.ref, v.mode, "r:" + v.alias.ref, lookup);
      if (loop) {
        const label2 = (k) => {
          const n = nodes.get(k);
          return n ? n.name : k;
        };
        throw badParams(v.where + ": the aliases make a loop (" + describeLoop(loop, label2) + "). Point one of them at a plain value.");
      }
    }
  }
  async function apply(p, ctx, undo, current) {
    const pacer = new Pacer(ctx, p.collections.length + p.variables.length + p.values.length + p.deletes.length);
    const step = (message) => pacer.step(message);
    const modeIds = /* @__PURE__ */ new Map();
    for (const c of p.collections) {
      current.step = "collection '" + c.name + "'";
      const ids = {};
      if (!c.collection) {
        const made2 = figma.variables.createVariableCollection(c.name);
        undo.push(() => made2.remove());
        c.collection = made2;
        made2.renameMode(made2.defaultModeId, c.modes[0]);
      }
      const coll = c.collection;
      coll.modes.forEach((m) => ids[m.name] = m.modeId);
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
    const renamed = p.variables.filter((v) => v.variable && v.variable.name !== v.name);
    for (const v of renamed) {
      const variable = (
        /** @type {Variable} */
        v.variable
      );
      const old = variable.name;
      current.step = "renaming '" + old + "' to '" + v.name + "'";
      variable.name = old + " → " + v.name + " (renaming)";
      undo.push(() => variable.name = old);
    }
    const made = /* @__PURE__ */ new Map();
    for (const v of p.variables) {
      current.step = "variable '" + v.name + "'";
      if (v.variable) {
        const variable = v.variable;
        if (variable.name !== v.name) {
          const temporary = variable.name;
          variable.name = v.name;
          undo.push(() => variable.name = temporary);
        }
        if (v.description !== void 0 && v.description !== variable.description) {
          const before = variable.description;
          variable.description = v.description;
          undo.push(() => variable.description = before);
        }
        made.set(v, variable);
      } else {
        const variable = figma.variables.createVariable(
          v.name,
          /** @type {VariableCollection} */
          v.coll.collection,
          v.type
        );
        undo.push(() => variable.remove());
        if (v.description) variable.description = v.description;
        made.set(v, variable);
      }
      await step(() => "Prepared " + made.size + " of " + p.variables.length + " variables");
    }
    let valuesSet = 0;
    for (const x of p.values) {
      current.step = x.where;
      const variable = (
        /** @type {Variable} */
        made.get(x.target)
      );
      const modeId = (
        /** @type {Record<string, string>} */
        modeIds.get(x.target.coll.ref)[x.mode]
      );
      const before = variable.valuesByMode[modeId];
      const value = x.alias ? figma.variables.createVariableAlias(
        /** @type {Variable} */
        made.get(x.alias)
      ) : (
        /** @type {VariableValue} */
        x.value
      );
      variable.setValueForMode(modeId, value);
      if (x.target.variable && before !== void 0) undo.push(() => variable.setValueForMode(modeId, before));
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
        values: v.valuesByMode
      };
      const home = await figma.variables.getVariableCollectionByIdAsync(recipe.collectionId);
      v.remove();
      undo.push(() => {
        const back = figma.variables.createVariable(
          recipe.name,
          /** @type {VariableCollection} */
          home,
          recipe.type
        );
        back.description = recipe.description;
        back.scopes = recipe.scopes;
        Object.keys(recipe.values).forEach((m) => back.setValueForMode(m, recipe.values[m]));
      });
      await step(() => "Deleted " + v.name);
    }
    const collections = {};
    p.collections.forEach((c) => collections[c.name] = /** @type {VariableCollection} */
    c.collection.id);
    const created = {};
    made.forEach((variable, v) => {
      if (!v.variable) created[v.ref] = variable.id;
    });
    return { collections, created };
  }
  async function applyTokenChanges(params, ctx) {
    const p = await plan(params);
    const renames = p.variables.filter((v) => v.variable && v.variable.name !== v.name).length;
    const undo = [];
    const current = { step: "" };
    try {
      const result = await apply(p, ctx, undo, current);
      return {
        success: true,
        collections: result.collections,
        created: result.created,
        counts: {
          collectionsCreated: params.collections.filter((c) => c.id === void 0).length,
          variablesCreated: Object.keys(result.created).length,
          renamed: renames,
          values: p.values.length,
          deleted: p.deletes.length
        }
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
      const undone = left ? "Taking back the " + undo.length + " steps already done failed for " + left + "; check the variables." : "Nothing was kept: the " + undo.length + " steps already done were taken back.";
      if (err instanceof PluginError && err.code === "cancelled") throw new PluginError("cancelled", err.message + " " + undone);
      throw new PluginError("plugin_api_error", "The design tool refused " + current.step + ": " + errorText(err) + ". " + undone, {
        rolledBack: left === 0
      });
    }
  }

  // plugin/src/code/variant-grid.js
  var COLUMN_AXIS = /^(state|status|interaction)$/i;
  function variantAxes(variants) {
    const values = {};
    const order = [];
    variants.forEach((v) => {
      Object.keys(v.props).forEach((axis) => {
        if (!values[axis]) {
          values[axis] = [];
          order.push(axis);
        }
        if (values[axis].indexOf(v.props[axis]) < 0) values[axis].push(v.props[axis]);
      });
    });
    return { order, values };
  }
  function defaultColumnProperty(axes) {
    const state = axes.order.find((a) => COLUMN_AXIS.test(a));
    if (state) return state;
    let best = null;
    for (const a of axes.order) if (best === null || axes.values[a].length > axes.values[best].length) best = a;
    return best;
  }
  function variantGrid(variants, options) {
    const axes = variantAxes(variants);
    const column = options.columnProperty;
    const rowAxes = axes.order.filter((a) => a !== column);
    const columns = column ? axes.values[column] : [""];
    const value = (v, axis) => axis in v.props ? v.props[axis] : "";
    const rowKey = (v) => rowAxes.map((a) => value(v, a)).join("\0");
    let combos = [[]];
    rowAxes.forEach((a) => {
      const next = [];
      const vals = axes.values[a].concat(variants.some((v) => !(a in v.props)) ? [""] : []);
      combos.forEach((prefix) => vals.forEach((x) => next.push(prefix.concat([x]))));
      combos = next;
    });
    const present = new Set(variants.map(rowKey));
    const rowKeys = combos.map((c) => c.join("\0")).filter((k) => present.has(k));
    const rows = combos.filter((c) => present.has(c.join("\0"))).map((c) => c.join(" / "));
    const cells = /* @__PURE__ */ new Map();
    variants.forEach((v) => {
      const key = rowKeys.indexOf(rowKey(v)) + ":" + (column ? columns.indexOf(value(v, column)) : 0);
      const list = cells.get(key) || [];
      list.push(v);
      cells.set(key, list);
    });
    const colW = columns.map(() => 0);
    const rowH = rowKeys.map(() => 0);
    cells.forEach((list, key) => {
      const [r, c] = key.split(":").map(Number);
      colW[c] = Math.max(colW[c], ...list.map((v) => v.width));
      rowH[r] = Math.max(rowH[r], list.reduce((sum, v) => sum + v.height, 0) + options.gap * (list.length - 1));
    });
    const colX = offsets(colW, options.padding, options.gap);
    const rowY = offsets(rowH, options.padding, options.gap);
    const positions = {};
    cells.forEach((list, key) => {
      const [r, c] = key.split(":").map(Number);
      let y = rowY[r];
      list.forEach((v) => {
        positions[v.id] = { x: colX[c], y };
        y += v.height + options.gap;
      });
    });
    return {
      columnProperty: column,
      rowProperties: rowAxes,
      columns,
      rows,
      colX,
      colW,
      rowY,
      rowH,
      width: span(colW, options.padding, options.gap),
      height: span(rowH, options.padding, options.gap),
      positions
    };
  }
  function offsets(sizes, padding, gap) {
    const out = [];
    let at = padding;
    for (const s of sizes) {
      out.push(at);
      at += s + gap;
    }
    return out;
  }
  function span(sizes, padding, gap) {
    return padding * 2 + sizes.reduce((a, b) => a + b, 0) + gap * Math.max(0, sizes.length - 1);
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
  var MAX_ECHO_CHARS = 200;
  async function loadFont(font, node) {
    try {
      await figma.loadFontAsync(font);
    } catch (err) {
      const layer = node ? " used by text layer '" + node.name + "' (" + node.id + ")" : "";
      throw new PluginError(
        "font_unavailable",
        "Font '" + font.family + " " + font.style + "'" + layer + " cannot be loaded in this editor (" + errorText(err) + "). Install or enable it, or give the layer another font first (design_set_text with fontFamily/fontStyle).",
        { font: { family: font.family, style: font.style } }
      );
    }
  }
  async function loadFontsOf(node) {
    const fonts = node.characters.length ? node.getRangeAllFontNames(0, node.characters.length) : [];
    if (node.fontName !== figma.mixed) fonts.push(node.fontName);
    const seen = {};
    for (const font of fonts) {
      const key = font.family + "\0" + font.style;
      if (seen[key]) continue;
      seen[key] = true;
      await loadFont(font, node);
    }
  }
  function echoText(text) {
    return text.length > MAX_ECHO_CHARS ? cutText(text, MAX_ECHO_CHARS) + "… (" + text.length + " characters)" : text;
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
      await loadFont(font);
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
    const previous = {
      characters: echoText(text.characters),
      fontName: text.fontName === figma.mixed ? "mixed" : text.fontName,
      fontSize: text.fontSize === figma.mixed ? "mixed" : text.fontSize
    };
    let font = null;
    if (family || style) {
      const current = text.fontName === figma.mixed ? { family: "Inter", style: "Regular" } : text.fontName;
      font = await resolveFont(family || current.family, style || current.style);
    } else {
      await loadFontsOf(text);
    }
    if (font) text.fontName = font;
    text.characters = params.text;
    if (fontSize !== void 0) text.fontSize = fontSize;
    return {
      success: true,
      previous,
      node: Object.assign(summarize(text), { characters: text.characters, fontName: text.fontName, fontSize: text.fontSize })
    };
  }

  // plugin/src/code/methods/arrange.js
  var DEFAULT_GAP = 24;
  var DEFAULT_PADDING = 24;
  var LABEL_GAP = 16;
  var LABEL_FONT = { family: "Inter", style: "Regular" };
  var LABEL_SIZE = 14;
  var LABELS_KEY = "labelsForComponentSet";
  async function findSet(params) {
    let node;
    if (params.componentSetId !== void 0 && params.componentSetId !== null) {
      node = await getNode(params.componentSetId, "componentSetId");
    } else {
      const name = optString(params, "componentSetName");
      if (!name) throw badParams(`Give 'componentSetId' (an id such as "12:34") or 'componentSetName'.`);
      await figma.loadAllPagesAsync();
      const sets = figma.root.findAllWithCriteria({ types: ["COMPONENT_SET"] }).filter((s) => s.name === name);
      if (!sets.length) throw notFound("No component set named '" + name + "' in this file. Find it with design_search_components and retry with its id.");
      if (sets.length > 1) {
        throw badParams(sets.length + " component sets are named '" + name + "' (" + sets.map((s) => s.id).join(", ") + "); pass 'componentSetId' to choose one.");
      }
      node = sets[0];
    }
    const set = await mainComponentOnly(node, "arrange variants");
    requireType(set, ["COMPONENT_SET"], "arrange variants");
    return (
      /** @type {ComponentSetNode} */
      set
    );
  }
  function arrangeOptions(options) {
    return {
      gap: (
        /** @type {number} */
        optNumber(options, "gap", DEFAULT_GAP, { min: 0, max: 1e4 })
      ),
      padding: (
        /** @type {number} */
        optNumber(options, "cellPadding", DEFAULT_PADDING, { min: 0, max: 1e4 })
      ),
      columnProperty: optString(options, "columnProperty") || null
    };
  }
  async function arrangeComponentSet(params, ctx) {
    const set = await findSet(params);
    const options = arrangeOptions(optObject(params, "options") || {});
    return Object.assign({ success: true }, await arrangeSet(set, options, ctx));
  }
  async function arrangeSet(set, options, ctx) {
    const variants = (
      /** @type {ComponentNode[]} */
      set.children.filter((c) => c.type === "COMPONENT")
    );
    if (!variants.length) throw new PluginError("empty", "Component set " + set.name + " (" + set.id + ") has no variants to arrange.");
    const items = variants.map((v) => ({ id: v.id, width: v.width, height: v.height, props: Object.assign({}, v.variantProperties || {}) }));
    const axes = variantAxes(items);
    let column = options.columnProperty;
    if (column && axes.order.indexOf(column) < 0) {
      throw badParams("'" + column + "' is not a variant property of " + set.name + ". Its properties: " + (axes.order.join(", ") || "none") + ".");
    }
    if (!column) column = defaultColumnProperty(axes);
    const grid = variantGrid(items, { columnProperty: column, gap: options.gap, padding: options.padding });
    const parent = set.parent;
    if (!parent || !("insertChild" in parent)) throw new PluginError("wrong_node_type", "Component set " + set.name + " has no parent to hold its labels.");
    await loadFont(LABEL_FONT);
    const previous = {
      width: set.width,
      height: set.height,
      layoutMode: set.layoutMode,
      /** @type {Record<string, number[]>} */
      positions: {}
    };
    variants.forEach((v) => previous.positions[v.id] = [v.x, v.y]);
    const oldLabels = (
      /** @type {SceneNode[]} */
      /** @type {any} */
      parent.children.filter((n) => n.getPluginData(LABELS_KEY) === set.id)
    );
    let labels = null;
    try {
      if (set.layoutMode !== "NONE") set.layoutMode = "NONE";
      for (let i = 0; i < variants.length; i++) {
        const at = grid.positions[variants[i].id];
        variants[i].x = at.x;
        variants[i].y = at.y;
        await ctx.progress(i + 1, variants.length, "Placed " + (i + 1) + " of " + variants.length + " variants");
      }
      set.resizeWithoutConstraints(grid.width, grid.height);
      labels = makeLabels(
        set,
        grid,
        /** @type {BaseNode & ChildrenMixin} */
        parent
      );
      oldLabels.forEach((n) => n.remove());
    } catch (err) {
      const undone = putBack(set, variants, previous, labels);
      if (err instanceof PluginError && err.code === "cancelled") throw new PluginError("cancelled", err.message + " " + undone);
      throw new PluginError("plugin_api_error", "Arranging " + set.name + " failed: " + errorText(err) + ". " + undone, { rolledBack: true });
    }
    return {
      componentSet: { id: set.id, name: set.name, x: set.x, y: set.y, width: set.width, height: set.height },
      previous,
      grid: { columnProperty: grid.columnProperty, rowProperties: grid.rowProperties, columns: grid.columns, rows: grid.rows },
      variantCount: variants.length,
      labelsFrameId: labels ? labels.id : null,
      replacedLabelFrames: oldLabels.map((n) => n.id)
    };
  }
  function putBack(set, variants, previous, labels) {
    const failed = [];
    const attempt = (what, fn) => {
      try {
        fn();
      } catch (err) {
        failed.push(what + " (" + errorText(err) + ")");
      }
    };
    if (labels) attempt("removing the new labels", () => (
      /** @type {FrameNode} */
      labels.remove()
    ));
    variants.forEach(
      (v) => attempt("moving " + v.name + " back", () => {
        if (v.x !== previous.positions[v.id][0]) v.x = previous.positions[v.id][0];
        if (v.y !== previous.positions[v.id][1]) v.y = previous.positions[v.id][1];
      })
    );
    if (set.width !== previous.width || set.height !== previous.height) {
      attempt("restoring the set's size", () => set.resizeWithoutConstraints(previous.width, previous.height));
    }
    if (set.layoutMode !== previous.layoutMode) {
      attempt("restoring the set's layout", () => set.layoutMode = /** @type {any} */
      previous.layoutMode);
    }
    return failed.length ? "Putting the set back failed at: " + failed.join("; ") + "." : "The set was put back as it was.";
  }
  function makeLabels(set, grid, parent) {
    const frame = figma.createFrame();
    try {
      parent.insertChild(parent.children.indexOf(set), frame);
      frame.name = set.name + " labels";
      frame.fills = [];
      frame.clipsContent = false;
      frame.setPluginData(LABELS_KEY, set.id);
      const p = (
        /** @type {any} */
        parent
      );
      if (p.layoutMode && p.layoutMode !== "NONE") frame.layoutPositioning = "ABSOLUTE";
      const placed = [];
      const text = (characters) => {
        const t = figma.createText();
        frame.appendChild(t);
        t.fontName = LABEL_FONT;
        t.fontSize = LABEL_SIZE;
        t.characters = characters;
        return t;
      };
      if (grid.columnProperty) {
        grid.columns.forEach((value, c) => {
          const t = text(value || "(no " + grid.columnProperty + ")");
          t.name = grid.columnProperty + "=" + value;
          placed.push({ node: t, x: set.x + grid.colX[c], y: set.y - LABEL_GAP - t.height });
        });
      }
      if (grid.rowProperties.length) {
        grid.rows.forEach((label2, r) => {
          const t = text(label2);
          t.name = grid.rowProperties.join(" / ") + ": " + label2;
          placed.push({ node: t, x: set.x - LABEL_GAP - t.width, y: set.y + grid.rowY[r] + (grid.rowH[r] - t.height) / 2 });
        });
      }
      const minX = Math.min(set.x, ...placed.map((l) => l.x));
      const minY = Math.min(set.y, ...placed.map((l) => l.y));
      frame.x = minX;
      frame.y = minY;
      frame.resizeWithoutConstraints(Math.max(1, set.x + set.width - minX), Math.max(1, set.y + set.height - minY));
      placed.forEach((l) => {
        l.node.x = l.x - minX;
        l.node.y = l.y - minY;
      });
      return frame;
    } catch (err) {
      frame.remove();
      throw err;
    }
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
    if (node.type === "INSTANCE") {
      const main = await /** @type {InstanceNode} */
      node.getMainComponentAsync();
      throw new PluginError(
        "wrong_node_type",
        "Node " + node.id + " (" + node.name + ") is an instance, not a component" + (main ? "; its main component is " + main.id + " (" + main.name + ")" : "") + "."
      );
    }
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
  async function getLocalComponents(params) {
    const paged = params.offset !== void 0 && params.offset !== null;
    const offset = (
      /** @type {number} */
      optNumber(params, "offset", 0, { min: 0 })
    );
    await figma.loadAllPagesAsync();
    const found = figma.root.findAllWithCriteria({ types: ["COMPONENT", "COMPONENT_SET"] });
    const components = [];
    const componentSets = [];
    let next = null;
    let index = 0;
    let chars = 0;
    for (const node of found) {
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
    return { success: true, components, componentSets, totalComponents: components.length, totalComponentSets: componentSets.length, timestamp: Date.now(), next };
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
      if (!target) throw notFound("Style " + id + " was not found in this file. List styles with design_get_styles and retry.");
      if (target.remote) throw readOnly("Style '" + target.name + "' (" + target.id + ")");
    } else {
      target = await mainComponentOnly(await getNode(id), "set a description");
    }
    const previous = { description: target.description, descriptionMarkdown: target.descriptionMarkdown || "" };
    target.description = params.description;
    if (markdown !== void 0) target.descriptionMarkdown = markdown;
    return { success: true, previous, node: { id: target.id, name: target.name, description: target.description } };
  }
  async function definitionsOwner(params) {
    const node = await mainComponentOnly(await getNode(params.nodeId), "change component properties");
    if (node.type === "COMPONENT" && node.parent && node.parent.type === "COMPONENT_SET") {
      throw new PluginError(
        "wrong_node_type",
        "Component " + node.name + " is a variant; component properties live on its component set " + node.parent.id + ". Use that id."
      );
    }
    return node;
  }
  function checkPreferredValues(value, where) {
    if (value === void 0 || value === null) return void 0;
    const ok = Array.isArray(value) && value.every((v) => isPlainObject(v) && (v.type === "COMPONENT" || v.type === "COMPONENT_SET") && typeof v.key === "string" && v.key);
    if (!ok) throw badParams(where + `: 'preferredValues' must be an array of {type: "COMPONENT" | "COMPONENT_SET", key: "<component key>"}.`);
    return (
      /** @type {InstanceSwapPreferredValue[]} */
      value.map((v) => ({ type: v.type, key: v.key }))
    );
  }
  function plainDefinition(def) {
    return def ? JSON.parse(JSON.stringify(def)) : null;
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
    if (type === "VARIANT" && node.type !== "COMPONENT_SET") {
      throw new PluginError("wrong_node_type", "VARIANT properties belong to component sets; " + node.name + " is a single component. Combine variants first (design_create_component_set).");
    }
    const options = {};
    const preferred = checkPreferredValues(params.preferredValues, "ADD_COMPONENT_PROPERTY");
    if (preferred) {
      if (type !== "INSTANCE_SWAP" && type !== "SLOT") throw badParams("'preferredValues' apply only to INSTANCE_SWAP and SLOT properties.");
      options.preferredValues = preferred;
    }
    const description = optString(params, "description");
    if (description !== void 0) {
      if (type !== "SLOT") throw badParams("'description' applies only to SLOT properties.");
      options.description = description;
    }
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
    const unknown = Object.keys(newValue).filter((k) => ["name", "defaultValue", "preferredValues", "description"].indexOf(k) < 0);
    if (unknown.length) throw badParams("'newValue' may hold name, defaultValue, preferredValues and description; not " + unknown.join(", ") + ".");
    const previous = plainDefinition(node.componentPropertyDefinitions[name]);
    const fullName = node.editComponentProperty(
      name,
      /** @type {any} */
      newValue
    );
    const defs = node.componentPropertyDefinitions;
    return {
      success: true,
      propertyName: fullName,
      previousName: name,
      previous,
      definition: plainDefinition(defs[fullName]),
      componentPropertyDefinitions: defs
    };
  }
  async function deleteComponentProperty(params) {
    const node = await definitionsOwner(params);
    const name = resolvePropertyName(node, reqString(params, "propertyName"));
    const def = plainDefinition(node.componentPropertyDefinitions[name]);
    if (def && def.type === "VARIANT") {
      throw badParams("'" + name + "' is a VARIANT property: it comes from the variants' names. Rename or remove the variants instead.");
    }
    node.deleteComponentProperty(name);
    return { success: true, deleted: name, deletedDefinition: def, componentPropertyDefinitions: node.componentPropertyDefinitions };
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
      await loadInstanceFonts(instance, Object.keys(byProperty).filter((k) => props[k].type === "TEXT"));
      instance.setProperties(byProperty);
    }
    return applied;
  }
  async function loadInstanceFonts(instance, textProperties) {
    if (textProperties && !textProperties.length) return;
    const texts = (
      /** @type {TextNode[]} */
      instance.findAllWithCriteria({ types: ["TEXT"] })
    );
    const bound = textProperties ? texts.filter((t) => {
      const refs = (
        /** @type {any} */
        t.componentPropertyReferences
      );
      return refs && textProperties.indexOf(refs.characters) >= 0;
    }) : [];
    for (const t of bound.length ? bound : texts) await loadFontsOf(t);
  }
  async function checkPropertyValue(name, def, value) {
    const type = def ? def.type : void 0;
    if (type === "SLOT") {
      throw badParams("'" + name + "' is a SLOT property: slot content is not set through properties. Use design_append_to_slot or design_reset_slot.");
    }
    if (type === "BOOLEAN" && typeof value !== "boolean") throw badParams("'" + name + "' is a BOOLEAN property: give true or false.");
    if (type === "TEXT" && typeof value !== "string") throw badParams("'" + name + "' is a TEXT property: give a string.");
    if (type === "VARIANT") {
      const options = def && def.variantOptions || [];
      if (typeof value !== "string" || options.length && options.indexOf(value) < 0) {
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
  async function setInstanceProperties(params) {
    const node = await getNode(params.nodeId);
    requireType(node, ["INSTANCE"], "set instance properties");
    const instance = (
      /** @type {InstanceNode} */
      node
    );
    const properties = reqObject(params, "properties");
    const props = instance.componentProperties;
    const main = await instance.getMainComponentAsync();
    const owner = main && main.parent && main.parent.type === "COMPONENT_SET" ? main.parent : main;
    const defs = owner ? (
      /** @type {ComponentNode | ComponentSetNode} */
      owner.componentPropertyDefinitions
    ) : {};
    const resolved = {};
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
    return { success: true, previous, instance: summarize(instance), componentProperties: instance.componentProperties };
  }
  async function createComponentSet(params, ctx) {
    const autoArrange2 = optBool(params, "autoArrange", false);
    const arrangement = arrangeOptions(optObject(params, "arrangeOptions") || {});
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
      const axes = variantAxes2(params);
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
    const out = { success: true };
    if (autoArrange2) {
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
  function errorSummary(err) {
    return err instanceof PluginError ? { error: err.message, code: err.code } : { error: errorText(err), code: "plugin_api_error" };
  }
  function variantAxes2(params) {
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
  var VISIT_MAX = 2e4;
  function entryOf(node) {
    return { nodeId: node.id, name: node.name, type: node.type, annotations: node.annotations.map((a) => Object.assign({}, a)) };
  }
  async function getAnnotations(params) {
    const node = await getNode(params.nodeId);
    if (node.type === "DOCUMENT" || !("children" in node)) requireProp(node, "annotations", "read annotations");
    const includeChildren = optBool(params, "includeChildren", optBool(params, "include_children", false));
    const depth = includeChildren ? (
      /** @type {number} */
      optNumber(params, "depth", 1, { min: 0, max: 20 })
    ) : 0;
    const maxChars = (
      /** @type {number} */
      optNumber(params, "maxChars", READ_MAX_CHARS, { min: 1, max: READ_MAX_CHARS })
    );
    const start = startPath(params.start);
    const own = "annotations" in node ? node.annotations.map((a) => Object.assign({}, a)) : [];
    const out = start.length ? { success: true, nodeId: node.id, nodes: [], next: null } : { success: true, nodeId: node.id, annotations: own, nodes: [], next: null };
    const walk2 = resume([node], start, []);
    let chars = 0;
    let visited = 0;
    const here = () => walk2.map((f, level) => level === walk2.length - 1 ? f.index : f.index - 1);
    while (walk2.length) {
      const frame = walk2[walk2.length - 1];
      if (frame.index >= frame.siblings.length) {
        walk2.pop();
        continue;
      }
      if (visited >= VISIT_MAX) {
        out.next = here();
        break;
      }
      const layer = (
        /** @type {any} */
        frame.siblings[frame.index]
      );
      if ("annotations" in layer && layer.annotations.length) {
        const entry = entryOf(layer);
        const size = JSON.stringify(entry).length + 1;
        if (out.nodes.length && chars + size > maxChars) {
          out.next = here();
          break;
        }
        chars += size;
        out.nodes.push(entry);
      }
      visited += 1;
      frame.index += 1;
      const kids = childrenOf(layer);
      if (kids && kids.length && walk2.length - 1 < depth) walk2.push({ siblings: kids, index: 0, box: null });
    }
    return out;
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
    const wanted = list.filter((a) => a && typeof a.categoryId === "string").map((a) => a.categoryId);
    if (wanted.length) {
      const known = (await figma.annotations.getAnnotationCategoriesAsync()).map((c) => c.id);
      const missing = wanted.filter((id) => known.indexOf(id) < 0);
      if (missing.length) {
        throw notFound("Annotation categor" + (missing.length > 1 ? "ies " : "y ") + missing.join(", ") + " not found in this file. List them with design_get_annotation_categories.");
      }
    }
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
    const previous = node.annotations.map((a) => Object.assign({}, a));
    node.annotations = mode === "append" ? node.annotations.concat(clean) : clean;
    return { success: true, nodeId: node.id, previous, annotations: node.annotations.map((a) => Object.assign({}, a)) };
  }
  async function getAnnotationCategories() {
    const categories = await figma.annotations.getAnnotationCategoriesAsync();
    return { success: true, categories: categories.map((c) => ({ id: c.id, label: c.label, color: c.color, isPreset: c.isPreset })) };
  }

  // plugin/src/code/methods/slots.js
  async function createSlot(params) {
    const node = await mainComponentOnly(await getNode(params.nodeId), "create a slot");
    requireType(node, ["COMPONENT"], "create a slot (slots go into a component or one variant of a set)");
    const component = (
      /** @type {ComponentNode} */
      node
    );
    if (typeof component.createSlot !== "function") throw new PluginError("unsupported", "This editor's plugin API has no slots yet; update the desktop app.");
    const name = optString(params, "name");
    const width = optNumber(params, "width", void 0, { min: 0.01 });
    const height = optNumber(params, "height", void 0, { min: 0.01 });
    const layout = optEnum(
      params,
      "layoutMode",
      /** @type {const} */
      ["NONE", "HORIZONTAL", "VERTICAL"],
      void 0
    );
    const slot = component.createSlot();
    try {
      if (name) slot.name = name;
      if (width !== void 0 || height !== void 0) slot.resize(width || slot.width, height || slot.height);
      if (layout) slot.layoutMode = layout;
    } catch (err) {
      slot.remove();
      throw new PluginError("plugin_api_error", "CREATE_SLOT failed: " + errorText(err) + ". The slot was removed again.", { rolledBack: true });
    }
    return { success: true, slot: summarize(slot), componentId: component.id };
  }
  async function addSlotProperty(params) {
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
        "Node " + frame.id + " (" + frame.name + ") is not a direct child of " + node.name + (node.type === "COMPONENT_SET" ? "'s variants" : "") + ". A slot binds a frame placed directly in the component: move it there first, or use design_create_slot."
      );
    }
    requireType(frame, ["FRAME"], "bind a slot property (it needs a frame)");
    const f = (
      /** @type {any} */
      frame
    );
    if (f.layoutMode === "GRID") {
      throw badParams("Frame " + frame.id + " (" + frame.name + ") uses GRID layout, which slots do not allow: set it to NONE, HORIZONTAL or VERTICAL first.");
    }
    const refs = f.componentPropertyReferences;
    if (refs && refs.slotContentId) {
      throw conflict("Frame " + frame.id + " (" + frame.name + ") is already the content of slot property '" + refs.slotContentId + "'.");
    }
    const options = {};
    if (description !== void 0) options.description = description;
    if (preferred) options.preferredValues = preferred;
    const fullName = owner.addComponentProperty(propertyName, "SLOT", "", Object.keys(options).length ? options : void 0);
    try {
      f.componentPropertyReferences = Object.assign({}, refs || {}, { slotContentId: fullName });
    } catch (err) {
      owner.deleteComponentProperty(fullName);
      throw new PluginError(
        "plugin_api_error",
        "The design tool refused to bind frame " + frame.id + " (" + frame.name + ") to the slot property: " + errorText(err) + ". The property was removed again.",
        { rolledBack: true }
      );
    }
    const def = owner.componentPropertyDefinitions[fullName];
    return {
      success: true,
      propertyName: fullName,
      componentId: owner.id,
      frameId: frame.id,
      definition: def ? JSON.parse(JSON.stringify(def)) : null
    };
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
    const clear = optBool(params, "clearExisting", false);
    let child;
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
        movedFrom = from ? { parentId: from.id, index: (
          /** @type {any} */
          from.children.indexOf(source)
        ) } : void 0;
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
        VECTOR: () => figma.createVector()
      };
      const props = optObject(params, "properties") || {};
      const name = optString(props, "name");
      const width = optNumber(props, "width", void 0, { min: 0.01, max: 1e5 });
      const height = optNumber(props, "height", void 0, { min: 0.01, max: 1e5 });
      const text = optString(props, "text");
      if (text !== void 0 && type !== "TEXT") throw badParams("properties.text sets the characters of a TEXT node; this call makes a " + type + ".");
      child = create[
        /** @type {keyof typeof create} */
        type
      ]();
      made = true;
      try {
        if (name !== void 0) child.name = name;
        if (text !== void 0) {
          const node = (
            /** @type {TextNode} */
            child
          );
          await loadFontsOf(node);
          node.characters = text;
        }
        if ((width !== void 0 || height !== void 0) && "resize" in child) child.resize(width || child.width, height || child.height);
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
    const out = { success: true, slot: summarize(slot), appended: summarize(child), removedChildren: removed };
    if (child.type === "TEXT" && made && !params.sourceNodeId) out.appended.characters = echoText(
      /** @type {TextNode} */
      child.characters
    );
    if (movedFrom) out.movedFrom = movedFrom;
    return out;
  }
  async function resetSlot(params) {
    const slot = await findSlot(params);
    const before = slot.children.length;
    slot.resetSlot();
    return { success: true, previousChildCount: before, slot: Object.assign(summarize(slot), { childCount: slot.children.length }) };
  }

  // plugin/src/code/methods/edit.js
  var MAX_IMAGE_BYTES = 32 * 1024 * 1024;
  async function resizeNode(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "resize", "resize");
    const width = reqNumber(params, "width", { min: 0.01, max: 1e5 });
    const height = reqNumber(params, "height", { min: 0.01, max: 1e5 });
    const previous = { width: node.width, height: node.height };
    if (optBool(params, "withConstraints", true)) node.resize(width, height);
    else node.resizeWithoutConstraints(width, height);
    return { success: true, previous, node: summarize(node) };
  }
  async function moveNode(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "x", "move");
    const x = reqNumber(params, "x");
    const y = reqNumber(params, "y");
    const previous = { x: node.x, y: node.y };
    node.x = x;
    node.y = y;
    return { success: true, previous, node: summarize(node) };
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
      let paint2 = solidPaint(p.color === void 0 && p.variableId ? "#000000" : p.color, typeof p.opacity === "number" ? p.opacity : void 0, what + "[" + i + "].color");
      if (p.variableId) {
        const variable = await figma.variables.getVariableByIdAsync(p.variableId);
        if (!variable) throw new PluginError("not_found", "Variable " + p.variableId + " (" + what + "[" + i + "].variableId) does not exist in this file.");
        if (variable.resolvedType !== "COLOR") throw badParams("Variable " + variable.name + " is " + variable.resolvedType + "; a fill needs a COLOR variable.");
        paint2 = figma.variables.setBoundVariableForPaint(paint2, "color", variable);
      }
      out.push(paint2);
    }
    return out;
  }
  async function setFills(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "fills", "set fills");
    const paints2 = await buildPaints(reqArray(params, "fills"), "fills");
    const previous = describePaints(node.fills);
    node.fills = paints2;
    return { success: true, previous: { fills: previous }, node: summarize(node), fills: describePaints(node.fills) };
  }
  async function setStrokes(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "strokes", "set strokes");
    const paints2 = await buildPaints(reqArray(params, "strokes"), "strokes");
    const weight = optNumber(params, "strokeWeight", void 0, { min: 0, max: 1e3 });
    const previous = { strokes: describePaints(node.strokes), strokeWeight: node.strokeWeight === figma.mixed ? "mixed" : node.strokeWeight };
    node.strokes = paints2;
    if (weight !== void 0) node.strokeWeight = weight;
    return { success: true, previous, node: summarize(node), strokes: describePaints(node.strokes), strokeWeight: node.strokeWeight };
  }
  async function setOpacity(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "opacity", "set opacity");
    const opacity = reqNumber(params, "opacity", { min: 0, max: 1 });
    const previous = { opacity: node.opacity };
    node.opacity = opacity;
    return { success: true, previous, node: summarize(node), opacity: node.opacity };
  }
  async function setCornerRadius(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "cornerRadius", "set the corner radius");
    const radius = reqNumber(params, "radius", { min: 0, max: 1e5 });
    const previous = { cornerRadius: node.cornerRadius === figma.mixed ? "mixed" : node.cornerRadius };
    node.cornerRadius = radius;
    return { success: true, previous, node: summarize(node), cornerRadius: node.cornerRadius };
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
    const previous = {};
    nodes.forEach((n) => {
      previous[n.id] = describePaints(n.fills);
    });
    const done = [];
    try {
      nodes.forEach((n) => {
        const before = n.fills;
        n.fills = [{ type: "IMAGE", imageHash: image.hash, scaleMode }];
        done.push([n, before]);
      });
    } catch (err) {
      done.reverse().forEach(([n, before]) => n.fills = before);
      throw new PluginError("plugin_api_error", "SET_IMAGE_FILL failed: " + errorText(err) + ". The fills already changed were set back.", { rolledBack: true });
    }
    return { success: true, imageHash: image.hash, format: kind, byteLength: bytes.length, previous: { fills: previous }, nodes: nodes.map(summarize) };
  }
  async function cloneNode(params) {
    const node = requireProp(await getSceneNode(params.nodeId), "clone", "clone");
    const copy = node.clone();
    return { success: true, node: summarize(copy), sourceId: node.id };
  }
  async function deletedInfo(node) {
    const n = (
      /** @type {any} */
      node
    );
    const parent = node.parent;
    const info = summarize(node);
    info.index = parent ? (
      /** @type {any} */
      parent.children.indexOf(node)
    ) : null;
    if (parent) info.parentName = parent.name;
    if ("fills" in n && n.fills !== figma.mixed && n.fills.length) info.fills = describePaints(n.fills);
    if ("strokes" in n && n.strokes.length) info.strokes = describePaints(n.strokes);
    if (typeof n.opacity === "number" && n.opacity !== 1) info.opacity = n.opacity;
    if (typeof n.cornerRadius === "number" && n.cornerRadius) info.cornerRadius = n.cornerRadius;
    if (node.type === "TEXT") info.characters = echoText(n.characters);
    if ("children" in n) info.childCount = n.children.length;
    if (node.type === "COMPONENT" || node.type === "COMPONENT_SET") info.key = n.key;
    if (node.type === "INSTANCE") {
      const main = await /** @type {InstanceNode} */
      node.getMainComponentAsync();
      info.mainComponent = main ? { id: main.id, key: main.key, name: main.name } : null;
    }
    return info;
  }
  async function deleteNode(params) {
    const node = await getNode(params.nodeId);
    if (node.type === "DOCUMENT") throw badParams("The document itself cannot be deleted.");
    if (node.type === "PAGE" && figma.root.children.length <= 1) throw badParams("The only page of a file cannot be deleted.");
    const info = await deletedInfo(node);
    node.remove();
    return { success: true, deleted: info };
  }
  async function renameNode(params) {
    const node = await getNode(params.nodeId);
    const newName = reqString(params, "newName");
    const oldName = node.name;
    node.name = newName;
    return { success: true, oldName, newName: node.name, node: summarize(node) };
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
    let paints2;
    if (props.fills !== void 0) {
      paints2 = await buildPaints(Array.isArray(props.fills) ? props.fills : [typeof props.fills === "string" ? { type: "SOLID", color: props.fills } : props.fills], "properties.fills");
    } else if (typeof props.color === "string") {
      paints2 = [solidPaint(props.color, void 0, "properties.color")];
    }
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
      if (paints2) n.fills = paints2;
    } catch (err) {
      node.remove();
      throw err;
    }
    return { success: true, node: summarize(node) };
  }
  var MAX_EDITS = 5e3;
  var LISTED_EDITS = 100;
  var EDITABLE = {
    x: { prop: "x", check: (v, where) => finite(v, where, -1e6, 1e6) },
    y: { prop: "y", check: (v, where) => finite(v, where, -1e6, 1e6) },
    width: { prop: "resize", check: (v, where) => finite(v, where, 0.01, 1e5) },
    height: { prop: "resize", check: (v, where) => finite(v, where, 0.01, 1e5) },
    name: {
      prop: "name",
      check: (v, where) => {
        if (typeof v !== "string" || !v) throw badParams(where + " must be a non-empty string.");
        return v;
      }
    },
    visible: {
      prop: "visible",
      check: (v, where) => {
        if (typeof v !== "boolean") throw badParams(where + " must be true or false.");
        return v;
      }
    },
    opacity: { prop: "opacity", check: (v, where) => finite(v, where, 0, 1) },
    cornerRadius: { prop: "cornerRadius", check: (v, where) => finite(v, where, 0, 1e5) },
    fills: { prop: "fills", check: (v) => v }
  };
  function finite(v, where, min, max) {
    if (typeof v !== "number" || !isFinite(v) || v < min || v > max) throw badParams(where + " must be a number from " + min + " to " + max + ".");
    return v;
  }
  async function planEdits(items, pacer) {
    const planned = [];
    const seen = /* @__PURE__ */ new Map();
    for (let i = 0; i < items.length; i++) {
      await pacer.check();
      const item = items[i];
      const at = "edits[" + i + "]";
      if (!isPlainObject(item)) throw badParams(at + " must be an object with 'nodeId' and the properties to set.");
      let node;
      try {
        node = await getSceneNode(item.nodeId, at + ".nodeId");
      } catch (err) {
        if (err instanceof PluginError) throw new PluginError(err.code, at + ": " + err.message, err.extra);
        throw err;
      }
      const twin = seen.get(node.id);
      if (twin !== void 0) throw conflict(at + ": edits[" + twin + "] edits node " + node.id + " too; give each node one edit.");
      seen.set(node.id, i);
      const set = {};
      for (const key of Object.keys(item)) {
        if (key === "nodeId") continue;
        const rule = EDITABLE[key];
        const where = at + "." + key + " (" + node.type + " '" + node.name + "')";
        if (!rule) throw badParams(at + ": '" + key + "' cannot be set here; the properties are " + Object.keys(EDITABLE).join(", ") + ".");
        if (!(rule.prop in node)) throw new PluginError("wrong_node_type", where + ": a " + node.type + " has no " + key + ".");
        set[key] = key === "fills" ? await buildPaints(Array.isArray(item.fills) ? item.fills : [], at + ".fills") : rule.check(item[key], where);
      }
      if (!Object.keys(set).length) throw badParams(at + ": give at least one property to set besides 'nodeId'.");
      const parent = node.parent;
      if (("x" in set || "y" in set) && parent && parent.layoutMode && parent.layoutMode !== "NONE" && node.layoutPositioning !== "ABSOLUTE") {
        throw badParams(at + ": " + node.type + " '" + node.name + "' is placed by the auto layout of '" + parent.name + "'; x and y do not apply to it. Leave them out, or move its parent.");
      }
      planned.push({ index: i, node, set });
    }
    return planned;
  }
  function applyEdit(edit) {
    const node = edit.node;
    const set = edit.set;
    const before = {};
    if ("width" in set || "height" in set) {
      before.size = [node.width, node.height];
      node.resize("width" in set ? set.width : node.width, "height" in set ? set.height : node.height);
    }
    for (const key of Object.keys(set)) {
      if (key === "width" || key === "height") continue;
      before[key] = node[key];
      node[key] = set[key];
    }
    return before;
  }
  function undoEdit(done) {
    const node = done.node;
    for (const key of Object.keys(done.before)) {
      if (key === "size") node.resize(done.before.size[0], done.before.size[1]);
      else node[key] = done.before[key];
    }
  }
  async function batchEditNodes(params, ctx) {
    const items = reqArray(params, "edits");
    if (!items.length) throw badParams("'edits' is empty: give at least one edit.");
    if (items.length > MAX_EDITS) throw badParams("'edits' has " + items.length + " items; the limit is " + MAX_EDITS + " per call. Split it into calls of at most " + MAX_EDITS + ".");
    const planned = await planEdits(items, new Pacer(ctx, 0));
    const done = [];
    let current = planned[0];
    const pacer = new Pacer(ctx, planned.length);
    try {
      for (const edit of planned) {
        current = edit;
        done.push({ node: edit.node, before: applyEdit(edit) });
        await pacer.step((n, total) => "Edited " + n + " of " + total + " layers");
      }
    } catch (err) {
      let left = 0;
      done.reverse().forEach((d) => {
        try {
          undoEdit(d);
        } catch (undoErr) {
          left++;
        }
      });
      const undone = left ? "Setting back the " + done.length + " layers already edited failed for " + left + "; check them." : "Nothing was kept: the " + done.length + " layers already edited were set back.";
      if (err instanceof PluginError && err.code === "cancelled") throw new PluginError("cancelled", err.message + " " + undone);
      throw new PluginError("plugin_api_error", "The design tool refused edits[" + current.index + "] (" + current.node.id + "): " + errorText(err) + ". " + undone, {
        rolledBack: left === 0,
        failedIndex: current.index,
        failedName: current.node.name
      });
    }
    const out = { success: true, count: done.length, edited: planned.slice(0, LISTED_EDITS).map((e) => e.node.id) };
    if (planned.length > LISTED_EDITS) out.notListed = planned.length - LISTED_EDITS;
    return out;
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

  // plugin/src/code/rendered.js
  var CLEAR = { r: 0, g: 0, b: 0, a: 0 };
  var WHITE = { r: 1, g: 1, b: 1, a: 1 };
  var PLAIN_BLENDS = ["NORMAL", "PASS_THROUGH"];
  function over(top, bottom) {
    const a = top.a + bottom.a * (1 - top.a);
    if (a <= 0) return CLEAR;
    const mix = (t, b) => (t * top.a + b * bottom.a * (1 - top.a)) / a;
    return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a };
  }
  function faded(c, opacity) {
    return { r: c.r, g: c.g, b: c.b, a: c.a * opacity };
  }
  function paintColor(paint2) {
    const opacity = typeof paint2.opacity === "number" ? paint2.opacity : 1;
    const plain = !paint2.blendMode || PLAIN_BLENDS.indexOf(paint2.blendMode) >= 0;
    if (paint2.type === "SOLID") {
      const c = paint2.color;
      return { color: { r: c.r, g: c.g, b: c.b, a: (typeof c.a === "number" ? c.a : 1) * opacity }, exact: plain };
    }
    if (typeof paint2.type === "string" && paint2.type.indexOf("GRADIENT") === 0 && Array.isArray(paint2.gradientStops) && paint2.gradientStops.length) {
      const stops = paint2.gradientStops;
      const mean = (k) => stops.reduce((s, st) => s + (k === "a" && typeof st.color.a !== "number" ? 1 : st.color[k]), 0) / stops.length;
      return { color: { r: mean("r"), g: mean("g"), b: mean("b"), a: mean("a") * opacity }, exact: false };
    }
    return null;
  }
  function fillsColor(node, notes) {
    if (!Array.isArray(node.fills)) return node.fills === void 0 ? CLEAR : null;
    let color = CLEAR;
    node.fills.forEach((paint2) => {
      if (paint2.visible === false) return;
      const p = paintColor(paint2);
      if (!p) {
        notes.unknown.push(node.name);
        return;
      }
      if (!p.exact) notes.approximate.push(node.name);
      color = over(p.color, color);
    });
    return color;
  }
  function boxOf2(node) {
    const b = node.absoluteBoundingBox;
    return b ? b : { x: node.x || 0, y: node.y || 0, width: node.width || 0, height: node.height || 0 };
  }
  function covers(outer, inner) {
    const e = 0.01;
    return outer.x <= inner.x + e && outer.y <= inner.y + e && outer.x + outer.width >= inner.x + inner.width - e && outer.y + outer.height >= inner.y + inner.height - e;
  }
  function visible(node) {
    return node.visible !== false && (typeof node.opacity !== "number" || node.opacity > 0);
  }
  function opacityOf(node) {
    return typeof node.opacity === "number" ? node.opacity : 1;
  }
  function paintedOver(node, area, notes) {
    let color = node.type === "TEXT" ? CLEAR : fillsColor(node, notes) || CLEAR;
    if (node.blendMode && PLAIN_BLENDS.indexOf(node.blendMode) < 0) notes.approximate.push(node.name);
    (node.children || []).forEach((child) => {
      if (visible(child) && child.type !== "TEXT" && covers(boxOf2(child), area)) color = over(faded(paintedOver(child, area, notes), opacityOf(child)), color);
    });
    return color;
  }
  function pageBackground() {
    const page = (
      /** @type {any} */
      figma.currentPage
    );
    const bg = Array.isArray(page.backgrounds) ? page.backgrounds.filter((p) => p.visible !== false && p.type === "SOLID") : [];
    if (!bg.length) return WHITE;
    const c = bg[bg.length - 1].color;
    return over({ r: c.r, g: c.g, b: c.b, a: typeof bg[bg.length - 1].opacity === "number" ? bg[bg.length - 1].opacity : 1 }, WHITE);
  }
  function renderedTextColors(text) {
    const notes = { approximate: [], unknown: [] };
    const own = fillsColor(text, notes);
    if (!own || own.a <= 0 || opacityOf(text) <= 0) return null;
    const area = boxOf2(text);
    let withText = faded(own, opacityOf(text));
    let without = CLEAR;
    let child = text;
    let parent = text.parent;
    while (parent && parent.type !== "PAGE" && parent.type !== "DOCUMENT") {
      let below = fillsColor(parent, notes) || CLEAR;
      const siblings = parent.children || [];
      for (let i = 0; i < siblings.length && siblings[i] !== child; i++) {
        const s = siblings[i];
        if (visible(s) && s.type !== "TEXT" && covers(boxOf2(s), area)) below = over(faded(paintedOver(s, area, notes), opacityOf(s)), below);
      }
      const o = opacityOf(parent);
      if (o <= 0) return null;
      withText = faded(over(withText, below), o);
      without = faded(over(without, below), o);
      child = parent;
      parent = parent.parent;
    }
    const page = pageBackground();
    return { foreground: over(withText, page), background: over(without, page), approximate: notes.approximate, unknown: notes.unknown };
  }

  // plugin/src/code/methods/audit.js
  var RULE_GROUPS = {
    wcag: ["wcag-contrast", "wcag-text-size", "wcag-target-size"],
    "design-system": ["ds-hardcoded-color", "ds-detached-text-style", "ds-missing-style"],
    layout: ["layout-no-autolayout", "layout-empty-frame", "layout-subpixel"],
    "best-practice": ["bp-default-name", "bp-hidden-layer", "bp-empty-text"]
  };
  var ALL_RULES = Object.keys(RULE_GROUPS).reduce((all, g) => all.concat(
    /** @type {any} */
    RULE_GROUPS[g]
  ), []);
  var DEFAULT_NAME = /^(Frame|Rectangle|Ellipse|Group|Text|Line|Vector|Polygon|Star|Component|Instance|Section)( \d+)?$/;
  var INTERACTIVE_NAME = /button|link|checkbox|check box|radio|switch|toggle|input|text ?field|select|dropdown|tab\b|chip|menu ?item|slider|stepper|icon ?button/i;
  var LARGE_TEXT_PX = 24;
  var LARGE_BOLD_TEXT_PX = 18.66;
  var BOLD_WEIGHT = 700;
  var MIN_TEXT_PX = 12;
  var DEFAULT_TARGET_PX = 24;
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
  function shownRatio(x) {
    return Math.floor(x * 100) / 100;
  }
  function isLarge(node) {
    const size = node.fontSize === figma.mixed ? null : node.fontSize;
    const bold = node.fontWeight !== figma.mixed && typeof node.fontWeight === "number" && node.fontWeight >= BOLD_WEIGHT;
    return size !== null && (size >= LARGE_TEXT_PX || bold && size >= LARGE_BOLD_TEXT_PX);
  }
  function textContrast(node) {
    const seen = renderedTextColors(node);
    if (!seen) return null;
    const ratio = contrastRatio(seen.foreground, seen.background);
    const required = isLarge(node) ? 3 : 4.5;
    const out = { ratio, required, foreground: toHex(seen.foreground), background: toHex(seen.background) };
    if (seen.unknown.length) out.unknownBehind = seen.unknown;
    if (seen.approximate.length) out.approximateBehind = seen.approximate;
    return out;
  }
  function contrastFinding(c) {
    if (c.unknownBehind) {
      return { severity: "info", message: "Contrast cannot be measured: an image is behind the text (" + c.unknownBehind.join(", ") + "); check it by eye.", foreground: c.foreground };
    }
    if (c.ratio >= c.required) return null;
    const f = {
      severity: "error",
      message: "Text contrast " + shownRatio(c.ratio).toFixed(2) + ":1 (" + c.foreground + " on " + c.background + " as rendered) is below " + c.required + ":1.",
      ratio: shownRatio(c.ratio),
      required: c.required,
      foreground: c.foreground,
      background: c.background
    };
    if (c.approximateBehind) f.approximate = "gradients or blend modes behind (" + c.approximateBehind.join(", ") + ") were averaged";
    return f;
  }
  function isInteractive(node) {
    if (Array.isArray(node.reactions) && node.reactions.length > 0) return true;
    return (node.type === "INSTANCE" || node.type === "COMPONENT" || node.type === "COMPONENT_SET") && INTERACTIVE_NAME.test(node.name);
  }
  function hardCoded(paint2) {
    return paint2.type === "SOLID" && paint2.visible !== false && !(paint2.boundVariables && paint2.boundVariables.color);
  }
  async function designSystem() {
    const colors = {};
    const fonts = {};
    const f = (
      /** @type {any} */
      figma
    );
    if (f.variables && typeof f.variables.getLocalVariablesAsync === "function") {
      const collections = await f.variables.getLocalVariableCollectionsAsync();
      const defaultMode = {};
      collections.forEach((c) => defaultMode[c.id] = c.defaultModeId);
      (await f.variables.getLocalVariablesAsync("COLOR")).forEach((v) => {
        const value = v.valuesByMode[defaultMode[v.variableCollectionId]];
        if (value && typeof value.r === "number") colors[toHex(value)] = colors[toHex(value)] || "variable '" + v.name + "'";
      });
    }
    if (typeof f.getLocalPaintStylesAsync === "function") {
      (await f.getLocalPaintStylesAsync()).forEach((s) => {
        const p = s.paints && s.paints.length === 1 && s.paints[0];
        if (p && p.type === "SOLID") colors[toHex(Object.assign({ a: p.opacity }, p.color))] = colors[toHex(Object.assign({ a: p.opacity }, p.color))] || "style '" + s.name + "'";
      });
    }
    if (typeof f.getLocalTextStylesAsync === "function") {
      (await f.getLocalTextStylesAsync()).forEach((s) => {
        if (s.fontName) fonts[fontKey(s.fontName, s.fontSize)] = s.name;
      });
    }
    return { colors, fonts };
  }
  function fontKey(fontName, size) {
    return fontName.family + "|" + fontName.style + "|" + size;
  }
  async function styleExists(ctx, id) {
    if (!ctx.styles.has(id)) ctx.styles.set(id, !!await figma.getStyleByIdAsync(id));
    return ctx.styles.get(id);
  }
  async function checkNode(node, ctx, report) {
    const on = (r) => ctx.rules.indexOf(r) >= 0;
    if (node.type === "TEXT") {
      const size = node.fontSize === figma.mixed ? null : node.fontSize;
      if (on("wcag-contrast")) {
        const c = textContrast(node);
        const f = c && contrastFinding(c);
        if (f) report(Object.assign({ rule: "wcag-contrast", severity: f.severity, message: f.message }, f));
      }
      if (on("wcag-text-size") && size !== null && size < MIN_TEXT_PX) {
        report({ rule: "wcag-text-size", severity: "warning", message: "Font size " + size + " px is below " + MIN_TEXT_PX + " px." });
      }
      if (on("ds-detached-text-style") && !node.textStyleId && node.fontName && node.fontName !== figma.mixed) {
        const match = ctx.system.fonts[fontKey(node.fontName, size)];
        if (match) report({ rule: "ds-detached-text-style", severity: "warning", message: "Text matches text style '" + match + "' but is not attached to it; re-attach the style." });
        else report({ rule: "ds-detached-text-style", severity: "info", message: "Text does not use a text style." });
      }
      if (on("bp-empty-text") && typeof node.characters === "string" && node.characters.trim() === "") {
        report({ rule: "bp-empty-text", severity: "warning", message: "Text layer is empty." });
      }
    }
    if (on("wcag-target-size") && isInteractive(node) && (node.width < ctx.targetSize || node.height < ctx.targetSize)) {
      report({ rule: "wcag-target-size", severity: "error", message: "Interactive target " + Math.round(node.width) + "×" + Math.round(node.height) + " is smaller than " + ctx.targetSize + "×" + ctx.targetSize + " (WCAG 2.5.8)." });
    }
    if (on("ds-hardcoded-color")) {
      [["fills", "fillStyleId", "Fill"], ["strokes", "strokeStyleId", "Stroke"]].forEach(([prop, styleProp, label2]) => {
        const paints2 = node[prop];
        if (!Array.isArray(paints2) || node[styleProp] && node[styleProp] !== figma.mixed) return;
        paints2.filter(hardCoded).forEach((p) => {
          const hex = toHex(Object.assign({ a: p.opacity }, p.color));
          const match = ctx.system.colors[hex];
          report({ rule: "ds-hardcoded-color", severity: "warning", message: label2 + " " + hex + " is not bound to a variable or style" + (match ? "; it equals " + match + ", bind it." : "."), color: hex });
        });
      });
    }
    if (on("ds-missing-style")) {
      for (const prop of ["fillStyleId", "strokeStyleId", "textStyleId", "effectStyleId"]) {
        const id = node[prop];
        if (typeof id === "string" && id && !await styleExists(ctx, id)) {
          report({ rule: "ds-missing-style", severity: "warning", message: prop.replace("StyleId", "") + " style " + id + " no longer exists (deleted or unpublished); attach a current style." });
        }
      }
    }
    if ((node.type === "FRAME" || node.type === "COMPONENT") && node.children) {
      if (on("layout-no-autolayout") && node.children.length > 1 && node.layoutMode === "NONE") {
        report({ rule: "layout-no-autolayout", severity: "info", message: "Frame with " + node.children.length + " children does not use auto layout." });
      }
      if (on("layout-empty-frame") && node.children.length === 0) report({ rule: "layout-empty-frame", severity: "info", message: "Frame is empty." });
    }
    if (on("layout-subpixel") && node.type !== "TEXT" && [node.x, node.y, node.width, node.height].some((v) => typeof v === "number" && Math.abs(v - Math.round(v)) > 0.01)) {
      report({ rule: "layout-subpixel", severity: "info", message: "Position or size is not on whole pixels (" + [node.x, node.y, node.width, node.height].map((v) => typeof v === "number" ? +v.toFixed(2) : v).join(", ") + ")." });
    }
    if (on("bp-default-name") && DEFAULT_NAME.test(node.name)) report({ rule: "bp-default-name", severity: "info", message: "Layer keeps its default name '" + node.name + "'." });
  }
  var LINT_VISIT_MAX = 5e3;
  async function lintDesign(params) {
    const root = params.nodeId ? await getNode(params.nodeId) : figma.currentPage;
    const rules = selectRules(params.rules);
    const maxDepth = (
      /** @type {number} */
      optNumber(params, "maxDepth", 10, { min: 0, max: 50 })
    );
    const maxFindings = (
      /** @type {number} */
      optNumber(params, "maxFindings", 100, { min: 0, max: 5e3 })
    );
    const paged = params.start !== void 0 && params.start !== null;
    const start = startPath(params.start);
    const needsSystem = rules.indexOf("ds-hardcoded-color") >= 0 || rules.indexOf("ds-detached-text-style") >= 0;
    const ctx = { rules, targetSize: DEFAULT_TARGET_PX, system: needsSystem ? await designSystem() : { colors: {}, fonts: {} }, styles: /* @__PURE__ */ new Map() };
    const findings = [];
    const counts = {};
    let visited = 0;
    let chars = 0;
    const report = (node, f) => {
      counts[f.rule] = (counts[f.rule] || 0) + 1;
      if (findings.length < maxFindings) {
        const entry = Object.assign({ nodeId: node.id, nodeName: node.name, nodeType: node.type }, f);
        findings.push(entry);
        if (paged) chars += JSON.stringify(entry).length + 1;
      }
    };
    const walk2 = resume([root], start, []);
    const here = () => walk2.map((f, level) => level === walk2.length - 1 ? f.index : f.index - 1);
    let next = null;
    while (walk2.length) {
      const frame = walk2[walk2.length - 1];
      if (frame.index >= frame.siblings.length) {
        walk2.pop();
        continue;
      }
      if (paged && (visited >= LINT_VISIT_MAX || chars >= READ_MAX_CHARS)) {
        next = here();
        break;
      }
      const node = (
        /** @type {any} */
        frame.siblings[frame.index]
      );
      frame.index += 1;
      visited++;
      if (node.type !== "PAGE") {
        if (node.visible === false) {
          if (rules.indexOf("bp-hidden-layer") >= 0) report(node, { rule: "bp-hidden-layer", severity: "info", message: "Layer is hidden." });
          continue;
        }
        await checkNode(node, ctx, (f) => report(node, f));
      }
      const kids = childrenOf(node);
      if (kids && kids.length && walk2.length - 1 < maxDepth) walk2.push({ siblings: kids, index: 0, box: null });
    }
    const total = Object.keys(counts).reduce((s, k) => s + counts[k], 0);
    const out = { success: true, rootId: root.id, rootName: root.name, rulesRun: rules, nodesChecked: visited, counts, findings, truncated: total > findings.length };
    if (paged) out.next = next;
    return out;
  }
  function variantProps(c) {
    let own = null;
    try {
      own = c.variantProperties;
    } catch (err) {
      own = null;
    }
    if (own) return own;
    const out = {};
    String(c.name).split(",").forEach((part) => {
      const eq = part.indexOf("=");
      if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
    });
    return out;
  }
  function isDisabled(c) {
    const values = Object.keys(variantProps(c)).map((k) => variantProps(c)[k]);
    return values.concat([c.name]).some((v) => /disabled|inactive/i.test(String(v)));
  }
  function eachVisible(node, fn) {
    (node.children || []).forEach((c) => {
      if (c.visible === false) return;
      fn(c);
      eachVisible(c, fn);
    });
  }
  function undersizedTargets(targets, min) {
    const boxes = targets.map(boxOf2);
    const small = boxes.map((b) => b.width < min || b.height < min);
    const centre = (b) => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });
    const r = min / 2;
    const distToBox = (p, b) => Math.hypot(Math.max(b.x - p.x, 0, p.x - (b.x + b.width)), Math.max(b.y - p.y, 0, p.y - (b.y + b.height)));
    return targets.filter((t, i) => {
      if (!small[i]) return false;
      const c = centre(boxes[i]);
      return boxes.some((b, j) => j !== i && (distToBox(c, b) < r || small[j] && Math.hypot(c.x - centre(b).x, c.y - centre(b).y) < min));
    });
  }
  function auditComponent(c, targetSize, owner) {
    const issues = [];
    const disabled = isDisabled(c);
    const interactive = isInteractive(owner) || isInteractive(c);
    const inner = [];
    eachVisible(c, (n) => isInteractive(n) && inner.push(n));
    const alone = (t) => boxOf2(t).width < targetSize || boxOf2(t).height < targetSize;
    const failing = (interactive && alone(c) ? [c] : []).concat(undersizedTargets(inner, targetSize));
    failing.forEach((t) => {
      issues.push({ rule: "target-size", severity: disabled ? "info" : "error", nodeId: t.id, nodeName: t.name, message: "Target is " + Math.round(t.width) + "×" + Math.round(t.height) + ", below " + targetSize + "×" + targetSize + (t === c ? "" : " and too close to another target") + " (WCAG 2.5.8)." + (disabled ? " Disabled variants are exempt." : "") });
    });
    let minContrast = null;
    let texts = 0;
    eachVisible(c, (n) => {
      if (n.type !== "TEXT") return;
      texts++;
      const size = n.fontSize === figma.mixed ? null : n.fontSize;
      if (size !== null && size < MIN_TEXT_PX) issues.push({ rule: "text-size", severity: "warning", nodeId: n.id, nodeName: n.name, message: "Font size " + size + " px is below " + MIN_TEXT_PX + " px." });
      const contrast = textContrast(n);
      if (!contrast) return;
      if (!contrast.unknownBehind) minContrast = minContrast === null ? contrast.ratio : Math.min(minContrast, contrast.ratio);
      const f = contrastFinding(contrast);
      if (!f) return;
      if (disabled && f.severity === "error") {
        f.severity = "info";
        f.message += " Disabled variants are exempt.";
      }
      issues.push(Object.assign({ rule: "contrast", nodeId: n.id, nodeName: n.name }, f));
    });
    if (interactive && texts === 0 && !owner.description) {
      issues.push({ rule: "accessible-name", severity: "warning", nodeId: owner.id, message: "No visible text label and no description: document the accessible name (aria-label) it needs." });
    }
    const score = Math.max(0, 100 - issues.reduce((s, i) => s + (i.severity === "error" ? 20 : i.severity === "warning" ? 10 : 0), 0));
    const out = { id: c.id, name: c.name, size: { width: c.width, height: c.height }, interactive, score, issues };
    if (minContrast !== null) out.minContrast = shownRatio(minContrast);
    if (disabled) out.disabled = true;
    return out;
  }
  function auditOwner(owner, variants, interactive) {
    const issues = [];
    if (!owner.description) issues.push({ rule: "description", severity: "warning", nodeId: owner.id, message: "No description: add what it is for and how assistive technology should announce it." });
    const axes = {};
    variants.forEach((v) => {
      const props = variantProps(v);
      Object.keys(props).forEach((k) => (axes[k] = axes[k] || []).indexOf(props[k]) < 0 && axes[k].push(props[k]));
    });
    Object.keys(axes).forEach((axis) => {
      if (/^Property \d+$/.test(axis)) issues.push({ rule: "property-name", severity: "warning", nodeId: owner.id, message: "Variant property '" + axis + "' keeps its default name; name what it changes (State, Size…)." });
    });
    const values = Object.keys(axes).reduce((all, k) => all.concat(axes[k]), []);
    const hasFocus = values.some((v) => /focus/i.test(v)) || variants.some((v) => /focus/i.test(v.name));
    if (interactive && !hasFocus) issues.push({ rule: "focus-state", severity: "error", nodeId: owner.id, message: "No focus variant: add a State=Focus variant with a visible focus indicator (WCAG 2.4.7)." });
    return { issues, hasFocusState: hasFocus, hasDisabledState: values.some((v) => /disabled/i.test(v)), axes };
  }
  async function auditComponentAccessibility(params) {
    const targetSize = (
      /** @type {number} */
      optNumber(params, "targetSize", DEFAULT_TARGET_PX, { min: 1, max: 200 })
    );
    let owners;
    if (params.nodeId) {
      const node = (
        /** @type {any} */
        await getNode(params.nodeId)
      );
      if (node.type === "INSTANCE") {
        const main = await node.getMainComponentAsync();
        const owner = main && main.parent && main.parent.type === "COMPONENT_SET" ? main.parent : main;
        throw new PluginError("wrong_node_type", "Node " + node.id + " (" + node.name + ") is an instance; audit its main component" + (owner ? " '" + owner.name + "' (" + owner.id + ")" : "") + " instead.");
      }
      if (node.type !== "COMPONENT" && node.type !== "COMPONENT_SET") {
        throw new PluginError("wrong_node_type", "Node " + node.id + " (" + node.name + ") is a " + node.type + ", not a component or component set; pass a component's id (design_search_components finds them) or omit nodeId to audit every component on the page.");
      }
      owners = [node.type === "COMPONENT" && node.parent && node.parent.type === "COMPONENT_SET" ? node.parent : node];
      if (node.type === "COMPONENT" && owners[0] !== node) owners = [{ only: node, set: owners[0] }];
    } else {
      owners = figma.currentPage.findAllWithCriteria({ types: ["COMPONENT_SET", "COMPONENT"] }).filter((n) => !(n.type === "COMPONENT" && n.parent && n.parent.type === "COMPONENT_SET"));
    }
    const components = [];
    const sets = [];
    owners.forEach((entry) => {
      const owner = entry.set || entry;
      const variants = entry.only ? [entry.only] : owner.type === "COMPONENT_SET" ? owner.children.filter((c) => c.type === "COMPONENT") : [owner];
      const interactive = isInteractive(owner) || variants.some(isInteractive);
      const results = variants.map((v) => auditComponent(v, targetSize, owner));
      const whole = auditOwner(owner, owner.type === "COMPONENT_SET" ? owner.children : variants, interactive);
      results.forEach((r) => components.push(Object.assign({ owner: owner.id }, r)));
      const score = Math.max(0, Math.round(results.reduce((s, r) => s + r.score, 0) / Math.max(1, results.length)) - whole.issues.reduce((s, i) => s + (i.severity === "error" ? 20 : 10), 0));
      sets.push({ id: owner.id, name: owner.name, type: owner.type, interactive, hasFocusState: whole.hasFocusState, hasDisabledState: whole.hasDisabledState, score, issues: whole.issues });
    });
    const errors = components.reduce((s, c) => s + c.issues.filter((i) => i.severity === "error").length, 0) + sets.reduce((s, o) => s + o.issues.filter((i) => i.severity === "error").length, 0);
    return {
      success: true,
      targetSize,
      componentCount: components.length,
      errorCount: errors,
      averageScore: sets.length ? Math.round(sets.reduce((s, o) => s + o.score, 0) / sets.length) : null,
      owners: sets,
      components
    };
  }
  var AUDIT_VISIT_MAX = 5e3;
  function topSolid(paints2) {
    if (!Array.isArray(paints2)) return null;
    for (let i = paints2.length - 1; i >= 0; i--) {
      const p = paints2[i];
      if (p && p.type === "SOLID" && p.visible !== false) return p;
    }
    return null;
  }
  function auditDescends(node) {
    return "children" in node && node.type !== "INSTANCE" && node.type !== "TEXT";
  }
  async function readAuditNodes(params) {
    await figma.loadAllPagesAsync();
    const start = startPath(params.start);
    const pages = figma.root.children;
    const walk2 = resume(pages, start, []).map((frame) => Object.assign(frame, { bg: null }));
    for (let level = 1; level < walk2.length; level++) {
      const parent = (
        /** @type {any} */
        walk2[level - 1].siblings[walk2[level - 1].index - 1]
      );
      const paint2 = level === 1 ? topSolid(parent.backgrounds) : topSolid(parent.fills);
      walk2[level].bg = paint2 ? paint2.color : walk2[level - 1].bg;
    }
    const records = [];
    const instances = [];
    let chars = 0;
    let visited = 0;
    let next = null;
    while (walk2.length) {
      const frame = walk2[walk2.length - 1];
      if (frame.index >= frame.siblings.length) {
        walk2.pop();
        continue;
      }
      if (visited >= AUDIT_VISIT_MAX || chars >= READ_MAX_CHARS) {
        next = walk2.map((f, level) => level === walk2.length - 1 ? f.index : f.index - 1);
        break;
      }
      const node = (
        /** @type {any} */
        frame.siblings[frame.index]
      );
      frame.index += 1;
      visited += 1;
      const paint2 = node.type === "PAGE" ? null : topSolid(node.fills);
      if (node.type === "TEXT" || node.type === "INSTANCE" || paint2) {
        const r = { id: node.id, type: node.type };
        if (paint2) {
          r.fill = paint2.color;
          r.fillBound = !!(paint2.boundVariables && paint2.boundVariables.color);
          r.fillStyle = typeof node.fillStyleId === "string" && node.fillStyleId !== "";
        }
        if (node.type === "TEXT") {
          if (typeof node.fontSize === "number") r.fontSize = node.fontSize;
          r.textStyle = typeof node.textStyleId === "string" && node.textStyleId !== "";
          if (frame.bg) r.background = frame.bg;
        }
        if (node.type === "INSTANCE") instances.push([r, node]);
        records.push(r);
        chars += JSON.stringify(r).length + 1;
      }
      if (auditDescends(node) && node.children.length) {
        const behind = node.type === "PAGE" ? topSolid(node.backgrounds) : paint2;
        walk2.push({ siblings: node.children, index: 0, box: null, bg: behind ? behind.color : frame.bg });
      }
    }
    for (const [r, node] of instances) {
      const main = typeof node.getMainComponentAsync === "function" ? await node.getMainComponentAsync() : null;
      if (main) r.component = main.id;
    }
    const out = { success: true, records, next };
    if (!start.length) {
      const styles = [];
      for (const [fn, type] of [["getLocalPaintStylesAsync", "PAINT"], ["getLocalTextStylesAsync", "TEXT"], ["getLocalEffectStylesAsync", "EFFECT"]]) {
        const f = (
          /** @type {any} */
          figma
        );
        if (typeof f[fn] !== "function") continue;
        for (const s of await f[fn]()) styles.push({ id: s.id, name: s.name, type, description: s.description || "" });
      }
      out.styles = styles;
    }
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
  function requireBoard(method, fn) {
    if (figma.editorType !== "figjam" || typeof /** @type {any} */
    figma[fn] !== "function") throw unsupported(method, "whiteboard (FigJam)");
  }
  function place(node, p) {
    if (typeof p.x === "number") node.x = p.x;
    if (typeof p.y === "number") node.y = p.y;
  }
  function checkSticky(p, i) {
    const where = "stickies[" + i + "]";
    if (!p || typeof p !== "object") throw badParams(where + " must be an object {text, color?, x?, y?}.");
    if (typeof p.text !== "string") throw badParams(where + ".text is required and must be a string.");
    if (p.color !== void 0 && p.color !== null && !Object.prototype.hasOwnProperty.call(STICKY_COLORS, p.color)) {
      throw badParams(where + ".color must be one of " + Object.keys(STICKY_COLORS).join(", ") + ".");
    }
    for (const axis of ["x", "y"]) {
      if (p[axis] !== void 0 && p[axis] !== null && (typeof p[axis] !== "number" || !isFinite(p[axis]))) {
        throw badParams(where + "." + axis + " must be a finite number.");
      }
    }
    return { text: p.text, color: p.color || "YELLOW", x: p.x, y: p.y };
  }
  async function makeSticky(p) {
    const sticky = figma.createSticky();
    try {
      await figma.loadFontAsync(
        /** @type {FontName} */
        sticky.text.fontName
      );
      sticky.text.characters = p.text;
      sticky.fills = [solidPaint(STICKY_COLORS[p.color])];
      place(sticky, p);
    } catch (err) {
      sticky.remove();
      throw err;
    }
    return sticky;
  }
  async function createSticky(params) {
    requireBoard("CREATE_STICKY", "createSticky");
    reqString(params, "text");
    const sticky = await makeSticky(checkSticky(params, 0));
    return { success: true, node: summarize(sticky) };
  }
  async function createStickies(params) {
    requireBoard("CREATE_STICKIES", "createSticky");
    const list = reqArray(params, "stickies");
    if (!list.length || list.length > MAX_STICKIES) throw badParams("'stickies' must hold 1 to " + MAX_STICKIES + " entries.");
    const checked = list.map(checkSticky);
    const made = [];
    try {
      for (const p of checked) made.push(await makeSticky(p));
    } catch (err) {
      made.forEach((n) => n.remove());
      throw err;
    }
    return { success: true, nodes: made.map(summarize), count: made.length };
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
    const label2 = optString(params, "label");
    if (label2) {
      await figma.loadFontAsync(
        /** @type {FontName} */
        connector.text.fontName
      );
      connector.text.characters = label2;
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
  function sectionOf(node) {
    for (let p = node.parent; p && p.type !== "PAGE"; p = p.parent) if (p.type === "SECTION") return p;
    return null;
  }
  async function getBoardContents(params) {
    requireBoard("GET_BOARD_CONTENTS", "createSticky");
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
      const section = sectionOf(n);
      if (section) {
        out.sectionId = section.id;
        out.sectionName = section.name;
      }
      if (n.type === "CONNECTOR") {
        const c = (
          /** @type {any} */
          n
        );
        out.startNodeId = c.connectorStart && c.connectorStart.endpointNodeId || null;
        out.endNodeId = c.connectorEnd && c.connectorEnd.endpointNodeId || null;
      }
      return out;
    });
    return { success: true, page: figma.currentPage.name, nodes, total: found.length, truncated: found.length > max };
  }
  async function getConnections() {
    requireBoard("GET_CONNECTIONS", "createConnector");
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
  function outlineOf(slide) {
    const texts = [];
    const walk2 = (node) => {
      if (node.type === "TEXT" && node.visible !== false && node.characters) texts.push(node);
      if (Array.isArray(node.children)) node.children.forEach(walk2);
    };
    (slide.children || []).forEach(walk2);
    const at = (n) => n.absoluteTransform ? [n.absoluteTransform[1][2], n.absoluteTransform[0][2]] : [n.y, n.x];
    texts.sort((a, b) => at(a)[0] - at(b)[0] || at(a)[1] - at(b)[1]);
    const size = (n) => typeof n.fontSize === "number" ? n.fontSize : 0;
    let title = null;
    for (const t of texts) if (!title || size(t) > size(title)) title = t;
    return { title: title ? title.characters : null, text: texts.filter((t) => t !== title).map((t) => t.characters) };
  }
  async function listSlides() {
    requireSlides("LIST_SLIDES");
    const slides = [];
    const grid = figma.getSlideGrid();
    for (let r = 0; r < grid.length; r++) {
      for (let c = 0; c < grid[r].length; c++) {
        const s = grid[r][c];
        const outline = outlineOf(s);
        slides.push({ id: s.id, name: s.name, row: r, col: c, isSkipped: s.isSkippedSlide, title: outline.title, text: outline.text });
      }
    }
    return { success: true, slides, count: slides.length };
  }
  async function getSlideContent(params) {
    const slide = await getSlide(params, "GET_SLIDE_CONTENT");
    const outline = outlineOf(slide);
    return { success: true, id: slide.id, name: slide.name, title: outline.title, text: outline.text, slide: describeTree(slide, 8) };
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
    const repeated = given.filter((id, i) => given.indexOf(id) !== i);
    if (missing.length || repeated.length || given.length !== current.length) {
      throw badParams(
        "The grid must list every slide exactly once; missing: " + (missing.join(", ") || "none") + "; repeated: " + (repeated.join(", ") || "none") + "."
      );
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
    const paint2 = solidPaint(params.fillColor || "#CCCCCC", void 0, "fillColor");
    const node = type === "RECTANGLE" ? figma.createRectangle() : figma.createEllipse();
    slide.appendChild(node);
    node.x = x;
    node.y = y;
    node.resize(w, h);
    node.fills = [paint2];
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

  // plugin/src/code/methods/layout.js
  var LAYOUTS = (
    /** @type {const} */
    ["grid", "horizontal", "vertical"]
  );
  async function autoArrange(params) {
    const ids = reqArray(params, "nodeIds");
    if (!ids.length || ids.length > MAX_ARRANGED) throw badParams("'nodeIds' must hold 1 to " + MAX_ARRANGED + " node ids.");
    const layout = (
      /** @type {string} */
      optEnum(params, "layout", LAYOUTS, "grid")
    );
    const spacing = (
      /** @type {number} */
      optNumber(params, "spacing", 40, { min: 0, max: 1e4 })
    );
    const seen = /* @__PURE__ */ new Set();
    const nodes = [];
    const skipped = [];
    for (const id of ids) {
      if (seen.has(id)) throw badParams("Node " + id + " is listed twice in 'nodeIds'.");
      seen.add(id);
      const node = (
        /** @type {any} */
        await getSceneNode(id, "nodeIds")
      );
      if (node.type === "CONNECTOR") skipped.push(node.id);
      else nodes.push(node);
    }
    if (!nodes.length) throw badParams("'nodeIds' names only connectors; they follow the nodes they join, so list those.");
    const parent = nodes[0].parent;
    const stray = nodes.find((n) => n.parent !== parent);
    if (stray) throw badParams("Nodes to arrange must share one parent; " + stray.id + " is not in " + (parent ? parent.name : "the page") + ".");
    const columns = layout === "horizontal" ? nodes.length : layout === "vertical" ? 1 : (
      /** @type {number} */
      optNumber(params, "columns", Math.ceil(Math.sqrt(nodes.length)), { min: 1, max: 100 })
    );
    const rows = Math.ceil(nodes.length / columns);
    const widths = new Array(Math.min(columns, nodes.length)).fill(0);
    const heights = new Array(rows).fill(0);
    nodes.forEach((n, i) => {
      widths[i % columns] = Math.max(widths[i % columns], n.width);
      heights[Math.floor(i / columns)] = Math.max(heights[Math.floor(i / columns)], n.height);
    });
    const left = Math.min(...nodes.map((n) => n.x));
    const top = Math.min(...nodes.map((n) => n.y));
    const offset = (sizes, index) => sizes.slice(0, index).reduce((sum, size) => sum + size + spacing, 0);
    const moved = nodes.map((n, i) => {
      const from = { x: n.x, y: n.y };
      n.x = left + offset(widths, i % columns);
      n.y = top + offset(heights, Math.floor(i / columns));
      return { id: n.id, from, to: { x: n.x, y: n.y } };
    });
    const out = { success: true, layout, columns: Math.min(columns, nodes.length), rows, spacing, nodes: moved };
    if (skipped.length) out.skippedConnectors = skipped;
    return out;
  }

  // plugin/src/code/font_choice.js
  var FALLBACK_FAMILY = "Inter";
  var GENERIC_FAMILIES = {
    serif: ["Georgia", "Times New Roman", "Times", "Noto Serif", "Source Serif 4", "Source Serif Pro", "PT Serif", "Merriweather", "Lora", "Libre Baskerville", "IBM Plex Serif", "Roboto Serif", "EB Garamond", "Playfair Display"],
    "sans-serif": ["Inter", "Roboto", "Helvetica Neue", "Helvetica", "Arial", "Noto Sans", "Open Sans", "Source Sans 3", "Source Sans Pro"],
    monospace: ["Roboto Mono", "Source Code Pro", "JetBrains Mono", "IBM Plex Mono", "Fira Code", "Fira Mono", "SF Mono", "Menlo", "Monaco", "Consolas", "Courier New", "Ubuntu Mono", "Inconsolata", "Space Mono", "DM Mono"],
    cursive: ["Comic Sans MS", "Caveat", "Dancing Script", "Pacifico", "Brush Script MT"],
    fantasy: ["Impact", "Bebas Neue", "Papyrus"]
  };
  var WEIGHT_WORDS = [
    [/hairline|thin/, 100],
    [/extra ?light|ultra ?light/, 200],
    [/light/, 300],
    [/medium/, 500],
    [/semi ?bold|demi ?bold/, 600],
    [/extra ?bold|ultra ?bold/, 800],
    [/bold/, 700],
    [/black|heavy/, 900]
  ];
  function styleOf(style) {
    const s = style.toLowerCase();
    const found = WEIGHT_WORDS.find(([re]) => (
      /** @type {RegExp} */
      re.test(s)
    ));
    return { weight: found ? (
      /** @type {number} */
      found[1]
    ) : 400, italic: /italic|oblique/.test(s) };
  }
  function nearestStyle(styles, weight, italic) {
    let best = styles[0];
    let bestScore = Infinity;
    for (const style of styles) {
      const s = styleOf(style);
      const towards = weight >= 400 ? s.weight >= weight : s.weight <= weight;
      const score = (s.italic === italic ? 0 : 1e4) + Math.abs(s.weight - weight) * 2 + (towards ? 0 : 1);
      if (score < bestScore) {
        best = style;
        bestScore = score;
      }
    }
    return best;
  }
  async function chooseFonts(asks) {
    const installed = /* @__PURE__ */ new Map();
    (await figma.listAvailableFontsAsync()).forEach((f) => {
      if (!installed.has(f.fontName.family)) installed.set(f.fontName.family, []);
      installed.get(f.fontName.family).push(f.fontName.style);
    });
    const loads = /* @__PURE__ */ new Map();
    const load = (font) => {
      const key = font.family + "\0" + font.style;
      if (!loads.has(key)) loads.set(key, figma.loadFontAsync(font).then(() => true, () => false));
      return (
        /** @type {Promise<boolean>} */
        loads.get(key)
      );
    };
    const substitutes = /* @__PURE__ */ new Map();
    const chosen = /* @__PURE__ */ new Map();
    const byAsk = /* @__PURE__ */ new Map();
    for (const ask of asks) {
      const families = Array.isArray(ask.families) ? ask.families.map(String) : [];
      const generic = typeof ask.generic === "string" && ask.generic in GENERIC_FAMILIES ? ask.generic : "sans-serif";
      const weight = typeof ask.fontWeight === "number" && isFinite(ask.fontWeight) ? ask.fontWeight : 400;
      const italic = Boolean(ask.italic);
      const key = families.join(",") + "\0" + generic + "\0" + weight + "\0" + italic;
      let font = chosen.get(key);
      if (!font) {
        const own = families.find((f) => installed.has(f));
        const stand = own || /** @type {Record<string, string[]>} */
        GENERIC_FAMILIES[generic].find((f) => installed.has(f));
        const family = stand || FALLBACK_FAMILY;
        if (!own) {
          const why = stand ? ", the first " + generic + " font installed" : "; no " + generic + " font is installed";
          substitutes.set(families.join(", ") || "(none)", family + " used instead" + why);
        }
        font = { family, style: nearestStyle(installed.get(family) || ["Regular"], weight, italic) };
        if (!await load(font)) {
          font = { family: FALLBACK_FAMILY, style: "Regular" };
          if (!await load(font)) throw new PluginError("font_unavailable", "Neither the page's fonts nor " + FALLBACK_FAMILY + " Regular can be loaded in this editor; install " + FALLBACK_FAMILY + " and retry.");
        }
        chosen.set(key, font);
      }
      byAsk.set(ask, font);
    }
    const warnings = [...substitutes].map(([stack, used]) => "font " + stack + " is not available here: " + used);
    return { byAsk, warnings };
  }

  // plugin/src/code/methods/node_tree.js
  var MAX_TREE_NODES = 2e4;
  var PROGRESS_EVERY_LAYERS = 250;
  var PROGRESS_EVERY_MS2 = 100;
  var TYPES2 = /* @__PURE__ */ new Set(["FRAME", "TEXT", "SVG"]);
  var CORNERS = ["topLeftRadius", "topRightRadius", "bottomRightRadius", "bottomLeftRadius"];
  var PADDINGS = ["paddingTop", "paddingRight", "paddingBottom", "paddingLeft"];
  var ALIGNS = /* @__PURE__ */ new Set(["MIN", "MAX", "CENTER", "SPACE_BETWEEN"]);
  var GRADIENTS = /* @__PURE__ */ new Set(["GRADIENT_LINEAR", "GRADIENT_RADIAL", "GRADIENT_ANGULAR", "GRADIENT_DIAMOND"]);
  var BLENDS = /* @__PURE__ */ new Set(["NORMAL", "DARKEN", "MULTIPLY", "COLOR_BURN", "LIGHTEN", "SCREEN", "COLOR_DODGE", "OVERLAY", "SOFT_LIGHT", "HARD_LIGHT", "DIFFERENCE", "EXCLUSION", "HUE", "SATURATION", "COLOR", "LUMINOSITY"]);
  var EFFECTS = /* @__PURE__ */ new Set(["DROP_SHADOW", "INNER_SHADOW", "LAYER_BLUR", "BACKGROUND_BLUR"]);
  var DECORATIONS = /* @__PURE__ */ new Set(["NONE", "UNDERLINE", "STRIKETHROUGH"]);
  var CASES = /* @__PURE__ */ new Set(["ORIGINAL", "UPPER", "LOWER", "TITLE"]);
  var finite2 = (v) => typeof v === "number" && isFinite(v);
  async function createNodeTree(params, ctx) {
    if (!isPlainObject(params.spec)) throw badParams("'spec' must be the root node of the tree: {type, name, width, height, children}.");
    const parent = params.parentId === void 0 || params.parentId === null ? null : await getNode(params.parentId, "parentId");
    if (parent && (!("appendChild" in parent) || parent.type === "DOCUMENT")) {
      throw new PluginError("wrong_node_type", "Parent " + parent.id + " (" + parent.name + ") is a " + parent.type + " and cannot hold layers; pass a frame, group, section or page id.");
    }
    const imageData = Array.isArray(params.images) ? params.images : [];
    const all = [];
    const variableIds = /* @__PURE__ */ new Set();
    if (params.spec.type !== "FRAME") throw badParams("spec.type must be FRAME: the tree's root is a frame.");
    check(params.spec, "spec", String(params.spec.name || "spec"), all, variableIds, imageData.length);
    if (all.length > MAX_TREE_NODES) throw badParams("The tree has " + all.length + " layers; the most one call builds is " + MAX_TREE_NODES + ".");
    const variables = /* @__PURE__ */ new Map();
    for (const id of variableIds) {
      const v = await figma.variables.getVariableByIdAsync(id);
      if (!v) throw notFound("Variable " + id + " is not in this file; read the variables again (design_get_variables) and retry.");
      variables.set(id, v);
    }
    const texts = all.filter((n) => n.type === "TEXT");
    const asks = [...texts, ...texts.flatMap((t) => Array.isArray(t.ranges) ? t.ranges.filter(hasFont) : [])];
    const fonts = await chooseFonts(asks);
    const warnings = fonts.warnings;
    const images = makeImages(imageData, all, warnings);
    const components = await findComponents(all, warnings);
    const state = { done: 0, reported: 0, reportedAt: Date.now(), total: all.length, ctx, images, variables, warnings, fonts: fonts.byAsk, components };
    let root = null;
    try {
      root = await build(params.spec, state);
      if (parent) parent.appendChild(root);
      else {
        const others = figma.currentPage.children.filter((c) => c !== root);
        root.x = others.length ? Math.max(...others.map((c) => c.x + c.width)) + 100 : 0;
        root.y = 0;
      }
      for (const child of params.spec.children || []) await buildInto(root, child, state);
      await state.ctx.progress(state.total, state.total, "Built " + state.total + " layers");
    } catch (err) {
      if (root) root.remove();
      if (err instanceof PluginError && err.code === "cancelled") throw err;
      throw new PluginError("plugin_api_error", "Building the tree failed: " + errorText(err) + ". The part already built was removed.", { rolledBack: true });
    }
    return { success: true, rootId: root.id, name: root.name, width: root.width, height: root.height, counts: countTypes(root), warnings };
  }
  var hasFont = (r) => r.families !== void 0 || r.fontWeight !== void 0 || r.italic !== void 0 || r.generic !== void 0;
  function makeImages(data, all, warnings) {
    return data.map((item, i) => {
      let why = null;
      let image = null;
      const bytes = typeof item === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(item) ? figma.base64Decode(item) : null;
      if (item === "") why = "was left out before the build";
      else if (!bytes) why = "is not base64";
      else if (!imageKind(bytes)) why = "is not a PNG, JPEG or GIF image";
      else {
        try {
          image = figma.createImage(bytes);
        } catch (err) {
          why = "was refused by the editor (" + errorText(err) + ")";
        }
      }
      if (why) {
        const users = all.filter((n) => [...n.fills || [], ...n.strokes || []].some((p) => p.type === "IMAGE" && p.image === i));
        const named = users.slice(0, 3).map((n) => n.__path).join("; ") + (users.length > 3 ? " and " + (users.length - 3) + " more" : "");
        warnings.push("images[" + i + "] " + why + ": left out of " + (named || "no layer"));
      }
      return image;
    });
  }
  async function findComponents(all, warnings) {
    const found = /* @__PURE__ */ new Map();
    for (const node of all) {
      if (typeof node.component !== "string" || found.has(node.component)) continue;
      const main = (
        /** @type {any} */
        await figma.getNodeByIdAsync(node.component)
      );
      const component = main && main.type === "COMPONENT_SET" ? main.defaultVariant : main;
      found.set(node.component, component && component.type === "COMPONENT" ? component : null);
    }
    for (const node of all) {
      if (typeof node.component === "string" && !found.get(node.component)) warnings.push("component " + node.component + " of " + node.__path + " is not a component of this file: built as layers");
    }
    return found;
  }
  async function instanceOf(component, spec, state) {
    const node = component.createInstance();
    node.resize(Math.max(spec.width, 0.01), Math.max(spec.height, 0.01));
    const wanted = [];
    const collect = (s) => {
      if (s.type === "TEXT") wanted.push(s.characters);
      (s.children || []).forEach(collect);
    };
    (spec.children || []).forEach(collect);
    const texts = (
      /** @type {TextNode[]} */
      node.findAll((n) => n.type === "TEXT")
    );
    if (wanted.length && texts.length === wanted.length) {
      for (let i = 0; i < texts.length; i++) {
        if (texts[i].characters === wanted[i]) continue;
        for (const font of texts[i].getRangeAllFontNames(0, texts[i].characters.length)) await figma.loadFontAsync(font);
        texts[i].characters = wanted[i];
      }
    } else if (wanted.length) {
      state.warnings.push("instance of " + component.name + " at " + spec.__path + " has " + texts.length + " texts and the page " + wanted.length + ": its texts are the component's");
    }
    return node;
  }
  function check(node, where, path, all, variableIds, imageCount) {
    if (!isPlainObject(node) || !TYPES2.has(node.type)) throw badParams(where + ".type must be one of FRAME, TEXT, SVG.");
    for (const key of ["x", "y", "width", "height", "rotation"]) {
      if (node[key] !== void 0 && !finite2(node[key])) throw badParams(where + "." + key + " must be a number.");
    }
    if (node.type === "TEXT" && typeof node.characters !== "string") throw badParams(where + ".characters must be a string.");
    if (node.type === "SVG" && typeof node.svg !== "string") throw badParams(where + ".svg must be SVG markup.");
    if (node.component !== void 0 && (typeof node.component !== "string" || node.type !== "FRAME")) throw badParams(where + ".component must be a component id, on a FRAME.");
    if (node.blendMode !== void 0 && !BLENDS.has(node.blendMode)) throw badParams(where + ".blendMode must be one of " + [...BLENDS].join(", ") + ".");
    const paints2 = [...node.fills || [], ...node.strokes || []];
    (node.ranges || []).forEach((r) => paints2.push(...r.fills || []));
    for (const paint2 of paints2) checkPaint(paint2, where, imageCount, variableIds);
    for (const effect2 of node.effects || []) {
      if (!isPlainObject(effect2) || !EFFECTS.has(effect2.type)) throw badParams(where + ".effects: each effect's type must be one of " + [...EFFECTS].join(", ") + ".");
    }
    if (node.ranges !== void 0) checkRanges(node, where);
    Object.values(node.bound || {}).forEach((id) => variableIds.add(String(id)));
    if (node.layout && !(ALIGNS.has(node.layout.primaryAxisAlignItems) && ALIGNS.has(node.layout.counterAxisAlignItems))) throw badParams(where + ".layout has an unknown alignment.");
    Object.defineProperty(node, "__path", { value: path, enumerable: false });
    all.push(node);
    (node.children || []).forEach((c, i) => check(c, where + ".children[" + i + "]", path + " / " + String(c && c.name || "children[" + i + "]"), all, variableIds, imageCount));
  }
  function checkPaint(paint2, where, imageCount, variableIds) {
    if (!isPlainObject(paint2)) throw badParams(where + ": each paint must be an object.");
    if (paint2.type === "IMAGE") {
      if (!(Number.isInteger(paint2.image) && paint2.image >= 0 && paint2.image < imageCount)) throw badParams(where + ": an image paint names no image of 'images'.");
    } else if (GRADIENTS.has(paint2.type)) {
      const t = paint2.gradientTransform;
      const rows = Array.isArray(t) && t.length === 2 && t.every((row) => Array.isArray(row) && row.length === 3 && row.every(finite2));
      if (!rows) throw badParams(where + ": a gradient's gradientTransform must be [[a, b, c], [d, e, f]].");
      const stops = paint2.gradientStops;
      if (!Array.isArray(stops) || !stops.length || !stops.every((s) => isPlainObject(s) && finite2(s.position) && isPlainObject(s.color) && ["r", "g", "b"].every((k) => finite2(s.color[k])))) {
        throw badParams(where + ": a gradient's gradientStops must be [{color: {r, g, b, a}, position}].");
      }
    } else if (paint2.type !== "SOLID" || !isPlainObject(paint2.color)) {
      throw badParams(where + ": a paint's type must be SOLID (with color), IMAGE or one of " + [...GRADIENTS].join(", ") + ".");
    }
    if (paint2.variableId) variableIds.add(paint2.variableId);
  }
  function checkRanges(node, where) {
    if (!Array.isArray(node.ranges)) throw badParams(where + ".ranges must be a list of {start, end, …}.");
    const length = node.characters.length;
    node.ranges.forEach((r, i) => {
      if (!isPlainObject(r) || !Number.isInteger(r.start) || !Number.isInteger(r.end) || r.start < 0 || r.end > length || r.start >= r.end) {
        throw badParams(where + ".ranges[" + i + "] must have whole start < end within the text's " + length + " characters.");
      }
      if (r.url !== void 0 && typeof r.url !== "string") throw badParams(where + ".ranges[" + i + "].url must be a string.");
      if (r.textDecoration !== void 0 && !DECORATIONS.has(r.textDecoration)) throw badParams(where + ".ranges[" + i + "].textDecoration must be NONE, UNDERLINE or STRIKETHROUGH.");
      if (r.textCase !== void 0 && !CASES.has(r.textCase)) throw badParams(where + ".ranges[" + i + "].textCase must be ORIGINAL, UPPER, LOWER or TITLE.");
    });
  }
  function paint(p, state) {
    if (p.type === "IMAGE") {
      const image = state.images[p.image];
      return image ? { type: "IMAGE", imageHash: image.hash, scaleMode: p.scaleMode || "FILL" } : null;
    }
    if (GRADIENTS.has(p.type)) {
      const stops = p.gradientStops.map((s) => ({ position: Math.min(1, Math.max(0, s.position)), color: { r: s.color.r, g: s.color.g, b: s.color.b, a: finite2(s.color.a) ? s.color.a : 1 } }));
      const out2 = { type: p.type, gradientTransform: p.gradientTransform.map((row) => row.slice()), gradientStops: stops };
      if (finite2(p.opacity)) out2.opacity = p.opacity;
      return out2;
    }
    const out = { type: "SOLID", color: { r: p.color.r, g: p.color.g, b: p.color.b } };
    if (finite2(p.opacity)) out.opacity = p.opacity;
    if (p.variableId) return figma.variables.setBoundVariableForPaint(out, "color", state.variables.get(p.variableId));
    return out;
  }
  var paints = (list, state) => list.map((p) => paint(p, state)).filter(Boolean);
  function effect(e) {
    if (e.type === "LAYER_BLUR" || e.type === "BACKGROUND_BLUR") return { type: e.type, radius: finite2(e.radius) ? e.radius : 0, visible: true };
    return Object.assign({ visible: true, blendMode: "NORMAL" }, e);
  }
  function styleRanges(node, spec, state) {
    for (const r of spec.ranges || []) {
      const font = state.fonts.get(r);
      if (font) node.setRangeFontName(r.start, r.end, font);
      if (finite2(r.fontSize) && r.fontSize > 0) node.setRangeFontSize(r.start, r.end, r.fontSize);
      if (Array.isArray(r.fills)) node.setRangeFills(r.start, r.end, paints(r.fills, state));
      if (r.textDecoration) node.setRangeTextDecoration(r.start, r.end, r.textDecoration);
      if (r.textCase) node.setRangeTextCase(r.start, r.end, r.textCase);
      if (finite2(r.letterSpacing)) node.setRangeLetterSpacing(r.start, r.end, { unit: "PIXELS", value: r.letterSpacing });
      if (r.url) node.setRangeHyperlink(r.start, r.end, { type: "URL", value: r.url });
    }
  }
  async function build(spec, state) {
    let node;
    if (spec.type === "SVG") {
      try {
        node = figma.createNodeFromSvg(spec.svg);
      } catch (err) {
        state.warnings.push("SVG " + spec.__path + " could not be read (" + errorText(err) + "): left out");
        return null;
      }
    } else if (spec.type === "TEXT") {
      node = figma.createText();
      node.fontName = state.fonts.get(spec);
      node.characters = spec.characters;
      if (finite2(spec.fontSize) && spec.fontSize > 0) node.fontSize = spec.fontSize;
      if (finite2(spec.lineHeight) && spec.lineHeight > 0) node.lineHeight = { unit: "PIXELS", value: spec.lineHeight };
      if (finite2(spec.letterSpacing)) node.letterSpacing = { unit: "PIXELS", value: spec.letterSpacing };
      if (spec.textAlign) node.textAlignHorizontal = spec.textAlign;
      if (spec.textCase) node.textCase = spec.textCase;
      if (spec.textDecoration) node.textDecoration = spec.textDecoration;
      if (spec.fills) node.fills = paints(spec.fills, state);
      styleRanges(node, spec, state);
      node.textAutoResize = spec.autoResize || "WIDTH_AND_HEIGHT";
      if (node.textAutoResize === "HEIGHT") node.resize(Math.max(spec.width, 1), Math.max(spec.height, 1));
    } else {
      node = figma.createFrame();
      node.clipsContent = Boolean(spec.clipsContent);
      if (finite2(spec.cornerRadius)) node.cornerRadius = spec.cornerRadius;
      if (Array.isArray(spec.cornerRadii)) CORNERS.forEach((k, i) => node[k] = spec.cornerRadii[i]);
      if (spec.strokes) {
        node.strokes = paints(spec.strokes, state);
        node.strokeAlign = "INSIDE";
        if (finite2(spec.strokeWeight)) node.strokeWeight = spec.strokeWeight;
        if (Array.isArray(spec.strokeWeights)) ["strokeTopWeight", "strokeRightWeight", "strokeBottomWeight", "strokeLeftWeight"].forEach((k, i) => node[k] = spec.strokeWeights[i]);
        if (Array.isArray(spec.dashPattern)) node.dashPattern = spec.dashPattern;
      }
      if (spec.layout) {
        node.layoutMode = spec.layout.mode;
        node.primaryAxisSizingMode = "FIXED";
        node.counterAxisSizingMode = "FIXED";
        node.itemSpacing = spec.layout.itemSpacing;
        PADDINGS.forEach((k) => node[k] = spec.layout[k]);
        node.primaryAxisAlignItems = spec.layout.primaryAxisAlignItems;
        node.counterAxisAlignItems = spec.layout.counterAxisAlignItems;
        if (spec.layout.wrap) {
          node.layoutWrap = "WRAP";
          if (finite2(spec.layout.counterAxisSpacing)) node.counterAxisSpacing = spec.layout.counterAxisSpacing;
        }
      }
      node.resize(Math.max(spec.width, 0.01), Math.max(spec.height, 0.01));
      if (spec.fills) node.fills = paints(spec.fills, state);
    }
    node.name = String(spec.name || spec.type);
    if (Array.isArray(spec.effects)) node.effects = spec.effects.map(effect);
    if (finite2(spec.opacity)) node.opacity = spec.opacity;
    if (spec.blendMode) node.blendMode = spec.blendMode;
    for (const [field, id] of Object.entries(spec.bound || {})) {
      const variable = state.variables.get(id);
      if (field === "cornerRadius") CORNERS.forEach((k) => node.setBoundVariable(k, variable));
      else node.setBoundVariable(field, variable);
    }
    if (finite2(spec.rotation) && spec.rotation) node.rotation = spec.rotation;
    node.x = spec.x || 0;
    node.y = spec.y || 0;
    state.done += 1;
    const now = Date.now();
    if (state.done - state.reported >= PROGRESS_EVERY_LAYERS || now - state.reportedAt >= PROGRESS_EVERY_MS2) {
      state.reported = state.done;
      state.reportedAt = now;
      await state.ctx.progress(state.done, state.total, "Built " + state.done + " of " + state.total + " layers");
    }
    return node;
  }
  var sizeOf = (spec) => 1 + (spec.children || []).reduce((n, c) => n + sizeOf(c), 0);
  async function buildInto(parent, spec, state) {
    const component = typeof spec.component === "string" ? state.components.get(spec.component) : null;
    const node = component ? await instanceOf(component, spec, state) : await build(spec, state);
    if (!node) return;
    if (component) {
      node.name = String(spec.name || component.name);
      node.x = spec.x || 0;
      node.y = spec.y || 0;
      state.done += sizeOf(spec);
    }
    parent.appendChild(node);
    if (parent.layoutMode && parent.layoutMode !== "NONE") {
      if (spec.absolute) {
        node.layoutPositioning = "ABSOLUTE";
        node.x = spec.x || 0;
        node.y = spec.y || 0;
      } else if (spec.type !== "TEXT" || component) {
        node.layoutSizingHorizontal = "FIXED";
        node.layoutSizingVertical = "FIXED";
      }
    }
    if (!component) for (const child of spec.children || []) await buildInto(node, child, state);
  }
  function countTypes(root) {
    const counts = {};
    const walk2 = (n) => {
      counts[n.type] = (counts[n.type] || 0) + 1;
      (n.children || []).forEach(walk2);
    };
    walk2(root);
    return counts;
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
    READ_VARIABLES: readVariables,
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
    BATCH_CREATE_VARIABLES: batchCreateVariables,
    BATCH_UPDATE_VARIABLES: batchUpdateVariables,
    BATCH_DELETE_VARIABLES: batchDeleteVariables,
    SETUP_DESIGN_TOKENS: setupDesignTokens,
    APPLY_TOKEN_CHANGES: applyTokenChanges,
    GET_COMPONENT: getComponent,
    GET_LOCAL_COMPONENTS: getLocalComponents,
    READ_LAYERS: readLayers,
    DEEP_GET_COMPONENT: deepGetComponent,
    ANALYZE_COMPONENT_SET: analyzeComponentSet,
    SET_NODE_DESCRIPTION: setNodeDescription,
    ADD_COMPONENT_PROPERTY: addComponentProperty,
    EDIT_COMPONENT_PROPERTY: editComponentProperty,
    DELETE_COMPONENT_PROPERTY: deleteComponentProperty,
    INSTANTIATE_COMPONENT: instantiateComponent,
    CREATE_COMPONENT_SET: createComponentSet,
    SET_INSTANCE_PROPERTIES: setInstanceProperties,
    ARRANGE_COMPONENT_SET: arrangeComponentSet,
    GET_ANNOTATIONS: getAnnotations,
    SET_ANNOTATIONS: setAnnotations,
    GET_ANNOTATION_CATEGORIES: getAnnotationCategories,
    CREATE_SLOT: createSlot,
    GET_SLOTS: getSlots,
    APPEND_TO_SLOT: appendToSlot,
    RESET_SLOT: resetSlot,
    ADD_SLOT_PROPERTY: addSlotProperty,
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
    BATCH_EDIT_NODES: batchEditNodes,
    SET_TEXT_CONTENT: setTextContent,
    CAPTURE_SCREENSHOT: captureScreenshot,
    LINT_DESIGN: lintDesign,
    AUDIT_COMPONENT_ACCESSIBILITY: auditComponentAccessibility,
    READ_AUDIT_NODES: readAuditNodes,
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
    GET_TEXT_STYLES: getTextStyles,
    AUTO_ARRANGE: autoArrange,
    CREATE_NODE_TREE: createNodeTree
  };
  var WRITE_METHODS = [
    "EXECUTE_CODE",
    "UPDATE_VARIABLE",
    "CREATE_VARIABLE",
    "DELETE_VARIABLE",
    "RENAME_VARIABLE",
    "SET_VARIABLE_DESCRIPTION",
    "CREATE_VARIABLE_COLLECTION",
    "DELETE_VARIABLE_COLLECTION",
    "ADD_MODE",
    "RENAME_MODE",
    "BATCH_CREATE_VARIABLES",
    "BATCH_UPDATE_VARIABLES",
    "BATCH_DELETE_VARIABLES",
    "SETUP_DESIGN_TOKENS",
    "APPLY_TOKEN_CHANGES",
    "SET_NODE_DESCRIPTION",
    "ADD_COMPONENT_PROPERTY",
    "EDIT_COMPONENT_PROPERTY",
    "DELETE_COMPONENT_PROPERTY",
    "INSTANTIATE_COMPONENT",
    "CREATE_COMPONENT_SET",
    "SET_INSTANCE_PROPERTIES",
    "ARRANGE_COMPONENT_SET",
    "SET_ANNOTATIONS",
    "CREATE_SLOT",
    "APPEND_TO_SLOT",
    "RESET_SLOT",
    "ADD_SLOT_PROPERTY",
    "RESIZE_NODE",
    "MOVE_NODE",
    "SET_NODE_FILLS",
    "SET_NODE_STROKES",
    "SET_NODE_OPACITY",
    "SET_NODE_CORNER_RADIUS",
    "SET_IMAGE_FILL",
    "CLONE_NODE",
    "DELETE_NODE",
    "RENAME_NODE",
    "CREATE_CHILD_NODE",
    "BATCH_EDIT_NODES",
    "SET_TEXT_CONTENT",
    "CREATE_STICKY",
    "CREATE_STICKIES",
    "CREATE_CONNECTOR",
    "CREATE_SHAPE_WITH_TEXT",
    "CREATE_SECTION",
    "CREATE_TABLE",
    "CREATE_CODE_BLOCK",
    "CREATE_SLIDE",
    "DELETE_SLIDE",
    "DUPLICATE_SLIDE",
    "REORDER_SLIDES",
    "SET_SLIDE_TRANSITION",
    "SKIP_SLIDE",
    "ADD_TEXT_TO_SLIDE",
    "ADD_SHAPE_TO_SLIDE",
    "SET_SLIDE_BACKGROUND",
    "AUTO_ARRANGE",
    "CREATE_NODE_TREE"
  ];
  function sendProgress(route, progress) {
    figma.ui.postMessage({ kind: "event", route, event: { type: "PROGRESS", data: progress } });
  }
  function commitUndo() {
    try {
      figma.commitUndo();
    } catch (err) {
      diag.warn("[design bridge] commitUndo failed:", err);
    }
  }
  var dispatcher = new Dispatcher(handlers, { writes: WRITE_METHODS, commitUndo, onProgress: sendProgress });
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
