// Runs the shipped plugin/code.js in node:vm against the stand-in editor, and plays ui.html's part of the
// postMessage conversation so tests can send commands and read replies and events.
import vm from "node:vm";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createDesignEnv } from "./figma-env.mjs";

export const PLUGIN_DIR = fileURLToPath(new URL("../../../plugin/", import.meta.url));
export const CODE_JS = readFileSync(PLUGIN_DIR + "code.js", "utf8");

/**
 * @param {{editorType?: string, fileKey?: string|null, fileName?: string, setup?: (figma: any, control: any) => void,
 *          onToUi?: (message: any) => void, pluginVersion?: string}} [options]
 */
export function loadPlugin(options = {}) {
  const { figma, control } = createDesignEnv(options);
  const toUi = [];
  const waiters = [];
  const showUiCalls = [];
  figma.showUI = (html, opts) => showUiCalls.push({ html, opts });
  figma.ui.postMessage = (message) => {
    // Structured clone, as postMessage does: no functions or live objects cross to the UI.
    const copy = structuredClone(message);
    toUi.push(copy);
    if (options.onToUi) options.onToUi(copy);
    for (const w of waiters.slice()) {
      if (w.match(copy)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(copy);
      }
    }
  };
  const consoleOut = [];
  const sandboxConsole = {};
  for (const level of ["log", "info", "warn", "error", "debug"]) sandboxConsole[level] = (...args) => consoleOut.push({ level, args });
  if (options.setup) options.setup(figma, control);
  const context = vm.createContext({
    figma,
    __html__: "<html>ui</html>",
    console: sandboxConsole,
    setTimeout,
    clearTimeout,
  });
  // An older copy of the plugin is the same code reporting an older version.
  const code = options.pluginVersion ? CODE_JS.replace(/PLUGIN_VERSION = "[^"]+"/, 'PLUGIN_VERSION = "' + options.pluginVersion + '"') : CODE_JS;
  vm.runInContext(code, context, { filename: "code.js" });

  let counter = 0;
  const plugin = {
    figma,
    control,
    toUi,
    consoleOut,
    showUiCalls,
    context,
    /** Posts a message from the UI to code.js. */
    fromUi(message) {
      figma.ui.onmessage(structuredClone(message), { origin: "null" });
    },
    /** Resolves with the next message to the UI matching `match`, or rejects after `ms`. */
    next(match, ms = 5000) {
      const already = toUi.find(match);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        // The timer is cleared once the message comes, or the test process would linger until it fires.
        const timer = setTimeout(() => {
          const i = waiters.indexOf(w);
          if (i >= 0) {
            waiters.splice(i, 1);
            reject(new Error("no matching message to the UI within " + ms + " ms"));
          }
        }, ms);
        const w = {
          match,
          resolve: (/** @type {any} */ value) => {
            clearTimeout(timer);
            resolve(value);
          },
        };
        waiters.push(w);
      });
    },
    /** Sends one command as designd would and resolves with the reply object. */
    async call(method, params = {}, route = "test:1") {
      const id = "cmd-" + ++counter;
      const wait = plugin.next((m) => m.kind === "reply" && m.route === route && m.reply.id === id, 40000);
      plugin.fromUi({ kind: "command", route, command: { id, method, params } });
      return (await wait).reply;
    },
    /** Like call, but fails the test unless the reply is a success; returns `result`. */
    async ok(method, params = {}) {
      const reply = await plugin.call(method, params);
      if (reply.error !== undefined) throw new Error(method + " failed: " + reply.error + " (" + reply.code + ")");
      return reply.result;
    },
    events(type) {
      return toUi.filter((m) => m.kind === "event" && m.event.type === type).map((m) => m.event.data);
    },
  };
  return plugin;
}
