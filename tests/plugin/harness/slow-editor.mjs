// A busier design tool: every variable write of the stand-in editor takes a set time, as writes in a real file with
// many layers bound to the variables do, so a batch spans several slices of the plugin's pacing (chunks.js).

/** Holds the thread for `ms`, as a synchronous editor call does. @param {number} ms */
export function busy(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/**
 * From now on, creating a variable and each setValueForMode of it take `ms`.
 * @param {any} p a plugin from loadPlugin @param {number} ms
 */
export function slowVariableWrites(p, ms) {
  const create = p.figma.variables.createVariable;
  p.figma.variables.createVariable = (/** @type {any[]} */ ...args) => {
    busy(ms);
    const v = create(...args);
    const set = v.setValueForMode;
    v.setValueForMode = function (/** @type {any[]} */ ...a) {
      busy(ms);
      return set.apply(this, a);
    };
    return v;
  };
}
