import { PluginError } from "./errors.js";

/**
 * @typedef {{id: string, route: string, cancelled: boolean, onCancel: (fn: () => void) => void}} CommandContext
 * @typedef {(params: any, ctx: CommandContext) => Promise<any>} Handler
 */

/**
 * Runs commands from designd: finds the handler, turns thrown errors into `{error, code}` replies, and lets CANCEL
 * abandon a command still in flight.
 */
export class Dispatcher {
  /** @param {Record<string, Handler>} handlers */
  constructor(handlers) {
    this.handlers = handlers;
    /** @type {Map<string, {ctx: CommandContext, cancelHooks: Array<() => void>, abandon: (err: Error) => void}>} */
    this.inFlight = new Map();
  }

  /**
   * @param {any} message the command exactly as designd sent it
   * @param {string} route the socket it came from
   * @returns {Promise<Record<string, any> | null>} the reply, or null when the message carried no id
   */
  async run(message, route) {
    if (!message || typeof message !== "object" || typeof message.id !== "string" || !message.id) return null;
    const id = message.id;
    const method = message.method;
    if (typeof method !== "string") {
      return { id: id, error: "Command has no 'method' string.", code: "bad_request" };
    }
    const params = message.params && typeof message.params === "object" ? message.params : {};
    if (method === "CANCEL") return this.cancel(id, params, route);
    const handler = Object.prototype.hasOwnProperty.call(this.handlers, method) ? this.handlers[method] : undefined;
    if (!handler) return { id: id, error: "Unknown method: " + method, code: "unknown_method" };

    const key = route + "\u0000" + id;
    /** @type {Array<() => void>} */
    const cancelHooks = [];
    /** @type {CommandContext} */
    const ctx = { id: id, route: route, cancelled: false, onCancel: (fn) => cancelHooks.push(fn) };
    /** @type {(err: Error) => void} */
    let abandon = () => undefined;
    const abandoned = new Promise((_, reject) => {
      abandon = reject;
    });
    this.inFlight.set(key, { ctx: ctx, cancelHooks: cancelHooks, abandon: abandon });
    try {
      const result = await Promise.race([handler(params, ctx), abandoned]);
      if (result && result.success === false) {
        return { id: id, error: String(result.error || method + " failed"), code: result.code || "failed" };
      }
      return { id: id, result: result };
    } catch (err) {
      return errorReply(id, method, err);
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** @param {string} id @param {any} params @param {string} route */
  cancel(id, params, route) {
    const target = params.target;
    if (typeof target !== "string" || !target) {
      return { id: id, error: "CANCEL needs params.target: the id of the command to abandon.", code: "bad_params" };
    }
    const entry = this.inFlight.get(route + "\u0000" + target);
    if (!entry) return { id: id, result: { success: true, cancelled: false, target: target } };
    entry.ctx.cancelled = true;
    entry.cancelHooks.forEach((fn) => fn());
    entry.abandon(new PluginError("cancelled", "Command " + target + " was cancelled by the server."));
    return { id: id, result: { success: true, cancelled: true, target: target } };
  }
}

/** @param {string} id @param {string} method @param {unknown} err */
export function errorReply(id, method, err) {
  if (err instanceof PluginError) {
    return Object.assign({}, err.extra, { id: id, error: err.message, code: err.code });
  }
  const e = /** @type {any} */ (err);
  const text = e && typeof e.message === "string" ? e.message : String(err);
  return { id: id, error: method + " failed: " + text, code: "plugin_api_error" };
}
