// A busier design tool: variable writes of the stand-in editor take a set time, as writes in a real file with many
// layers bound to the variables do, so a batch spans several slices of the plugin's pacing (chunks.js).

/** Holds the thread for `ms`, as a synchronous editor call does. @param {number} ms */
export function busy(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/**
 * Makes setValueForMode and remove of one variable take `ms`.
 * @param {any} variable @param {number} ms
 */
export function slowVariable(variable, ms) {
  for (const name of ["setValueForMode", "remove"]) {
    const original = variable[name];
    variable[name] = function (/** @type {any[]} */ ...args) {
      busy(ms);
      return original.apply(this, args);
    };
  }
  return variable;
}

/**
 * From now on, creating a variable takes `ms`, and so do setValueForMode and remove of the variables made.
 * @param {any} p a plugin from loadPlugin @param {number} ms
 */
export function slowVariableWrites(p, ms) {
  const create = p.figma.variables.createVariable;
  p.figma.variables.createVariable = (/** @type {any[]} */ ...args) => {
    busy(ms);
    return slowVariable(create(...args), ms);
  };
}
