// Runs the shipped plugin (ui.html in jsdom, code.js in node:vm on the stand-in editor) against the designd whose
// plugin copy it is given, until its stdin closes. Python tests drive the whole chain through it.
//   node run-plugin.mjs <ui.html of the synced copy> <first port> <last port> <editorType> <fileKey> <fileName>
// Prints one JSON line per change of the UI state or of the ignored servers ({"state": "connected", "ignored": []} …)
// so the caller can wait for the connection.
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
  const line = JSON.stringify({ state: plugin.state, ignored: Array.from(plugin.bridge.ignoredPorts) });
  if (line !== lastLine) {
    lastLine = line;
    process.stdout.write(line + "\n");
  }
}, 20);

process.stdin.resume();
process.stdin.on("end", () => {
  clearInterval(timer);
  plugin.close();
  process.exit(0);
});
