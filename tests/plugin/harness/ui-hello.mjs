// Prints (as JSON) the HELLO that the shipped plugin/ui.html sends, with the port it dialled and the nonce it
// answered: the page runs in jsdom with a bridge token filled in as designd does, a /health probe that always answers,
// and a WebSocket that opens at once, says SERVER_HELLO with a nonce and records frames.
import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";

const html = readFileSync(new URL("../../../plugin/ui.html", import.meta.url), "utf8").replace(
  "__DESIGN_BRIDGE_TOKEN__",
  "probe-token",
);
const hello = new Promise((resolve, reject) => {
  setTimeout(() => reject(new Error("ui.html sent no HELLO within 10 s")), 10000).unref();

  class Health {
    open() {}
    send() {
      setTimeout(() => {
        this.status = 200;
        this.responseText = JSON.stringify({ status: "ok", version: "0.0.0", clients: 0 });
        this.onload();
      }, 0);
    }
  }

  class Socket {
    constructor(url) {
      this.port = Number(new URL(url).port);
      this.nonce = "5e" + String(this.port).padStart(30, "0");
      this.bufferedAmount = 0;
      setTimeout(() => {
        this.onopen();
        this.onmessage({ data: JSON.stringify({ type: "SERVER_HELLO", data: { port: this.port, nonce: this.nonce, protocol: 3 } }) });
      }, 0);
    }
    send(text) {
      const frame = JSON.parse(text);
      if (frame.type === "HELLO") resolve({ port: this.port, serverNonce: this.nonce, hello: frame.data });
    }
    close() {}
  }

  const dom = new JSDOM(html, {
    runScripts: "dangerously",
    beforeParse(win) {
      win.XMLHttpRequest = Health;
      win.WebSocket = Socket;
      Object.defineProperty(win, "parent", { configurable: true, value: { postMessage: () => undefined } });
    },
  });
  const init = { kind: "init", pluginVersion: "0.0.0", fileInfo: { fileName: "Probe", fileKey: "probe" } };
  dom.window.postMessage({ pluginMessage: init }, "*");
});

const data = await hello;
process.stdout.write(JSON.stringify(data) + "\n");
process.exit(0);
