
// What both views do around their own rendering: build DOM nodes, and load their data through one tool of this
// server when the host opens them and when the user presses Refresh. Spliced into each view after appBridge.
const $ = (id) => document.getElementById(id);

const el = (tag, props, ...children) => {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children) if (child != null) node.append(child);
  return node;
};

/** A status line (an error when `error`) in place of what the box `id` showed. */
const showStatus = (id, text, error) =>
  $(id).replaceChildren(el("p", { className: error ? "status error" : "status", textContent: text }));

/** Which file the data is about and where it was read: the plugin, or the design API without one. */
const sourceLine = (data) => data.fileKey + " · " + (data.source === "design_api" ? "design API" : "plugin");

/**
 * Run the view `name`: once the host hands it the tool input, and at each press of #refresh, call `tool` for the
 * file the input named and give its result to `onData`; `show(text, error)` says what is happening meanwhile.
 * `document.body.dataset.ready` ends "true" or "error", so a test can tell when the view has settled.
 */
const runView = ({ name, tool, loading, show, onData }) => {
  let args = {};
  const load = async () => {
    show(loading);
    try {
      onData(await appBridge.callTool(tool, args));
      document.body.dataset.ready = "true";
    } catch (err) {
      show(err.message, true);
      document.body.dataset.ready = "error";
    }
  };
  $("refresh").addEventListener("click", load);
  appBridge.connect(name, (input) => {
    args = input.fileUrl ? { fileUrl: input.fileUrl } : {};
    load();
  }).catch((err) => show("The host did not complete the handshake: " + err.message, true));
};
