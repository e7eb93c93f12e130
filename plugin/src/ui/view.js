/** @typedef {import("./types.js").UiState} UiState */
/** @typedef {import("./types.js").CloudState} CloudState */

const PLUGIN_FOLDER = "~/.design-console-mcp/plugin/manifest.json";

/**
 * What the window shows, recomputed from scratch on every change.
 * @typedef {object} ViewModel
 * @property {UiState} state
 * @property {boolean} paused
 * @property {Array<{port: number, hello: Record<string, any> | null}>} open the servers with an open socket
 * @property {Record<string, any> | null} fileInfo
 * @property {boolean} tokenless this copy carries no bridge token
 * @property {boolean} authRefused the last server closed this copy's socket for its token
 * @property {number} ignored servers closed because they could not prove they hold this copy's token
 * @property {string} range the scanned ports, e.g. "9000–9009"
 */

/**
 * What the Cloud section shows.
 * @typedef {object} CloudModel
 * @property {boolean} available this copy names a relay (DESIGN_RELAY_URL when it was synced)
 * @property {CloudState} state
 * @property {string} message why it was refused, or what it is doing
 * @property {string} fileName the file the plugin runs in
 */

/**
 * @param {Document} doc
 * @param {string} id
 * @returns {HTMLElement}
 */
function byId(doc, id) {
  const element = doc.getElementById(id);
  if (!element) throw new Error("ui.html has no #" + id + " element");
  return element;
}

/** The plugin window: status line, detail, buttons, server list, and the notice and update banners. */
export class View {
  /** @param {Document} doc */
  constructor(doc) {
    this.doc = doc;
    this.body = doc.body;
    this.title = byId(doc, "title");
    this.detail = byId(doc, "detail");
    this.primary = byId(doc, "primary");
    this.pause = byId(doc, "pause");
    this.update = byId(doc, "update");
    this.notice = byId(doc, "notice");
    this.servers = byId(doc, "servers");
    this.ignored = byId(doc, "ignored");
    this.cloud = byId(doc, "cloud");
    this.cloudTitle = byId(doc, "cloud-title");
    this.cloudDetail = byId(doc, "cloud-detail");
    this.cloudCode = /** @type {HTMLInputElement} */ (byId(doc, "cloud-code"));
    this.cloudPair = byId(doc, "cloud-pair");
  }

  /** @param {CloudModel} model */
  renderCloud(model) {
    this.cloud.hidden = !model.available;
    this.body.setAttribute("data-cloud-state", model.state);
    const titles = {
      idle: "Cloud: not paired",
      pairing: "Cloud: pairing…",
      paired: "Cloud: paired",
      refused: "Cloud: not paired",
      unreachable: "Cloud: relay unreachable",
    };
    this.cloudTitle.textContent = titles[model.state];
    let detail = model.message;
    if (model.state === "idle") detail = "Ask the AI to pair the plugin (design_pair_plugin), then type its code here.";
    if (model.state === "paired") detail = "Remote Mode reaches " + (model.fileName || "this file") + " through the relay.";
    this.cloudDetail.textContent = detail;
  }

  /** @param {ViewModel} model */
  render(model) {
    const { state, open } = model;
    this.body.setAttribute("data-state", state);
    /** @type {string | null} */
    let primary = null;
    let detail = "";
    if (state === "connected") {
      this.title.textContent = "Connected";
      detail = open.length + " MCP server" + (open.length === 1 ? "" : "s") + (model.fileInfo ? " · " + model.fileInfo.fileName : "");
    } else if (state === "scanning") {
      this.title.textContent = "MCP scanning…";
      detail = "Looking for design-console-mcp on localhost ports " + model.range + ".";
      primary = "Retry";
    } else if (state === "not-found") {
      this.title.textContent = "No MCP server found";
      detail = "Nothing answered on ports " + model.range + ". Start your AI app (or run designd); this window keeps checking every 3 s.";
      primary = "Retry";
    } else if (state === "disconnected") {
      this.title.textContent = "Disconnected";
      detail =
        model.tokenless || model.authRefused
          ? "The MCP server closed the connection of this copy (see above). Checking again every 3 s."
          : "The MCP server went away. Checking again every 3 s; it reconnects by itself.";
      primary = "Reconnect";
    } else {
      this.title.textContent = "Paused";
      detail = "Not connected to any MCP server until you resume.";
    }
    this.detail.textContent = detail;
    this.primary.hidden = primary === null;
    if (primary) this.primary.textContent = primary;
    this.pause.textContent = model.paused ? "Resume" : "Pause";
    this.pause.className = model.paused ? "primary" : "";
    this.servers.textContent = "";
    open.forEach((s) => {
      const li = this.doc.createElement("li");
      const hello = s.hello || {};
      li.textContent = "localhost:" + s.port + (hello.serverVersion ? " · server " + hello.serverVersion : "");
      this.servers.appendChild(li);
    });
    const n = model.ignored;
    this.ignored.hidden = n === 0;
    this.ignored.textContent =
      n === 0
        ? ""
        : n === 1
          ? "1 server ignored: it could not prove it holds this copy's token."
          : n + " servers ignored: they could not prove they hold this copy's token.";
    this.renderNotice(model);
  }

  /** @param {ViewModel} model */
  renderNotice(model) {
    /** @type {string | null} */
    let text = null;
    if (model.tokenless) {
      text = "This copy has no bridge token: it was imported from the source folder. Import ";
    } else if (model.authRefused) {
      text = "The MCP server refused this copy's bridge token (it may be out of date). Re-import ";
    }
    this.notice.textContent = "";
    this.notice.hidden = text === null;
    if (text === null) return;
    this.notice.append(text, this.folder(), " instead (Plugins › Development › Import plugin from manifest).");
  }

  /**
   * The banner for PLUGIN_UPDATE_AVAILABLE.
   * @param {Record<string, any>} msg
   */
  showUpdate(msg) {
    const newer = msg.bundledPluginVersion || msg.serverVersion || "a newer version";
    this.update.textContent = "";
    this.update.append(
      "Plugin update available (" + (msg.pluginVersion || "this copy") + " → " + newer + "). Re-import ",
      this.folder(),
      " and reopen the plugin.",
    );
    this.update.hidden = false;
  }

  /** @returns {HTMLElement} the plugin folder to import from, as code */
  folder() {
    const code = this.doc.createElement("code");
    code.textContent = PLUGIN_FOLDER;
    return code;
  }
}
