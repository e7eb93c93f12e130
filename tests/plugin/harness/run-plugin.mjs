// Runs the shipped plugin (ui.html in jsdom, code.js in node:vm on the stand-in editor) against the designd whose
// plugin copy it is given, until its stdin closes. Python tests drive the whole chain through it.
//   node run-plugin.mjs <ui.html of the synced copy> <first port> <last port> <editorType> <fileKey> <fileName>
// Prints one JSON line per change of the UI state, of the ignored servers or of the Cloud section
// ({"state": "connected", "ignored": [], "cloud": {"state": "idle", …}} …) so the caller can wait for the connection.
// Each JSON line on stdin is something the user does: {"pair": "<code>"} types a pairing code and presses Pair.
import { createInterface } from "node:readline";
import { openPlugin } from "./ui-host.mjs";

const [htmlPath, first, last, editorType, fileKey, fileName] = process.argv.slice(2);
const plugin = openPlugin({
  htmlPath,
  firstPort: Number(first),
  lastPort: Number(last),
  pluginOptions: {
    editorType,
    fileKey,
    fileName,
    // Tests reach the stand-in editor's controls (undo count, injected faults) through design_execute.
    setup: (figma, control) => Object.defineProperty(figma, "testControl", { value: control }),
  },
});

let lastLine = "";
const timer = setInterval(() => {
  const line = JSON.stringify({
    state: plugin.state,
    ignored: Array.from(plugin.bridge.ignoredPorts),
    cloud: plugin.bridge.cloud,
  });
  if (line !== lastLine) {
    lastLine = line;
    process.stdout.write(line + "\n");
  }
}, 20);

const input = createInterface({ input: process.stdin });
input.on("line", (text) => {
  const action = JSON.parse(text);
  if (typeof action.pair === "string") {
    plugin.dom.window.document.getElementById("cloud-code").value = action.pair;
    plugin.click("cloud-pair");
  }
});
input.on("close", () => {
  clearInterval(timer);
  plugin.close();
  process.exit(0);
});
