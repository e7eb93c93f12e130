// Types shared by the UI modules (JSDoc only; nothing here runs).

/** @typedef {"scanning" | "connected" | "disconnected" | "not-found" | "paused"} UiState */

/**
 * One designd the UI dialled; the record lives from the dial until its socket closes.
 * @typedef {object} Server
 * @property {number} port
 * @property {WebSocket} ws
 * @property {boolean} open
 * @property {boolean} identified HELLO and FILE_INFO have been sent on this socket
 * @property {unknown[]} queue messages that wait for the handshake
 * @property {string} route names this socket to the plugin code, so a reply goes back to the socket of its command
 * @property {Record<string, any> | null} hello the data of the server's SERVER_HELLO
 */

export {};
