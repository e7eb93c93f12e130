// The handshake's proofs (docs/bridge-protocol.md, Handshake): HMAC-SHA256 keyed by the bridge token, so that the
// token itself never leaves the window. @noble/hashes, not crypto.subtle: the plugin iframe may not be a secure
// context, where crypto.subtle is missing; crypto.getRandomValues is there in every context.
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, randomBytes, utf8ToBytes } from "@noble/hashes/utils.js";

/** @returns {string} a fresh 256-bit nonce in hex */
export function newNonce() {
  return bytesToHex(randomBytes(32));
}

/**
 * HMAC-SHA256(token, side|port|first|second) in lowercase hex. The plugin proves with first = designd's nonce and
 * second = its own; designd answers with the two swapped. `port` is the port the plugin dialled.
 * @param {string} token
 * @param {"plugin" | "server"} side
 * @param {number} port
 * @param {string} first
 * @param {string} second
 * @returns {string}
 */
export function makeProof(token, side, port, first, second) {
  const message = side + "|" + port + "|" + first + "|" + second;
  return bytesToHex(hmac(sha256, utf8ToBytes(token), utf8ToBytes(message)));
}

/**
 * Compares two proofs without stopping at the first difference.
 * @param {string} expected
 * @param {unknown} given
 * @returns {boolean}
 */
export function sameProof(expected, given) {
  if (typeof given !== "string" || given.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ given.charCodeAt(i);
  return diff === 0;
}
