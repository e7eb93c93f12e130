// The facts of the bridge contract the plugin shares with designd (design_console/plugin_contract.py);
// tests/test_plugin_contract.py fails when the two differ. Plain numbers: the test reads them from this text.

/** The bridge protocol version the plugin sends in HELLO. */
export const BRIDGE_PROTOCOL = 3;

/** EXECUTE_CODE's time limit in milliseconds when params.timeout is absent. */
export const EXECUTE_DEFAULT_MS = 5000;

/** The most params.timeout may be; a larger one is lowered to this. */
export const EXECUTE_MAX_MS = 30000;

/** The longest code EXECUTE_CODE accepts, in characters (Unicode code points). */
export const MAX_CODE_CHARS = 200000;

/** The most stickies one CREATE_STICKIES makes. */
export const MAX_STICKIES = 200;

/** The most nodes one AUTO_ARRANGE moves. */
export const MAX_ARRANGED = 500;
