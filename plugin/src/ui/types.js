// Types shared by the UI modules (JSDoc only; nothing here runs).

/** @typedef {"scanning" | "connected" | "disconnected" | "not-found" | "paused"} UiState */

/**
 * One designd the UI dialled; the record lives from the dial until its socket closes.
 * @typedef {object} Server
 * @property {number} port
 * @property {WebSocket} ws
 * @property {boolean} open
 * @property {boolean} proven the server answered SERVER_PROOF computed with this copy's token: only then is it served
 * @property {boolean} identified FILE_INFO has been sent on this socket (after the server's proof)
 * @property {unknown[]} queue messages that wait for the handshake
 * @property {string} route names this socket to the plugin code, so a reply goes back to the socket of its command
 * @property {Record<string, any> | null} hello the data of the server's SERVER_HELLO
 * @property {string | null} nonce this window's nonce for the socket's handshake, once HELLO is sent
 * @property {ReturnType<typeof setTimeout> | null} proofTimer ignores the server unless it proves itself in time
 * @property {string | null} secret what the proofs are keyed by: this copy's bridge token, or a relay's credential
 * @property {boolean} cloud the Remote Mode relay (dialled with a pairing code or a relay credential), not a designd
 */

/** @typedef {"idle" | "pairing" | "paired" | "refused" | "unreachable"} CloudState */

export {};
