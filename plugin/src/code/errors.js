/**
 * An error a model can act on: `code` is machine-readable, the message says what to do next.
 *
 * Codes the plugin answers with (the reply's `code`):
 * - bad_params: a parameter is missing, of the wrong type, out of range, or names something invalid
 * - not_found: an id or name that is not in this file (the message names the tool that lists current ones)
 * - conflict: a name that is already taken (variable, collection, mode)
 * - read_only: a library (remote) variable, collection or component, which only its library file can edit
 * - wrong_node_type: the node exists but is of a kind this command cannot act on
 * - font_unavailable: a font the text needs cannot be loaded in this editor
 * - unsupported: the editor (design, whiteboard, slides, dev mode) lacks the API
 * - plugin_api_error: the design tool refused or failed; writes that change several things say whether they
 *   were rolled back (`rolledBack`) and which item failed (`failedIndex`, `failedName`)
 * - cancelled, timeout, syntax_error, execution_error, empty, empty_node, hidden_node: see their methods
 */
export class PluginError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {Record<string, unknown>} [extra]
   */
  constructor(code, message, extra) {
    super(message);
    this.name = "PluginError";
    this.code = code;
    this.extra = extra || {};
  }
}

/** @param {string} message */
export function badParams(message) {
  return new PluginError("bad_params", message);
}

/** @param {string} message */
export function notFound(message) {
  return new PluginError("not_found", message);
}

/** @param {string} message */
export function conflict(message) {
  return new PluginError("conflict", message);
}

/**
 * A library item: it can be read and used here, but only changed in the file that publishes it.
 * @param {string} what e.g. "Variable 'color/bg' (VariableID:1:2)"
 */
export function readOnly(what) {
  return new PluginError(
    "read_only",
    what + " comes from a library and cannot be edited in this file. Edit it in the library's file and publish, " +
      "or create a local copy and change that.",
  );
}

/**
 * A plugin API that this editor (design, whiteboard, slides, dev mode) does not offer.
 * @param {string} what
 * @param {string} editor
 */
export function unsupported(what, editor) {
  return new PluginError(
    "unsupported",
    what + " is only available in " + editor + " files; this file is a '" + figma.editorType + "' file. " +
      "Open the plugin in " + editor + " and retry.",
  );
}

/** The text of anything thrown, for messages. @param {unknown} err */
export function errorText(err) {
  const e = /** @type {any} */ (err);
  if (e instanceof PluginError) return e.message;
  return e && typeof e.message === "string" ? e.message : String(err);
}
