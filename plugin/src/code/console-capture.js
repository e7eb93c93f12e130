import { toPlain, formatMessage } from "./serialize.js";

const LEVELS = /** @type {const} */ (["log", "info", "warn", "error", "debug"]);
/** More than this many captured calls a second are counted, not sent, so a runaway loop cannot flood designd. */
export const MAX_PER_SECOND = 200;
const MAX_MESSAGE = 10000;
const MAX_ARGS = 20;

/**
 * Wraps console.log/info/warn/error/debug so each call also becomes a CONSOLE_CAPTURE event. Returns the original
 * functions: the plugin's own diagnostics go through them and never reach the buffer.
 * @param {(event: {type: string, data: any}) => void} emit
 * @param {() => number} [now]
 */
export function installConsoleCapture(emit, now) {
  const clock = now || Date.now;
  /** @type {Record<string, (...args: any[]) => void>} */
  const original = {};
  let inside = false;
  let windowStart = 0;
  let sent = 0;
  let dropped = 0;

  /** @param {string} level @param {unknown[]} args */
  function capture(level, args) {
    const t = clock();
    if (t - windowStart >= 1000) {
      if (dropped > 0) {
        emit({
          type: "CONSOLE_CAPTURE",
          data: {
            level: "warn",
            message: dropped + " console messages were dropped: more than " + MAX_PER_SECOND + " a second.",
            args: [],
            timestamp: t,
            source: "design",
          },
        });
      }
      windowStart = t;
      sent = 0;
      dropped = 0;
    }
    if (sent >= MAX_PER_SECOND) {
      dropped++;
      return;
    }
    sent++;
    emit({
      type: "CONSOLE_CAPTURE",
      data: {
        level: level,
        message: formatMessage(args, MAX_MESSAGE),
        args: args.slice(0, MAX_ARGS).map((a) => toPlain(a, { depth: 4, stringLength: 2000, arrayItems: 50, objectKeys: 50 })),
        timestamp: t,
        source: "design",
      },
    });
  }

  LEVELS.forEach((level) => {
    const fn = console[level] || console.log;
    original[level] = fn.bind(console);
    console[level] = function () {
      const args = Array.prototype.slice.call(arguments);
      original[level].apply(null, args);
      // A console call made while serialising (a getter that logs) must not recurse.
      if (inside) return;
      inside = true;
      try {
        capture(level, args);
      } catch (err) {
        original.error("[design bridge] console capture failed:", err);
      } finally {
        inside = false;
      }
    };
  });
  return original;
}
