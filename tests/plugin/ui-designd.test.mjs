// The real ui.html (jsdom) and code.js (node:vm) against a real designd: discovery, handshake with the bridge token,
// reconnect after a restart, pause/resume, a second server, an update banner, and a copy without a token.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { existsSync } from "node:fs";
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

test("finds designd, says HELLO with the token and identifies the file", { skip }, async (t) => {
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
  assert.equal(ui.bridge.servers[0].hello.protocol, 2);
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
