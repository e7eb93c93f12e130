/**
 * The grid a component set's variants are laid out in: one column per value of the column property, one row per
 * combination of the other properties' values that has variants. Pure: sizes in, positions out.
 */

/** A property named like these makes the columns when the caller names none. */
const COLUMN_AXIS = /^(state|status|interaction)$/i;

/**
 * @typedef {{id: string, width: number, height: number, props: Record<string, string>}} GridVariant
 * @typedef {{columnProperty: string | null, rowProperties: string[], columns: string[], rows: string[],
 *            colX: number[], colW: number[], rowY: number[], rowH: number[], width: number, height: number,
 *            positions: Record<string, {x: number, y: number}>}} Grid
 */

/** The variant properties in the order they first appear. @param {GridVariant[]} variants */
export function variantAxes(variants) {
  /** @type {Record<string, string[]>} */
  const values = {};
  /** @type {string[]} */
  const order = [];
  variants.forEach((v) => {
    Object.keys(v.props).forEach((axis) => {
      if (!values[axis]) {
        values[axis] = [];
        order.push(axis);
      }
      if (values[axis].indexOf(v.props[axis]) < 0) values[axis].push(v.props[axis]);
    });
  });
  return { order: order, values: values };
}

/**
 * The property that makes the columns by default: a state-like one, else the one with the most values.
 * @param {{order: string[], values: Record<string, string[]>}} axes
 */
export function defaultColumnProperty(axes) {
  const state = axes.order.find((a) => COLUMN_AXIS.test(a));
  if (state) return state;
  let best = null;
  for (const a of axes.order) if (best === null || axes.values[a].length > axes.values[best].length) best = a;
  return best;
}

/**
 * @param {GridVariant[]} variants
 * @param {{columnProperty: string | null, gap: number, padding: number}} options padding: between the set's edge
 *   and the grid; gap: between columns, rows, and variants that share a cell
 * @returns {Grid}
 */
export function variantGrid(variants, options) {
  const axes = variantAxes(variants);
  const column = options.columnProperty;
  const rowAxes = axes.order.filter((a) => a !== column);
  const columns = column ? axes.values[column] : [""];
  const value = (/** @type {GridVariant} */ v, /** @type {string} */ axis) => (axis in v.props ? v.props[axis] : "");
  const rowKey = (/** @type {GridVariant} */ v) => rowAxes.map((a) => value(v, a)).join("\u0000");

  // Rows in the order of the properties' values, keeping only combinations that have variants.
  /** @type {string[][]} */
  let combos = [[]];
  rowAxes.forEach((a) => {
    /** @type {string[][]} */
    const next = [];
    const vals = axes.values[a].concat(variants.some((v) => !(a in v.props)) ? [""] : []);
    combos.forEach((prefix) => vals.forEach((x) => next.push(prefix.concat([x]))));
    combos = next;
  });
  const present = new Set(variants.map(rowKey));
  const rowKeys = combos.map((c) => c.join("\u0000")).filter((k) => present.has(k));
  const rows = combos.filter((c) => present.has(c.join("\u0000"))).map((c) => c.join(" / "));

  /** @type {Map<string, GridVariant[]>} */
  const cells = new Map();
  variants.forEach((v) => {
    const key = rowKeys.indexOf(rowKey(v)) + ":" + (column ? columns.indexOf(value(v, column)) : 0);
    const list = cells.get(key) || [];
    list.push(v);
    cells.set(key, list);
  });
  const colW = columns.map(() => 0);
  const rowH = rowKeys.map(() => 0);
  cells.forEach((list, key) => {
    const [r, c] = key.split(":").map(Number);
    colW[c] = Math.max(colW[c], ...list.map((v) => v.width));
    rowH[r] = Math.max(rowH[r], list.reduce((sum, v) => sum + v.height, 0) + options.gap * (list.length - 1));
  });
  const colX = offsets(colW, options.padding, options.gap);
  const rowY = offsets(rowH, options.padding, options.gap);
  /** @type {Record<string, {x: number, y: number}>} */
  const positions = {};
  cells.forEach((list, key) => {
    const [r, c] = key.split(":").map(Number);
    let y = rowY[r];
    list.forEach((v) => {
      positions[v.id] = { x: colX[c], y: y };
      y += v.height + options.gap;
    });
  });
  return {
    columnProperty: column,
    rowProperties: rowAxes,
    columns: columns,
    rows: rows,
    colX: colX,
    colW: colW,
    rowY: rowY,
    rowH: rowH,
    width: span(colW, options.padding, options.gap),
    height: span(rowH, options.padding, options.gap),
    positions: positions,
  };
}

/** @param {number[]} sizes @param {number} padding @param {number} gap */
function offsets(sizes, padding, gap) {
  const out = [];
  let at = padding;
  for (const s of sizes) {
    out.push(at);
    at += s + gap;
  }
  return out;
}

/** @param {number[]} sizes @param {number} padding @param {number} gap */
function span(sizes, padding, gap) {
  return padding * 2 + sizes.reduce((a, b) => a + b, 0) + gap * Math.max(0, sizes.length - 1);
}
