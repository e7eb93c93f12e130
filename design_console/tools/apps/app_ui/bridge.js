// The view's side of the MCP Apps extension (io.modelcontextprotocol/ui): JSON-RPC 2.0 over postMessage with the
// host window. Spliced into each view's HTML when designd serves it.
const appBridge = (() => {
  const host = window.parent;
  const pending = new Map();
  const handlers = new Map();
  let nextId = 1;

  const post = (message) => host.postMessage({ jsonrpc: "2.0", ...message }, "*");

  const request = (method, params) => {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      post({ id, method, params });
    });
  };

  window.addEventListener("message", (event) => {
    const msg = event.data;
    if (event.source !== host || !msg || msg.jsonrpc !== "2.0") return;
    if (msg.method === undefined) {
      const waiting = pending.get(msg.id);
      if (!waiting) return;
      pending.delete(msg.id);
      if (msg.error) waiting.reject(new Error(msg.error.message || "The host refused the request."));
      else waiting.resolve(msg.result);
      return;
    }
    if (msg.id !== undefined) {
      // Host requests (ping, ui/resource-teardown): nothing to save, so each is answered at once.
      post({ id: msg.id, result: {} });
      return;
    }
    const handler = handlers.get(msg.method);
    if (handler) handler(msg.params || {});
  });

  const applyContext = (context) => {
    if (!context) return;
    if (context.theme) document.documentElement.dataset.theme = context.theme;
    const vars = (context.styles && context.styles.variables) || {};
    for (const [name, value] of Object.entries(vars)) {
      if (value) document.documentElement.style.setProperty(name, value);
    }
  };

  const reportSize = () => {
    const box = document.documentElement.getBoundingClientRect();
    post({ method: "ui/notifications/size-changed", params: { width: Math.ceil(box.width), height: Math.ceil(box.height) } });
  };

  return {
    /** Handshake with the host; `onInput(arguments)` runs with the arguments of the tool call that opened the view. */
    async connect(name, onInput) {
      handlers.set("ui/notifications/tool-input", (params) => onInput(params.arguments || {}));
      handlers.set("ui/notifications/host-context-changed", applyContext);
      const result = await request("ui/initialize", {
        protocolVersion: "2026-01-26",
        appInfo: { name, version: "1.0.0" },
        appCapabilities: { availableDisplayModes: ["inline"] },
      });
      applyContext(result && result.hostContext);
      post({ method: "ui/notifications/initialized", params: {} });
      new ResizeObserver(reportSize).observe(document.documentElement);
      return result;
    },
    /** A tool of this server, called through the host; its JSON result, or an Error with the tool's message. */
    async callTool(name, args) {
      const result = await request("tools/call", { name, arguments: args });
      const text = (result && result.content && result.content[0] && result.content[0].text) || "";
      if (result && result.isError) throw new Error(text.replace(/^\[design-console-mcp\] /, ""));
      return JSON.parse(text);
    },
  };
})();
