// The plugin window (an iframe of the design tool): finds designd on the local ports, says HELLO with the bridge
// token, identifies the file, and relays commands and replies between designd and the plugin code, and the plugin
// code's events to every server. docs/bridge-protocol.md describes the conversation.
import { BRIDGE_PROTOCOL } from "../shared/contract.js";
import { readConfig } from "./config.js";
import { probe } from "./probe.js";
import { View } from "./view.js";

/** @typedef {import("./types.js").Server} Server */
/** @typedef {import("./types.js").UiState} UiState */

const RESCAN_IDLE_MS = 3000;
const RESCAN_CONNECTED_MS = 10000;
const MAX_QUEUE = 1000;

const config = readConfig(document);
const token = config.token;
const view = new View(document);

/** @type {UiState} */
let state = "scanning";
let paused = false;
let scanning = false;
let everConnected = false;
/** @type {ReturnType<typeof setTimeout> | null} */
let scanTimer = null;
let connectionCount = 0;
let authRefused = false;
/** @type {string | null} */
let pluginVersion = null;
/** @type {Record<string, any> | null} */
let fileInfo = null;
/** @type {unknown} */
let variablesData = null;
/** @type {Record<number, Server>} port -> server */
const servers = {};
/** @type {Record<string, Server>} route -> server, so a reply goes back to the socket its command came from */
const routes = {};

/** @param {unknown} message */
function toHost(message) {
  window.parent.postMessage({ pluginMessage: message }, "*");
}

/** @returns {Server[]} */
function allServers() {
  return Object.keys(servers).map((k) => servers[Number(k)]);
}

function openServers() {
  return allServers().filter((s) => s.open);
}

/**
 * Sends once the socket has said HELLO and FILE_INFO; until then messages wait in the server's queue.
 * @param {Server} server
 * @param {unknown} message
 */
function send(server, message) {
  if (server.open && server.identified) {
    try {
      server.ws.send(JSON.stringify(message));
    } catch (err) {
      console.warn("[design bridge] send to port " + server.port + " failed", err);
    }
    return;
  }
  if (server.queue.length >= MAX_QUEUE) server.queue.shift();
  server.queue.push(message);
}

/** @param {Server} server */
function handshake(server) {
  if (server.identified || !pluginVersion || !fileInfo) return;
  server.identified = true;
  if (token) {
    const hello = { token: token, pluginVersion: pluginVersion, protocol: BRIDGE_PROTOCOL };
    server.ws.send(JSON.stringify({ type: "HELLO", data: hello }));
  }
  server.ws.send(JSON.stringify({ type: "FILE_INFO", data: fileInfo }));
  if (variablesData) server.ws.send(JSON.stringify({ type: "VARIABLES_DATA", data: variablesData }));
  const queued = server.queue;
  server.queue = [];
  queued.forEach((m) => send(server, m));
}

/** @param {number} port */
function connect(port) {
  let ws;
  try {
    ws = new WebSocket("ws://localhost:" + port);
  } catch (err) {
    return;
  }
  connectionCount += 1;
  /** @type {Server} */
  const server = { port: port, ws: ws, open: false, identified: false, queue: [], route: port + ":" + connectionCount, hello: null };
  servers[port] = server;
  routes[server.route] = server;
  ws.onopen = () => {
    if (servers[port] !== server) return;
    server.open = true;
    everConnected = true;
    authRefused = false;
    handshake(server);
    render();
  };
  ws.onmessage = (event) => {
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch (err) {
      return;
    }
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "SERVER_HELLO") {
      server.hello = msg.data || {};
      render();
    } else if (msg.type === "PLUGIN_UPDATE_AVAILABLE") {
      view.showUpdate(msg);
    } else if (typeof msg.id === "string" && typeof msg.method === "string") {
      toHost({ kind: "command", route: server.route, command: msg });
    }
  };
  ws.onclose = (event) => {
    delete routes[server.route];
    if (servers[port] === server) delete servers[port];
    if (event.code === 4401) authRefused = true;
    if (!paused && openServers().length === 0) {
      setState(everConnected ? "disconnected" : state === "scanning" ? "scanning" : state);
      schedule(RESCAN_IDLE_MS);
    }
    render();
  };
}

