// The real ui.html (jsdom) and code.js (node:vm): the Cloud section, against relays played here with the protocol's
// own proof function, so that what the window must refuse can be shown: a copy without a relay hides the section, a
// malformed code is not sent, and a relay that cannot prove it holds the credential it handed out is never obeyed.
// (The real relay is exercised with this same window in tests/remote/test_relay_plugin.py.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes, createHmac } from "node:crypto";
import { WebSocketServer } from "ws";
import { freePortRange, waitFor, ROOT } from "./harness/designd.mjs";
import { openPlugin } from "./harness/ui-host.mjs";

const proof = (secret, side, port, first, second) =>
  createHmac("sha256", secret).update(side + "|" + port + "|" + first + "|" + second).digest("hex");

/** ui.html as a copy synced with DESIGN_RELAY_URL=relayUrl (or none) would hold it. */
function copyWith(t, relayUrl) {
  const folder = mkdtempSync(join(tmpdir(), "dc-cloud-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  let html = readFileSync(join(ROOT, "plugin", "ui.html"), "utf8").replace("__DESIGN_BRIDGE_TOKEN__", "t".repeat(43));
  if (relayUrl) html = html.replace("__DESIGN_RELAY_URL__", relayUrl);
  writeFileSync(join(folder, "ui.html"), html);
  return join(folder, "ui.html");
}

/** A relay that pairs any code, then answers HELLO with a SERVER_PROOF keyed by `proofKey`, and sends a command. */
async function startRelay(t, proofKey) {
  const port = await freePortRange(1);
  const relay = { urls: [], times: [], replies: [], closes: [] };
  const wss = new WebSocketServer({ port, host: "127.0.0.1" });
  t.after(
    () =>
      new Promise((resolve) => {
        wss.clients.forEach((c) => c.terminate());
        wss.close(resolve);
      }),
  );
  wss.on("connection", (ws, req) => {
    relay.urls.push(req.url);
    relay.times.push(Date.now());
    const credential = "credential-" + randomBytes(8).toString("hex");
    const nonce = randomBytes(32).toString("hex");
    ws.send(JSON.stringify({ type: "PAIRED", data: { relay: "r1", credential } }));
    ws.send(JSON.stringify({ type: "SERVER_HELLO", data: { port: 0, nonce, protocol: 3 } }));
    ws.on("message", (raw) => {
      const msg = JSON.parse(String(raw));
      if (msg.type === "HELLO") {
        const key = proofKey === "credential" ? credential : proofKey;
        ws.send(JSON.stringify({ type: "SERVER_PROOF", data: { proof: proof(key, "server", 0, msg.data.nonce, nonce) } }));
        ws.send(JSON.stringify({ id: "c1", method: "EXECUTE_CODE", params: { code: "return 41 + 1" } }));
      } else if (msg.id === "c1") {
        relay.replies.push(msg);
      }
    });
    ws.on("close", (code) => relay.closes.push(code));
  });
  relay.url = "ws://127.0.0.1:" + port;
  relay.wss = wss;
  return relay;
}

test("a copy without a relay hides the Cloud section", async (t) => {
  const base = await freePortRange(10);
  const ui = openPlugin({ htmlPath: copyWith(t, null), firstPort: base, lastPort: base + 9 });
  t.after(() => ui.close());
  assert.equal(ui.dom.window.document.getElementById("cloud").hidden, true);
  assert.equal(ui.bridge.cloud.state, "idle");
});

test("a relay that proves the credential it handed out is served; the code is sent once, upper-cased", async (t) => {
  const relay = await startRelay(t, "credential");
  const base = await freePortRange(10);
  const ui = openPlugin({ htmlPath: copyWith(t, relay.url), firstPort: base, lastPort: base + 9 });
  t.after(() => ui.close());
  const doc = ui.dom.window.document;
  assert.equal(doc.getElementById("cloud").hidden, false);
  doc.getElementById("cloud-code").value = "ab1";
  ui.click("cloud-pair");
  assert.equal(ui.bridge.cloud.state, "refused");
  assert.equal(relay.urls.length, 0);
  doc.getElementById("cloud-code").value = "acd3fg";
  ui.click("cloud-pair");
  await waitFor(() => ui.bridge.cloud.state === "paired", 10000, "paired");
  assert.deepEqual(relay.urls, ["/ws/pair?code=ACD3FG"]);
  await waitFor(() => relay.replies.length === 1, 10000, "the command's reply");
  assert.equal(relay.replies[0].result.result, 42);
  assert.match(ui.text("cloud-detail"), /through the relay/);
});

test("a relay that cannot prove the credential is never obeyed and ends the pairing", async (t) => {
  const relay = await startRelay(t, "some-other-secret");
  const base = await freePortRange(10);
  const ui = openPlugin({ htmlPath: copyWith(t, relay.url), firstPort: base, lastPort: base + 9 });
  t.after(() => ui.close());
  ui.dom.window.document.getElementById("cloud-code").value = "ACD3FG";
  ui.click("cloud-pair");
  await waitFor(() => ui.bridge.cloud.state === "refused", 10000, "refused");
  assert.match(ui.bridge.cloud.message, /could not prove/);
  await waitFor(() => relay.closes.length === 1, 10000, "the socket closed");
  assert.deepEqual(relay.replies, []);
  assert.equal(ui.bridge.cloud.relay, null);
});

test("a relay instance shutting down (1012) is dialled again at once, by relay id", async (t) => {
  const relay = await startRelay(t, "credential");
  const base = await freePortRange(10);
  const ui = openPlugin({ htmlPath: copyWith(t, relay.url), firstPort: base, lastPort: base + 9 });
  t.after(() => ui.close());
  ui.dom.window.document.getElementById("cloud-code").value = "ACD3FG";
  ui.click("cloud-pair");
  await waitFor(() => relay.replies.length === 1, 10000, "the command's reply");
  const closedAt = Date.now();
  relay.wss.clients.forEach((ws) => ws.close(1012, "service restart"));
  await waitFor(() => relay.urls.length === 2, 10000, "the window dialled again");
  assert.equal(relay.urls[1], "/ws/pair?relay=r1");
  // Any other drop waits 0.5 s before the first try.
  assert.ok(relay.times[1] - closedAt < 450, `dialled again after ${relay.times[1] - closedAt} ms`);
});
