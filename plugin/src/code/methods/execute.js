import { PluginError, badParams } from "../errors.js";
import { toPlain } from "../serialize.js";
import { EXECUTE_DEFAULT_MS, EXECUTE_MAX_MS, MAX_CODE_CHARS } from "../../shared/contract.js";

const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;

/**
 * How many lines the engine puts before the body of a constructed function; measured once, because engines differ.
 * @type {number | null}
 */
let headerLines = null;

function measureHeader() {
  if (headerLines !== null) return headerLines;
  headerLines = 0;
  try {
    new Function("throw new Error('probe')")();
  } catch (err) {
    const pos = stackPosition(/** @type {any} */ (err).stack);
    if (pos) headerLines = pos.line - 1;
  }
  return headerLines;
}

/** @param {unknown} stack @returns {{line: number, column: number} | null} */
function stackPosition(stack) {
  if (typeof stack !== "string") return null;
  const m = /<anonymous>:(\d+):(\d+)/.exec(stack) || /eval[^\n]*?:(\d+):(\d+)/.exec(stack);
  return m ? { line: parseInt(m[1], 10), column: parseInt(m[2], 10) } : null;
}

/**
 * EXECUTE_CODE: runs `code` as the body of an async function with `figma` in scope. The value it returns comes back
 * serialised; a throw comes back with its line. After `timeout` ms (or a CANCEL) the run is abandoned: the sandbox
 * cannot stop running JavaScript, so work already started may still finish, but its result is discarded.
 * @param {any} params @param {import("../dispatch.js").CommandContext} ctx
 */
export async function executeCode(params, ctx) {
  const code = params.code;
  if (typeof code !== "string") throw badParams("Parameter 'code' is required and must be a string of JavaScript.");
  const chars = code.length > MAX_CODE_CHARS ? codePoints(code) : code.length;
  if (chars > MAX_CODE_CHARS) {
    throw badParams("Code is " + chars + " characters; the limit is " + MAX_CODE_CHARS + ". Split it into smaller calls.");
  }
  const given = params.timeout === undefined || params.timeout === null ? EXECUTE_DEFAULT_MS : params.timeout;
  if (typeof given !== "number" || !isFinite(given) || given <= 0) {
    throw badParams("Parameter 'timeout' must be a positive number of milliseconds (at most " + EXECUTE_MAX_MS + ").");
  }
  const timeout = Math.min(given, EXECUTE_MAX_MS);

  const header = measureHeader();
  let fn;
  try {
    fn = new AsyncFunction("figma", code);
  } catch (err) {
    const e = /** @type {any} */ (err);
    throw new PluginError("syntax_error", "The code does not parse: " + e.name + ": " + e.message + ". Fix the syntax and retry.");
  }

  const started = Date.now();
  let timer = 0;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new PluginError(
          "timeout",
          "The code did not finish within " + timeout + " ms and was abandoned (changes it already made stay). " +
            "Raise 'timeout' (at most " + EXECUTE_MAX_MS + " ms) or split the work into smaller calls.",
        ),
      );
    }, timeout);
  });
  ctx.onCancel(() => clearTimeout(timer));
  try {
    const value = await Promise.race([fn.call(undefined, figma), limit]);
    return { success: true, result: toPlain(value), durationMs: Date.now() - started };
  } catch (err) {
    if (err instanceof PluginError) throw err;
    throw runtimeError(err, header);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Characters as designd counts them (code points): a character outside the BMP is two UTF-16 units in `length`.
 * @param {string} text
 */
function codePoints(text) {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xdc00 && unit <= 0xdfff && i > 0) {
      const before = text.charCodeAt(i - 1);
      if (before >= 0xd800 && before <= 0xdbff) count--;
    }
  }
  return count;
}

/** @param {unknown} err @param {number} header */
function runtimeError(err, header) {
  const e = /** @type {any} */ (err);
  const isError = e && typeof e === "object" && typeof e.message === "string";
  const name = isError ? e.name || "Error" : "Thrown value";
  const text = isError ? e.message : JSON.stringify(toPlain(err));
  const pos = isError ? stackPosition(e.stack) : null;
  /** @type {Record<string, unknown>} */
  const extra = {};
  let where = "";
  if (pos && pos.line - header >= 1) {
    extra.line = pos.line - header;
    extra.column = pos.column;
    where = " (line " + extra.line + ", column " + pos.column + ")";
  }
  return new PluginError("execution_error", "The code threw " + name + ": " + text + where + ".", extra);
}
