// Runs the real ui.html in jsdom as the plugin iframe, wired by postMessage to the real code.js in node:vm: the
// design tool's part (relaying pluginMessage both ways) is the only thing played here.
import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";
import { loadPlugin } from "./sandbox.mjs";

/** ui.html with the port range it scans moved to the test's range, as the tests cannot own 9223–9232. */
export function withPorts(html, first, last) {
  return html.replace(/"firstPort": \d+, "lastPort": \d+/, '"firstPort": ' + first + ', "lastPort": ' + last);
}

export function openPlugin({ htmlPath, firstPort, lastPort, pluginOptions = {} }) {
  const html = withPorts(readFileSync(htmlPath, "utf8"), firstPort, lastPort);
  let window = null;
  const plugin = loadPlugin(
    Object.assign({}, pluginOptions, {
      onToUi(message) {
        if (window) window.postMessage({ pluginMessage: message }, "*");
      },
    }),
  );
  const dom = new JSDOM(html, {
    runScripts: "dangerously",
    beforeParse(win) {
      window = win;
      Object.defineProperty(win, "parent", {
        configurable: true,
        value: { postMessage: (data) => setTimeout(() => plugin.fromUi(data.pluginMessage), 0) },
      });
    },
  });
  const doc = dom.window.document;
  return {
    dom,
    plugin,
    bridge: dom.window.designBridge,
    get state() {
      return doc.body.getAttribute("data-state");
    },
    text(id) {
      const el = doc.getElementById(id);
      return el.hidden ? "" : el.textContent;
    },
    click(id) {
      doc.getElementById(id).click();
    },
    close() {
      dom.window.close();
    },
  };
}
