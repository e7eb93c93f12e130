/** An error a model can act on: `code` is machine-readable, the message says what to do next. */
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
