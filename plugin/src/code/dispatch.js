import { PluginError } from "./errors.js";

/** A long command reports progress at most once every this many items… */
export const PROGRESS_EVERY_ITEMS = 10;
/** …or once this many milliseconds have passed since its last report. */
export const PROGRESS_EVERY_MS = 250;
/** Commands with fewer items than this answer too fast for progress to help. */
export const PROGRESS_MIN_TOTAL = 20;
/**
 * A cancelled write holds the next one back until it settles (a batch rolls back at its next progress point) or
 * for this long: code that never returns must not block every later write.
 */
export const CANCEL_GRACE_MS = 1000;
/**
 * Codes of a write refused before it changed anything (checked parameters, names, node kinds, fonts, editor APIs)
 * or rolled back by a cancel: it commits no undo step, or the user's next undo would undo nothing.
 */
export const REFUSALS = new Set([
  "bad_params", "not_found", "conflict", "read_only", "wrong_node_type", "font_unavailable", "unsupported",
  "cancelled", "syntax_error", "empty",
]);

/** True when a write's outcome (its result or what it threw) is a refusal that changed nothing. @param {any} outcome */
function refused(outcome) {
  if (outcome instanceof PluginError) return REFUSALS.has(outcome.code);
  return Boolean(outcome && outcome.success === false && REFUSALS.has(outcome.code));
}

/**
 * @typedef {{id: string, route: string, cancelled: boolean, onCancel: (fn: () => void) => void,
 *            progress: (done: number, total: number, message: string) => Promise<void>}} CommandContext
 *   `progress` sends a rate-limited PROGRESS message and lets the editor breathe when it did; it throws once the
 *   command was cancelled, so a loop that reports progress stops there (and rolls back).
 * @typedef {(params: any, ctx: CommandContext) => Promise<any>} Handler
 * @typedef {{id: string, progress: number, total: number, message: string}} Progress
 * @typedef {{writes?: string[], commitUndo?: () => void, onProgress?: (route: string, progress: Progress) => void}} Options
 */

/**
 * Runs commands from designd: finds the handler, turns thrown errors into `{error, code}` replies, and lets CANCEL
 * abandon a command still in flight.
 *
 * Writes (the methods named in `writes`) run one at a time, and each that changed the document ends with exactly one
 * commitUndo, after its handler settles and before its reply: a write is one undo step, never split by another write
 * that was waiting for the document. A refused write (see REFUSALS) and every read commit nothing.
 */
export class Dispatcher {
  /** @param {Record<string, Handler>} handlers @param {Options} [options] */
  constructor(handlers, options) {
    const opts = options || {};
    this.handlers = handlers;
    /** @type {Set<string>} */
    this.writes = new Set(opts.writes || []);
    this.writes.forEach((m) => {
      if (!Object.prototype.hasOwnProperty.call(handlers, m)) throw new Error("Write method " + m + " has no handler");
    });
    this.commitUndo = opts.commitUndo || (() => undefined);
    this.onProgress = opts.onProgress || (() => undefined);
    /** @type {Map<string, {ctx: CommandContext, cancelHooks: Array<() => void>, abandon: (err: Error) => void}>} */
    this.inFlight = new Map();
    /** Settles when the last write queued so far has finished (or was cancelled). @type {Promise<void>} */
    this.writeTail = Promise.resolve();
  }

  /** @param {string} method */
  isWrite(method) {
    return this.writes.has(method);
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
    const ctx = {
      id: id,
      route: route,
      cancelled: false,
      onCancel: (fn) => cancelHooks.push(fn),
      progress: this.progressReporter(id, route, () => ctx.cancelled),
    };
    /** @type {(err: Error) => void} */
    let abandon = () => undefined;
    const abandoned = new Promise((_, reject) => {
      abandon = reject;
    });
    this.inFlight.set(key, { ctx: ctx, cancelHooks: cancelHooks, abandon: abandon });
    try {
      const work = this.isWrite(method) ? this.write(handler, params, ctx) : handler(params, ctx);
      const result = await Promise.race([work, abandoned]);
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

  /**
   * Runs a write after the writes before it, and commits its undo step when its handler settles (unless refused). A write cancelled
   * while it waits never starts (and commits nothing); one cancelled while it runs lets the next start once it has
   * settled, or after CANCEL_GRACE_MS.
   * @param {Handler} handler @param {any} params @param {CommandContext} ctx
   */
  write(handler, params, ctx) {
    const turn = this.writeTail;
    /** @type {() => void} */
    let finished = () => undefined;
    const mine = new Promise((resolve) => {
      finished = () => resolve(undefined);
    });
    this.writeTail = turn.then(() => mine);
    ctx.onCancel(() => setTimeout(finished, CANCEL_GRACE_MS));
    return turn.then(() => {
      if (ctx.cancelled) {
        finished();
        throw new PluginError("cancelled", "Command " + ctx.id + " was cancelled before it started; nothing changed.");
      }
      /** @param {any} outcome */
      const settle = (outcome) => {
        if (!refused(outcome)) this.commitUndo();
        finished();
      };
      return Promise.resolve()
        .then(() => handler(params, ctx))
        .then(
          (result) => {
            settle(result);
            return result;
          },
          (err) => {
            settle(err);
            throw err;
          },
        );
    });
  }

  /**
   * @param {string} id @param {string} route @param {() => boolean} cancelled
   * @returns {(done: number, total: number, message: string) => Promise<void>}
   */
  progressReporter(id, route, cancelled) {
    let lastDone = 0;
    let lastAt = Date.now();
    return async (done, total, message) => {
      if (cancelled()) throw new PluginError("cancelled", "Command " + id + " was cancelled by the server.");
      if (total < PROGRESS_MIN_TOTAL || done <= lastDone) return;
      const now = Date.now();
      if (done < total && done - lastDone < PROGRESS_EVERY_ITEMS && now - lastAt < PROGRESS_EVERY_MS) return;
      lastDone = done;
      lastAt = now;
      this.onProgress(route, { id: id, progress: done, total: total, message: message });
      // Yield to the editor so the message leaves now and the UI stays responsive during long writes.
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (cancelled()) throw new PluginError("cancelled", "Command " + id + " was cancelled by the server.");
    };
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
