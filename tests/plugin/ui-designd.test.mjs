// The real ui.html (jsdom) and code.js (node:vm) against a real designd: discovery, the handshake's mutual proof,
// reconnect after a restart, pause/resume, a second server, an update banner, a copy without a token, and rogue
// servers in the port range that the plugin must neither tell its token nor obey.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { WebSocket, WebSocketServer } from "ws";
import { freePortRange, makeHome, removeHome, startDesignd, health, waitFor, DESIGND, ROOT } from "./harness/designd.mjs";
import { openPlugin } from "./harness/ui-host.mjs";

const skip = existsSync(DESIGND) ? false : "designd is not installed in .venv (pip install -e .)";

async function setup(t, { startServer = true } = {}) {
  const home = makeHome();
  const base = await freePortRange(10);
  const servers = [];
  const opened = [];
  t.after(async () => {
    opened.forEach((ui) => ui.close());
    for (const s of servers) await s.stop();
    removeHome(home);
  });
  const ctx = {
    home,
    base,
    servers,
    async start(runtime) {
      const s = await startDesignd({ home, basePort: base, runtime });
      servers.push(s);
      return s;
    },
    open(htmlPath, pluginOptions) {
      const ui = openPlugin({ htmlPath: htmlPath || home + "/.design-console-mcp/plugin/ui.html", firstPort: base, lastPort: base + 9, pluginOptions });
      opened.push(ui);
      return ui;
    },
  };
  if (startServer) await ctx.start();
  return ctx;
}

const clients = async (port) => {
  const h = await health(port);
  return h ? h.clients : -1;
};

/**
 * A rogue server on a port of the range: it answers /health like designd, records every frame it receives, sends
 * SERVER_HELLO (with designd's own nonce when it relays to `relayTo`), then tries its luck with commands and a forged
 * SERVER_PROOF. When relaying, it passes the plugin's HELLO on to the real designd and records how designd answered.
 */
async function startRogue(t, port, { relayTo = null, forgeProof = true } = {}) {
  const rogue = { received: [], closes: [], relayClose: null, relayFrames: [] };
  const server = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" });
    res.end(JSON.stringify({ status: "ok", version: "0.1.0", clients: 0 }));
  });
  const wss = new WebSocketServer({ server });
  wss.on("connection", async (ws) => {
    ws.on("close", (code) => rogue.closes.push(code));
    let upstream = null;
    let hello = { port: port, nonce: randomBytes(32).toString("hex"), protocol: 3, authRequired: true, serverVersion: "0.1.0" };
    if (relayTo) {
      upstream = new WebSocket("ws://127.0.0.1:" + relayTo + "/");
      upstream.on("close", (code) => (rogue.relayClose = code));
      const first = await new Promise((resolve) => upstream.once("message", (data) => resolve(JSON.parse(String(data)))));
      hello = first.data;
      upstream.on("message", (data) => {
        rogue.relayFrames.push(String(data));
        ws.send(String(data));
      });
    }
    ws.on("message", (data) => {
      const text = String(data);
      rogue.received.push(text);
      if (upstream) upstream.send(text);
      if (JSON.parse(text).type !== "HELLO") return;
      ws.send(JSON.stringify({ id: "rogue-1", method: "EXECUTE_CODE", params: { code: "figma.currentPage.name = 'owned'; return 1" } }));
      ws.send(JSON.stringify({ id: "rogue-2", method: "GET_FILE_INFO", params: {} }));
      if (forgeProof) ws.send(JSON.stringify({ type: "SERVER_PROOF", data: { proof: randomBytes(32).toString("hex") } }));
    });
    ws.send(JSON.stringify({ type: "SERVER_HELLO", data: hello }));
  });
  await new Promise((r) => server.listen(port, "localhost", r));
  t.after(async () => {
    wss.clients.forEach((c) => c.terminate());
    await new Promise((r) => wss.close(r));
    await new Promise((r) => server.close(r));
  });
  return rogue;
}

/** Every frame the rogue received was a HELLO without the token; returns their parsed data. */
function assertOnlyTokenlessHellos(rogue, token) {
  assert.ok(rogue.received.length > 0, "the rogue was dialled");
  for (const text of rogue.received) {
    assert.ok(!text.includes(token), "a frame to the rogue holds the token: " + text);
    const frame = JSON.parse(text);
    assert.equal(frame.type, "HELLO", "the rogue got more than HELLO: " + text);
    assert.deepEqual(Object.keys(frame.data).sort(), ["nonce", "pluginVersion", "proof", "protocol"]);
  }
}


