// Starts the real designd for plugin tests: private HOME, runtime dir and temp dir, on a port range chosen free.
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import net from "node:net";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const DESIGND = ROOT + ".venv/bin/designd";

function portFree(port, host) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", (err) => resolve(err.code === "EADDRNOTAVAIL"));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The first port of `count` consecutive ports free on both loopbacks. */
export async function freePortRange(count = 10) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20000 + Math.floor(Math.random() * 40000);
    let ok = true;
    for (let p = base; p < base + count && ok; p++) ok = (await portFree(p, "127.0.0.1")) && (await portFree(p, "::1"));
    if (ok) return base;
  }
  throw new Error("no free range of " + count + " ports");
}

export function makeHome() {
  const home = mkdtempSync(tmpdir() + "/design-plugin-test-");
  mkdirSync(home + "/run", { mode: 0o700 });
  return home;
}

export async function health(port, ms = 1000) {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), ms);
  try {
    const r = await fetch("http://127.0.0.1:" + port + "/health", { signal: ctrl.signal });
    return await r.json();
  } catch (err) {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

export async function waitFor(predicate, ms = 15000, what = "condition") {
  const started = Date.now();
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() - started > ms) throw new Error(what + " not met within " + ms + " ms");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Runs designd in the foreground. `runtime` lets a second instance share HOME (and so the bridge token).
 * @returns {Promise<{proc: import("node:child_process").ChildProcess, port: number, home: string, token: string, stop: () => Promise<void>, log: () => string}>}
 */
export async function startDesignd({ home, basePort, runtime }) {
  const runDir = runtime || home + "/run";
  mkdirSync(runDir, { recursive: true, mode: 0o700 });
  const env = Object.assign({}, process.env, {
    HOME: home,
    DESIGN_RUNTIME_DIR: runDir,
    TMPDIR: home,
    DESIGN_WS_PORT: String(basePort),
  });
  delete env.XDG_RUNTIME_DIR;
  let output = "";
  const proc = spawn(DESIGND, ["--foreground"], { env, stdio: ["ignore", "pipe", "pipe"] });
  proc.stdout.on("data", (d) => (output += d));
  proc.stderr.on("data", (d) => (output += d));
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  const port = await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new Error("designd exited early:\n" + output);
      const m = /ready: bridge on [^:]+:(\d+)/.exec(output);
      return m ? Number(m[1]) : null;
    },
    20000,
    "designd start",
  );
  const token = readFileSync(home + "/.design-console-mcp/bridge-token", "utf8").trim();
  return {
    proc,
    port,
    home,
    token,
    log: () => output,
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      await exited;
    },
  };
}

export function removeHome(home) {
  rmSync(home, { recursive: true, force: true });
}
