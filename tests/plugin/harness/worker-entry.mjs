// The plugin sandbox in a browser: a Web Worker (no DOM) with the stand-in editor as `figma`; code.js arrives as
// text and runs in the worker's global scope. Messages to and from ui.html pass through the host page.
import { createDesignEnv } from "./figma-env.mjs";

const { figma } = createDesignEnv({ fileName: "Browser File", fileKey: "BROWSERKEY" });
const frame = figma.createFrame();
frame.name = "Hero";
frame.resize(320, 180);
frame.fills = [{ type: "SOLID", color: { r: 0.1, g: 0.5, b: 0.9 } }];
figma.showUI = () => undefined;
figma.ui.postMessage = (message) => self.postMessage(message);
self.__html__ = "";

self.onmessage = (event) => {
  const msg = event.data;
  if (msg && msg.kind === "boot") {
    (0, eval)(msg.code);
    return;
  }
  if (figma.ui.onmessage) figma.ui.onmessage(msg, { origin: "null" });
};
