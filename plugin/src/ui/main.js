// The plugin window (an iframe of the design tool): finds designd on the local ports, proves to each server that it
// holds the bridge token and has the server prove the same (the token never crosses the wire), identifies the file,
// and relays commands and replies between proven servers and the plugin code, and the plugin code's events to every
// proven server. A server that cannot prove itself gets nothing and is obeyed in nothing. In its Cloud section the
// window pairs with the Remote Mode relay by the code the user types, and serves the relay the same way once it proves
// the credential it handed out. docs/bridge-protocol.md describes the conversation.
import { BRIDGE_PROTOCOL } from "../shared/contract.js";
import { readConfig } from "./config.js";
import { probe } from "./probe.js";
import { makeProof, newNonce, sameProof } from "./proof.js";
import { View } from "./view.js";

/** @typedef {import("./types.js").Server} Server */
/** @typedef {import("./types.js").UiState} UiState */
/** @typedef {import("./types.js").CloudState} CloudState */

const RESCAN_IDLE_MS = 3000;
const RESCAN_CONNECTED_MS = 10000;
const MAX_QUEUE = 1000;
/** A server must prove itself this soon after this window's HELLO (or say SERVER_HELLO this soon), or it is ignored. */
const PROOF_TIMEOUT_MS = 5000;
/** An ignored port is not dialled again for this long. */
const IGNORE_MS = 30000;
/** After a drop the relay is dialled again after this long, doubling up to CLOUD_RETRY_MAX_MS. */
const CLOUD_RETRY_MS = 500;
const CLOUD_RETRY_MAX_MS = 4000;
/** Every proof over the relay names this port: the relay's own credential already tells relays apart. */
const RELAY_PORT = 0;

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
/** @type {Record<number, number>} port -> time until which the server there, which failed to prove itself, is left alone */
const ignored = {};

// Cloud (Remote Mode): one relay socket, dialled with the code the user typed, then with the relay's credential.
/** @type {Server | null} */
let cloud = null;
/** @type {CloudState} */
let cloudState = "idle";
let cloudMessage = "";
/** @type {{relay: string, credential: string} | null} */
let pairing = null;
let cloudRetry = CLOUD_RETRY_MS;
/** @type {ReturnType<typeof setTimeout> | null} */
let cloudTimer = null;

/** @param {unknown} message */
function toHost(message) {
  window.parent.postMessage({ pluginMessage: message }, "*");
}

/** @returns {Server[]} */
function allServers() {
  return Object.keys(servers).map((k) => servers[Number(k)]);
}

/** @returns {Server[]} the local servers and the relay: everything the plugin's events go to */
function everyServer() {
  return cloud ? allServers().concat([cloud]) : allServers();
}

/** The servers that proved they hold this copy's token, on an open socket: the only ones this window serves. */
function openServers() {
  return allServers().filter((s) => s.open && s.proven);
}

/**
 * Sends once the server proved itself and got FILE_INFO; until then messages wait in the server's queue.
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

/**
 * Answers SERVER_HELLO with this copy's proof over the server's nonce, its own nonce and the port it dialled. A copy
 * without a token says HELLO without a proof: designd then refuses it, and the window says why.
 * @param {Server} server
 */
function sayHello(server) {
  if (server.nonce || !pluginVersion || !server.hello) return;
  server.nonce = newNonce();
  // The server's time to prove itself runs from this HELLO, not from the socket's opening: the plugin code's
  // init, which HELLO waits for, may come late.
  if (server.proofTimer) clearTimeout(server.proofTimer);
  server.proofTimer = setTimeout(() => ignore(server, "No server proof in time"), PROOF_TIMEOUT_MS);
  /** @type {Record<string, unknown>} */
  const hello = { pluginVersion: pluginVersion, protocol: BRIDGE_PROTOCOL };
  const serverNonce = server.hello.nonce;
  if (server.secret && typeof serverNonce === "string" && serverNonce) {
    hello.nonce = server.nonce;
    hello.proof = makeProof(server.secret, "plugin", server.port, serverNonce, server.nonce);
  }
  server.ws.send(JSON.stringify({ type: "HELLO", data: hello }));
}

/**
 * Checks SERVER_PROOF: only a server that computed it with this copy's token, for this port and both nonces, is
 * served; any other answer means the server does not hold the token, and it is ignored.
 * @param {Server} server
 * @param {Record<string, any>} data
 */