// Each test has its own home, port range and designd, and most of their time is spent waiting for a timer (a proof
// that never comes, the watchdog's next probe), so they run a few at a time.
describe("the plugin UI against a real designd", { concurrency: 3 }, () => {
  test("a rogue server in the range gets no token, no file and no events, and its commands are never run", { skip }, async (t) => {
    const ctx = await setup(t);
    const port = ctx.servers[0].port;
    const rogue = await startRogue(t, ctx.base + 5, { forgeProof: false });
    const ui = ctx.open(null, { fileName: "Checkout flows", fileKey: "KEY-A" });
    await waitFor(() => ui.state === "connected", 15000, "connected to designd");
    await waitFor(async () => (await clients(port)) === 1, 10000, "file identified by designd");
    await waitFor(() => rogue.received.length > 0, 15000, "the rogue dialled");
    // While the rogue waits for its proof, the plugin code reports a console message, as it does for every one.
    const event = { type: "CONSOLE_CAPTURE", data: { level: "log", message: "secret plan", args: [], timestamp: Date.now() } };
    ui.dom.window.postMessage({ pluginMessage: { kind: "event", event } }, "*");
    await waitFor(() => ui.bridge.ignoredPorts.includes(ctx.base + 5), 15000, "the rogue ignored after its proof timed out");
    await waitFor(() => rogue.closes.length > 0, 5000, "the rogue's socket closed");
    assert.equal(ui.text("ignored"), "1 server ignored: it could not prove it holds this copy's token.");
    assert.deepEqual(Array.from(ui.bridge.servers, (s) => s.port), [port]);
    assert.match(ui.text("detail"), /^1 MCP server · Checkout flows/);
    assertOnlyTokenlessHellos(rogue, ctx.servers[0].token);
    assert.ok(!rogue.received.some((f) => f.includes("secret plan")));
    assert.notEqual(ui.plugin.figma.currentPage.name, "owned");
    assert.ok(!ui.plugin.toUi.some((m) => m.kind === "reply"), "a command of the rogue reached the plugin code");
    assert.ok(!ui.plugin.consoleOut.some((c) => JSON.stringify(c.args).includes("owned")));
  });

  test("a rogue that forges SERVER_PROOF is ignored at once, and the plugin keeps serving designd", { skip }, async (t) => {
    const ctx = await setup(t);
    const port = ctx.servers[0].port;
    const rogue = await startRogue(t, ctx.base + 5);
    const ui = ctx.open();
    await waitFor(() => rogue.received.length > 0, 15000, "the rogue dialled");
    // Well before the 5 s allowed for a proof: the forged one is refused when it arrives.
    await waitFor(() => ui.bridge.ignoredPorts.includes(ctx.base + 5), 3000, "the forger ignored");
    await waitFor(async () => (await clients(port)) === 1, 10000, "file identified by designd");
    assert.equal(ui.state, "connected");
    assert.match(ui.text("ignored"), /^1 server ignored/);
    assertOnlyTokenlessHellos(rogue, ctx.servers[0].token);
    assert.notEqual(ui.plugin.figma.currentPage.name, "owned");
    assert.ok(!ui.plugin.toUi.some((m) => m.kind === "reply"), "a command of the rogue reached the plugin code");
  });

  test("a rogue that relays designd's nonce and the plugin's HELLO is refused by designd", { skip }, async (t) => {
    const ctx = await setup(t);
    const port = ctx.servers[0].port;
    const rogue = await startRogue(t, ctx.base + 5, { relayTo: port, forgeProof: false });
    const ui = ctx.open(null, { fileName: "Checkout flows", fileKey: "KEY-A" });
    await waitFor(() => rogue.relayClose !== null, 15000, "designd answers the relayed HELLO");
    assert.equal(rogue.relayClose, 4401);
    assert.ok(!rogue.relayFrames.some((f) => f.includes("SERVER_PROOF")), "designd proved itself to a relayed HELLO");
    await waitFor(() => ui.bridge.ignoredPorts.includes(ctx.base + 5), 15000, "the relaying rogue ignored");
    assert.match(ui.text("ignored"), /^1 server ignored/);
    await waitFor(async () => (await clients(port)) === 1, 10000, "the plugin's own connection to designd");
    assertOnlyTokenlessHellos(rogue, ctx.servers[0].token);
    assert.notEqual(ui.plugin.figma.currentPage.name, "owned");
  });

  test("finds designd, proves it holds the token, has designd prove the same, and identifies the file", { skip }, async (t) => {
    const ctx = await setup(t);
    const port = ctx.servers[0].port;
    // A foreign service in the range that answers /health with other JSON is never dialled.
    let foreignUpgrades = 0;
    const foreign = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" });
      res.end(JSON.stringify({ status: "ok" }));
    });
    foreign.on("upgrade", (req, socket) => {
      foreignUpgrades++;
      socket.destroy();
    });
    await new Promise((r) => foreign.listen(ctx.base + 5, "localhost", r));
    t.after(() => new Promise((r) => foreign.close(r)));

    const ui = ctx.open(null, { fileName: "Checkout flows", fileKey: "KEY-A" });
    assert.equal(ui.bridge.hasToken, true);
    await waitFor(() => ui.state === "connected", 15000, "connected");
    await waitFor(async () => (await clients(port)) === 1, 10000, "file identified by designd");
    const h = await health(port);
    assert.deepEqual(h.files.map((f) => [f.connected, f.pluginVersion]), [[true, "0.1.0"]]);
    assert.match(ui.text("detail"), /1 MCP server · Checkout flows/);
    assert.equal(ui.text("notice"), "");
    assert.equal(foreignUpgrades, 0);
    assert.equal(ui.bridge.servers[0].hello.protocol, 3);
    assert.equal(ui.text("ignored"), "");
  });

  test("a plugin opened before designd connects once it starts, and reconnects after a restart", { skip }, async (t) => {
    const ctx = await setup(t, { startServer: false });
    // A first start writes the user's plugin copy; the plugin is then opened while no server runs.
    const synced = await ctx.start();
    await synced.stop();
    ctx.servers.splice(0, 1);
    const ui = ctx.open();
    await waitFor(() => ui.state === "not-found", 15000, "No MCP server found");
    assert.equal(ui.text("title"), "No MCP server found");
    assert.equal(ui.text("primary"), "Retry");

    const first = await ctx.start();
    await waitFor(() => ui.state === "connected", 15000, "connected after designd started");

    await first.stop();
    ctx.servers.splice(ctx.servers.indexOf(first), 1);
    await waitFor(() => ui.state === "disconnected", 15000, "disconnected");
    assert.equal(ui.text("primary"), "Reconnect");

    const second = await ctx.start();
    await waitFor(() => ui.state === "connected", 15000, "connected after restart");
    await waitFor(async () => (await clients(second.port)) === 1, 10000, "identified after restart");
  });

  test("Reconnect and Retry scan at once; Pause closes every socket until Resume", { skip }, async (t) => {
    const ctx = await setup(t);
    const port = ctx.servers[0].port;
    const ui = ctx.open();
    await waitFor(async () => (await clients(port)) === 1, 15000, "identified");
    ui.click("pause");
    assert.equal(ui.state, "paused");
    assert.equal(ui.text("pause"), "Resume");
    assert.equal(ui.text("primary"), "");
    await waitFor(async () => (await clients(port)) === 0, 10000, "designd sees the plugin leave");
    ui.click("pause");
    await waitFor(() => ui.state === "connected", 10000, "connected after resume");
    await waitFor(async () => (await clients(port)) === 1, 10000, "identified after resume");
  });

  test("connects to a second server on the next port and keeps both", { skip }, async (t) => {
    const ctx = await setup(t);
    const ui = ctx.open();
    await waitFor(() => ui.state === "connected", 15000, "connected");
    const second = await ctx.start(ctx.home + "/run2");
    assert.equal(second.port, ctx.base + 1);
    // The connected watchdog re-probes every 10 s.
    await waitFor(() => ui.bridge.servers.length === 2, 20000, "second server");
    await waitFor(async () => (await clients(second.port)) === 1 && (await clients(ctx.servers[0].port)) === 1, 10000, "both identified");
    assert.match(ui.text("detail"), /^2 MCP servers/);
  });

  test("an older plugin is shown the update banner", { skip }, async (t) => {
    const ctx = await setup(t);
    const ui = ctx.open(null, { pluginVersion: "0.0.1" });
    await waitFor(() => ui.text("update") !== "", 15000, "update banner");
    assert.match(ui.text("update"), /0\.0\.1 → /);
    assert.match(ui.text("update"), /~\/\.design-console-mcp\/plugin\/manifest\.json/);
  });

  test("the repository copy has no token, says where to import from, and is refused", { skip }, async (t) => {
    const ctx = await setup(t);
    const port = ctx.servers[0].port;
    const ui = ctx.open(ROOT + "plugin/ui.html");
    assert.equal(ui.bridge.hasToken, false);
    assert.match(ui.text("notice"), /no bridge token/);
    assert.match(ui.text("notice"), /~\/\.design-console-mcp\/plugin\/manifest\.json/);
    await waitFor(() => ui.state === "disconnected", 15000, "dialled and closed by designd");
    assert.equal(await clients(port), 0, "designd must not accept a plugin without the token");
  });
});