/** @param {number} delay */
function schedule(delay) {
  if (scanTimer) clearTimeout(scanTimer);
  scanTimer = paused ? null : setTimeout(scan, delay);
}

function scan() {
  scanTimer = null;
  if (paused || scanning) return;
  scanning = true;
  const candidates = config.ports.filter((port) => !servers[port]);
  Promise.all(candidates.map((port) => probe(port).then((health) => ({ port: port, health: health })))).then((results) => {
    scanning = false;
    if (paused) return;
    const found = results.filter((r) => r.health);
    found.forEach((r) => {
      if (!servers[r.port]) connect(r.port);
    });
    if (!found.length && openServers().length === 0 && allServers().length === 0 && state === "scanning") {
      setState("not-found");
    }
    schedule(openServers().length ? RESCAN_CONNECTED_MS : RESCAN_IDLE_MS);
  });
}

function rescanNow() {
  if (paused) return;
  setState(openServers().length ? "connected" : "scanning");
  schedule(0);
}

function pause() {
  paused = true;
  if (scanTimer) clearTimeout(scanTimer);
  scanTimer = null;
  allServers().forEach((s) => {
    delete servers[s.port];
    delete routes[s.route];
    try {
      s.ws.close(1000, "Paused by user");
    } catch (err) {
      // already closing
    }
  });
  setState("paused");
}

function resume() {
  paused = false;
  setState("scanning");
  schedule(0);
}

/** @param {UiState} next */
function setState(next) {
  state = next;
  render();
}

function render() {
  const open = openServers();
  if (!paused && open.length && state !== "connected") state = "connected";
  if (!paused && !open.length && state === "connected") state = everConnected ? "disconnected" : "scanning";
  view.render({
    state: state,
    paused: paused,
    open: open,
    fileInfo: fileInfo,
    tokenless: !token,
    authRefused: authRefused,
    range: config.firstPort + "–" + config.lastPort,
  });
}

/**
 * After RELOAD_UI's reply: give the sockets until `deadline` to flush it, then ask the plugin code for the reload.
 * @param {number} deadline
 */
function waitForFlush(deadline) {
  const busy = openServers().some((s) => s.ws.bufferedAmount > 0);
  if (busy && Date.now() < deadline) {
    setTimeout(() => waitForFlush(deadline), 20);
  } else {
    toHost({ kind: "reload" });
  }
}

window.addEventListener("message", (event) => {
  const msg = event.data && event.data.pluginMessage;
  if (!msg || typeof msg !== "object") return;
  if (msg.kind === "init") {
    pluginVersion = msg.pluginVersion;
    fileInfo = msg.fileInfo;
    openServers().forEach(handshake);
    render();
  } else if (msg.kind === "event" && msg.event) {
    if (msg.route) {
      // Progress of a command belongs to the server that sent it, not to every server.
      const target = routes[msg.route];
      if (target) send(target, msg.event);
      return;
    }
    if (msg.event.type === "FILE_INFO") {
      fileInfo = msg.event.data;
      render();
    }
    if (msg.event.type === "VARIABLES_DATA") variablesData = msg.event.data;
    const cached = msg.event.type === "FILE_INFO" || msg.event.type === "VARIABLES_DATA";
    allServers().forEach((s) => {
      // The handshake sends the latest FILE_INFO and VARIABLES_DATA itself.
      if (s.identified || !cached) send(s, msg.event);
    });
  } else if (msg.kind === "reply") {
    const server = routes[msg.route];
    if (server) send(server, msg.reply);
    if (msg.then === "reload") waitForFlush(Date.now() + 1000);
  }
});

view.primary.addEventListener("click", rescanNow);
view.pause.addEventListener("click", () => {
  if (paused) resume();
  else pause();
});

// Read-only state for tests and for a look from the browser's console.
const win = /** @type {any} */ (window);
win.designBridge = {
  get state() {
    return state;
  },
  get relayUrl() {
    return config.relayUrl;
  },
  get hasToken() {
    return token !== null;
  },
  get servers() {
    return openServers().map((s) => ({ port: s.port, hello: s.hello }));
  },
};

render();
toHost({ kind: "ui-ready" });
schedule(0);