function onServerProof(server, data) {
  const serverNonce = server.hello && server.hello.nonce;
  const valid =
    !!server.secret &&
    !!server.nonce &&
    typeof serverNonce === "string" &&
    sameProof(makeProof(server.secret, "server", server.port, server.nonce, serverNonce), data && data.proof);
  if (!valid) {
    ignore(server, "Server proof did not verify");
    return;
  }
  server.proven = true;
  if (server.proofTimer) clearTimeout(server.proofTimer);
  server.proofTimer = null;
  if (server.cloud) {
    cloudRetry = CLOUD_RETRY_MS;
    setCloud("paired", "");
    handshake(server);
    return;
  }
  delete ignored[server.port];
  everConnected = true;
  authRefused = false;
  handshake(server);
  render();
}

/**
 * Closes a server that did not prove it holds this copy's token, and leaves its port alone for a while.
 * @param {Server} server
 * @param {string} reason
 */
function ignore(server, reason) {
  if (server.cloud && server === cloud && !server.proven) {
    // A relay that cannot prove it holds the credential is not ours: the pairing is dropped, never retried there.
    pairing = null;
    setCloud("refused", "The relay could not prove it is the one this plugin paired with. Pair again with a new code.");
    closeCloud(4000, reason);
    return;
  }
  if (server.proven || servers[server.port] !== server) return;
  if (server.proofTimer) clearTimeout(server.proofTimer);
  server.proofTimer = null;
  ignored[server.port] = Date.now() + IGNORE_MS;
  server.queue = [];
  delete servers[server.port];
  delete routes[server.route];
  try {
    server.ws.close(4000, reason);
  } catch (err) {
    // already closing
  }
  render();
}

