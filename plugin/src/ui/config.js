/**
 * What designd writes into its copy of ui.html (the #bridge-config JSON): the bridge token, the Remote Mode relay
 * and the ports to scan. The repository's copy keeps the placeholders, so it has no token.
 * @typedef {object} BridgeConfig
 * @property {string | null} token
 * @property {string | null} relayUrl
 * @property {number} firstPort
 * @property {number} lastPort
 * @property {number[]} ports
 */

// An unreplaced placeholder has the shape __NAME__; the literal is not repeated so that designd's substitution
// cannot change this test.
const PLACEHOLDER = /^__[A-Z_]+__$/;

/**
 * @param {Document} doc
 * @returns {BridgeConfig}
 */
export function readConfig(doc) {
  const element = doc.getElementById("bridge-config");
  if (!element) throw new Error("ui.html has no #bridge-config element");
  const raw = JSON.parse(element.textContent || "");
  /** @type {number[]} */
  const ports = [];
  for (let p = raw.firstPort; p <= raw.lastPort; p++) ports.push(p);
  return {
    token: PLACEHOLDER.test(raw.token) ? null : raw.token,
    relayUrl: PLACEHOLDER.test(raw.relay) ? null : raw.relay,
    firstPort: raw.firstPort,
    lastPort: raw.lastPort,
    ports: ports,
  };
}
