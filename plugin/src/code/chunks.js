import { PluginError } from "./errors.js";

/**
 * The longest stretch, in milliseconds, a long write works before it lets the editor run. The design tool's main
 * thread is the plugin's: while a batch holds it, nothing on the canvas moves. Yielding costs about a millisecond
 * (a timer turn), so slices of this length keep the cost of yielding to a few percent of the work.
 */
export const SLICE_MS = 30;

/**
 * When the plugin last got the thread back from the editor through yieldToEditor. The thread is one for all
 * commands, so every long command measures its stretch from here: a check phase and the write phase after it, or a
 * command that starts while another has just worked, never add up to more than one slice.
 */
let resumedAt = Date.now();

/** Lets the editor run: the rest of the command continues on a later turn of its event loop. */
export async function yieldToEditor() {
  await new Promise((resolve) => setTimeout(resolve, 0));
  resumedAt = Date.now();
}

/** True once the plugin has held the thread for a slice since it last let the editor run. */
function sliceUsed() {
  return Date.now() - resumedAt >= SLICE_MS;
}

/**
 * Paces a long command over its items: it runs items back to back for SLICE_MS, then reports progress, yields to
 * the editor and checks for a cancel, so a batch of any size neither freezes the design tool nor outlives a cancel
 * by more than one slice. A cancel throws PluginError "cancelled" out of `step` or `check`; the caller rolls back.
 *
 * @typedef {import("./dispatch.js").CommandContext} CommandContext
 */
export class Pacer {
  /** @param {CommandContext} ctx @param {number} total the items `step` will count */
  constructor(ctx, total) {
    this.ctx = ctx;
    this.total = total;
    this.done = 0;
    /** Slices so far: the number of times the command gave the editor back its thread. */
    this.slices = 0;
  }

  /**
   * Counts one item done; at the end of a slice reports progress with `message(done, total)` and yields.
   * @param {(done: number, total: number) => string} message
   */
  async step(message) {
    this.done++;
    if (this.done < this.total && !sliceUsed()) return;
    await this.ctx.progress(this.done, this.total, message(this.done, this.total));
    await this.pause();
  }

  /** For work that is not counted (checking the items before any change): yields at the end of a slice. */
  async check() {
    if (sliceUsed()) await this.pause();
  }

  async pause() {
    await yieldToEditor();
    this.slices++;
    if (this.ctx.cancelled) throw new PluginError("cancelled", "Command " + this.ctx.id + " was cancelled by the server.");
  }
}