/** @param {Server} server */
function handshake(server) {
  if (server.identified || !server.proven || !fileInfo) return;
  server.identified = true;
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
  const server = {
    port: port,
    ws: ws,
    open: false,
    proven: false,
    identified: false,
    queue: [],
    route: port + ":" + connectionCount,
    hello: null,
    nonce: null,
    proofTimer: null,
    secret: token,
    cloud: false,
  };
  servers[port] = server;
  routes[server.route] = server;
  ws.onopen = () => {
    if (servers[port] !== server) return;
    server.open = true;
    // A server that does not even say SERVER_HELLO gets the same time; once it has, the time runs from HELLO.
    server.proofTimer = setTimeout(() => {
      if (!server.hello) ignore(server, "No SERVER_HELLO in time");
    }, PROOF_TIMEOUT_MS);
  };
  ws.onmessage = (event) => {
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch (err) {
      return;
    }
    if (!msg || typeof msg !== "object" || servers[port] !== server) return;
    if (!server.proven) {
      // Before its proof a server is heard on the handshake only: no command, banner or other frame of it counts.
      if (msg.type === "SERVER_HELLO" && !server.hello) {
        server.hello = msg.data && typeof msg.data === "object" ? msg.data : {};
        sayHello(server);
      } else if (msg.type === "SERVER_PROOF" && server.nonce) {
        onServerProof(server, msg.data);
      }
      return;
    }
    if (msg.type === "PLUGIN_UPDATE_AVAILABLE") {
      view.showUpdate(msg);
    } else if (typeof msg.id === "string" && typeof msg.method === "string") {
      toHost({ kind: "command", route: server.route, command: msg });
    }
  };
  ws.onclose = (event) => {
    if (server.proofTimer) clearTimeout(server.proofTimer);
    server.proofTimer = null;
    delete routes[server.route];
    if (servers[port] === server) delete servers[port];
    if (event.code === 4401) {
      // Refused for its token (or its lack of one): the window says so, as it would after losing a connection.
      authRefused = true;
      everConnected = true;
    }
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
  const now = Date.now();
  Object.keys(ignored).forEach((k) => {
    if (ignored[Number(k)] <= now) delete ignored[Number(k)];
  });
  const candidates = config.ports.filter((port) => !servers[port] && !ignored[port]);
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
    ignored: Object.keys(ignored).length,
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

/**
 * @param {CloudState} next
 * @param {string} message
 */
function setCloud(next, message) {
  cloudState = next;
  cloudMessage = message;
  renderCloud();
}

function renderCloud() {
  view.renderCloud({
    available: !!config.relayUrl,
    state: cloudState,
    message: cloudMessage,
    fileName: fileInfo ? fileInfo.fileName : "",
  });
}

/**
 * @param {number} code
 * @param {string} reason
 */
function closeCloud(code, reason) {
  const server = cloud;
  cloud = null;
  if (!server) return;
  if (server.proofTimer) clearTimeout(server.proofTimer);
  delete routes[server.route];
  try {
    server.ws.close(code, reason);
  } catch (err) {
    // already closing
  }
}

/**
 * Dials the relay: with the code the user typed, or (after a drop) with the relay's id, proving the credential.
 * @param {string | null} code
 */
function dialCloud(code) {
  if (!config.relayUrl) return;
  if (cloudTimer) clearTimeout(cloudTimer);
  cloudTimer = null;
  closeCloud(1000, "Dialling again");
  const query = code ? "code=" + encodeURIComponent(code) : "relay=" + encodeURIComponent(pairing ? pairing.relay : "");
  let ws;
  try {
    ws = new WebSocket(config.relayUrl + "/ws/pair?" + query);
  } catch (err) {
    setCloud("unreachable", "The relay address of this copy is not valid: " + config.relayUrl);
    return;
  }
  connectionCount += 1;
  /** @type {Server} */
  const server = {
    port: RELAY_PORT,
    ws: ws,
    open: false,
    proven: false,
    identified: false,
    queue: [],
    route: "cloud:" + connectionCount,
    hello: null,
    nonce: null,
    proofTimer: null,
    secret: pairing ? pairing.credential : null,
    cloud: true,
  };
  cloud = server;
  routes[server.route] = server;
  let refused = false;
  ws.onopen = () => {
    server.open = true;
  };
  ws.onmessage = (event) => {
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch (err) {
      return;
    }
    if (!msg || typeof msg !== "object" || cloud !== server) return;
    const data = msg.data && typeof msg.data === "object" ? msg.data : {};
    if (msg.type === "PAIR_REFUSED") {
      refused = true;
      if (data.reason === "relay_expired") pairing = null;
      setCloud("refused", typeof data.message === "string" ? data.message : "The relay refused this pairing.");
    } else if (msg.type === "PAIRED" && code && !server.hello) {
      pairing = { relay: String(data.relay), credential: String(data.credential) };
      server.secret = pairing.credential;
    } else if (!server.proven) {
      if (msg.type === "SERVER_HELLO" && !server.hello) {
        server.hello = data;
        sayHello(server);
      } else if (msg.type === "SERVER_PROOF" && server.nonce) {
        onServerProof(server, data);
      }
    } else if (typeof msg.id === "string" && typeof msg.method === "string") {
      toHost({ kind: "command", route: server.route, command: msg });
    }
  };
  ws.onclose = (event) => {
    if (server.proofTimer) clearTimeout(server.proofTimer);
    delete routes[server.route];
    if (cloud !== server) return;
    cloud = null;
    if (refused) return;
    if (!pairing) {
      setCloud("unreachable", "Could not reach the relay at " + config.relayUrl + ". Check the connection and pair again.");
      return;
    }
    // A drop of the network or of the relay's instance: come back with the credential, never the spent code.
    setCloud("unreachable", "Lost the relay; reconnecting…");
    if (event.code === 1012) {
      // The relay's instance is shutting down (SIGTERM) and another takes over: come back at once.
      cloudRetry = CLOUD_RETRY_MS;
      cloudTimer = setTimeout(() => dialCloud(null), 0);
      return;
    }
    cloudTimer = setTimeout(() => dialCloud(null), cloudRetry);
    cloudRetry = Math.min(cloudRetry * 2, CLOUD_RETRY_MAX_MS);
  };
}

function pairWithCode() {
  const code = view.cloudCode.value.trim().toUpperCase();
  if (!/^[A-Z0-9]{6}$/.test(code)) {
    setCloud("refused", "Type the 6-character code the AI gave you.");
    return;
  }
  pairing = null;
  cloudRetry = CLOUD_RETRY_MS;
  setCloud("pairing", "");
  dialCloud(code);
}

window.addEventListener("message", (event) => {
  const msg = event.data && event.data.pluginMessage;
  if (!msg || typeof msg !== "object") return;
  if (msg.kind === "init") {
    pluginVersion = msg.pluginVersion;
    fileInfo = msg.fileInfo;
    renderCloud();
    everyServer().forEach(sayHello);
    openServers().forEach(handshake);
    if (cloud && cloud.proven) handshake(cloud);
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
      renderCloud();
    }
    if (msg.event.type === "VARIABLES_DATA") variablesData = msg.event.data;
    const cached = msg.event.type === "FILE_INFO" || msg.event.type === "VARIABLES_DATA";
    everyServer().forEach((s) => {
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
view.cloudPair.addEventListener("click", pairWithCode);
view.cloudCode.addEventListener("keydown", (event) => {
  if (/** @type {KeyboardEvent} */ (event).key === "Enter") pairWithCode();
});
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
  get ignoredPorts() {
    return Object.keys(ignored).map(Number);
  },
  get cloud() {
    return { state: cloudState, message: cloudMessage, relay: pairing ? pairing.relay : null };
  },
};

render();
renderCloud();
toHost({ kind: "ui-ready" });
schedule(0);
