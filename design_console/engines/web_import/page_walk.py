"""The script that reads a laid-out page in the browser: one evaluation that walks the DOM and returns a compact list.

Each entry is an element box or a text, in document order, with its parent entry's index, its box in page
coordinates (CSS px, scrolled to the top) and the computed styles :mod:`.convert` needs.

- A block whose content is only text and plain inline elements (``by <a>Mark</a>``, ``$0<small>/mo</small>``) is one
  text entry with styled runs, boxed where the page sets it; its ``::before``/``::after`` text and a list item's
  marker are runs of it too.
- Images and CSS background layers are read in the page, so nothing is fetched twice and the page's own cookies
  apply. PNG, JPEG and GIF travel as they are; an SVG ``<img>`` travels as SVG markup (a vector in the design); any
  other image the browser can show (WebP, AVIF, an SVG background…) is drawn in the page at twice its laid-out size
  and travels as PNG. An image of a ``file:`` page is named (``{"file": url}``) for the caller to read. One that
  cannot be read or is too large is left out with a warning naming its element.
- A transformed element is read in its own untransformed space (its transform switched off while its subtree is
  read) and carries its transform, so the design can rotate the layer as a whole.

The walk stops once it has read ``opts.limit`` entries and says so (with the page's element count), so a huge page
costs one bounded answer.
"""

from __future__ import annotations

from typing import Any

#: Called as ``(PAGE_WALK)({limit, maxImageBytes})``; resolves to
#: ``{width, height, title, entries, styles, truncated, elements, warnings}``; :func:`expand_styles` puts the shared
#: styles back into the entries.
PAGE_WALK = r"""
(async (opts) => {
  const MEDIA = new Set(["video", "audio", "canvas", "iframe", "object", "embed"]);
  const SKIP = new Set(["SCRIPT", "STYLE", "HEAD", "META", "LINK", "TITLE", "NOSCRIPT", "TEMPLATE", "BASE"]);
  // Elements that are never a plain run of a paragraph: replaced content or form controls.
  const NOT_INLINE = new Set(["IMG", "SVG", "svg", "INPUT", "TEXTAREA", "SELECT", "BUTTON", "CANVAS", "VIDEO",
    "IFRAME", "OBJECT", "EMBED", "PICTURE"]);
  // Images above this scale are drawn at their laid-out size times this, so they stay sharp in the design tool.
  const RASTER_SCALE = Math.max(2, window.devicePixelRatio || 1);
  const entries = [];
  const warnings = [];
  const images = new Map();
  // Computed styles repeat from box to box: each is sent once, and entries name it by its index.
  const styles = [];
  const styleIds = new Map();
  const intern = (style) => {
    const key = JSON.stringify(style);
    if (!styleIds.has(key)) {
      styleIds.set(key, styles.length);
      styles.push(style);
    }
    return styleIds.get(key);
  };
  // The pseudo-elements drawn as boxes of their own, by element.
  const carried = new WeakMap();
  let truncated = false;
  // What the design cannot show, counted for the warnings.
  const lost = { pseudo: 0, counters: 0, media: new Set() };
  const sx = window.scrollX, sy = window.scrollY;
  const box = (r) => ({ x: r.left + sx, y: r.top + sy, w: r.width, h: r.height });
  const num = (v) => parseFloat(v) || 0;
  const measure = document.createElement("canvas").getContext("2d");

  /** A CSS selector path naming an element for a warning, as a developer would find it. */
  function pathOf(el) {
    const parts = [];
    for (let n = el; n && n.nodeType === 1 && n !== document.documentElement; n = n.parentElement) {
      let part = n.tagName.toLowerCase();
      if (n.id) { parts.unshift(part + "#" + n.id); break; }
      if (n.classList.length) part += "." + [...n.classList].slice(0, 2).join(".");
      const same = n.parentElement ? [...n.parentElement.children].filter((c) => c.tagName === n.tagName) : [];
      if (same.length > 1) part += ":nth-of-type(" + (same.indexOf(n) + 1) + ")";
      parts.unshift(part);
    }
    return parts.join(" > ") || "html";
  }

  function kindOf(bytes) {
    if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return "png";
    if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
    if (bytes[0] === 0x47 && bytes[1] === 0x49 && bytes[2] === 0x46) return "gif";
    const head = new TextDecoder().decode(bytes.slice(0, 512)).trimStart().toLowerCase();
    if (head.startsWith("<svg") || (head.startsWith("<?xml") || head.startsWith("<!--")) && head.includes("<svg")) {
      return "svg";
    }
    return "other";
  }

  const base64Of = (blob) => new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] || "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });

  /**
   * The image drawn by the browser as PNG bytes (base64): at `size` ({w, h} CSS px, or fitted into {box, mode}
   * as background-size contain/cover does) times `scale`, else at its natural size.
   */
  async function rasterise(blob, size, scale) {
    const url = URL.createObjectURL(blob);
    try {
      const img = new Image();
      img.src = url;
      await img.decode();
      const nw = img.naturalWidth || 300, nh = img.naturalHeight || 150;
      let w = nw, h = nh;
      if (size && size.box) {
        const fit = (size.mode === "cover" ? Math.max : Math.min)(size.box[0] / nw, size.box[1] / nh);
        w = nw * fit * scale;
        h = nh * fit * scale;
      } else if (size) {
        w = size.w * scale;
        h = size.h * scale;
      }
      const canvas = document.createElement("canvas");
      canvas.width = Math.max(1, Math.round(w));
      canvas.height = Math.max(1, Math.round(h));
      canvas.getContext("2d").drawImage(img, 0, 0, canvas.width, canvas.height);
      const png = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
      if (!png) throw new Error("the browser could not draw it as PNG");
      return await base64Of(png);
    } finally {
      URL.revokeObjectURL(url);
    }
  }

  /**
   * An image as the design takes it: {data} (base64 PNG/JPEG/GIF), {svg} (markup, when `vector` allows it) or
   * {file} (for the caller to read); null, with a warning naming `el`, when it cannot be carried. `size` is how
   * large it is shown (see rasterise), for drawing an SVG sharp.
   */
  async function imageData(url, el, size, vector) {
    if (!url) return null;
    if (url.startsWith("file:")) return { file: url };
    const key = url + " " + JSON.stringify(size) + (vector ? " v" : "");
    if (images.has(key)) return images.get(key);
    let found = null;
    const name = () => "image of " + pathOf(el) + " (" + url.slice(0, 100) + ")";
    try {
      const res = await fetch(url);
      if (!res.ok) throw new Error("it answered " + res.status);
      const blob = await res.blob();
      if (blob.size > opts.maxImageBytes) {
        warnings.push(name() + " is " + blob.size + " bytes, over the " + opts.maxImageBytes
          + " a layer takes: left out");
      } else {
        const kind = kindOf(new Uint8Array(await blob.slice(0, 512).arrayBuffer()));
        if (kind === "svg" && vector) found = { svg: await blob.text() };
        else if (kind === "svg") found = { data: await rasterise(blob, size, RASTER_SCALE) };
        else if (kind === "other") found = { data: await rasterise(blob, null, 1) };
        else found = { data: await base64Of(blob) };
      }
    } catch (e) {
      warnings.push(name() + " could not be read: " + ((e && e.message) || e) + "; left out");
    }
    images.set(key, found);
    return found;
  }

  /** The parts of a comma-separated CSS value that are not inside parentheses or quotes. */
  function splitTop(text) {
    const parts = [];
    let depth = 0, quote = "", start = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (quote) {
        if (ch === "\\") i++;
        else if (ch === quote) quote = "";
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === "(") depth++;
      else if (ch === ")") depth--;
      else if (ch === "," && depth === 0) { parts.push(text.slice(start, i).trim()); start = i + 1; }
    }
    parts.push(text.slice(start).trim());
    return parts.filter(Boolean);
  }

  const urlIn = (text) => {
    const m = /url\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^)]*))\s*\)/.exec(text);
    if (!m) return null;
    const raw = (m[1] !== undefined ? m[1] : m[2] !== undefined ? m[2] : m[3]).replace(/\\(.)/g, "$1");
    return new URL(raw.trim(), document.baseURI).href;
  };

  /** The candidate of an image-set() with the highest resolution, which draws sharpest in the design. */
  function imageSetUrl(layer) {
    const inner = layer.slice(layer.indexOf("(") + 1, layer.lastIndexOf(")"));
    let best = null, bestRes = -1;
    for (const candidate of splitTop(inner)) {
      const quoted = /^["']/.test(candidate) ? "url(" + candidate.split(/\s+/)[0] + ")" : "";
      const url = urlIn(candidate) || (quoted ? urlIn(quoted) : null);
      const res = /\s([\d.]+)(x|dppx)\s*$/.exec(candidate);
      const value = res ? parseFloat(res[1]) : 1;
      if (url && value > bestRes) { best = url; bestRes = value; }
    }
    return best;
  }

  /** A background-size as {w, h} CSS px, or {box, mode} for contain/cover/auto, for drawing its image. */
  function layerSize(size, w, h) {
    const parts = size.split(/\s+/);
    if (parts.every((p) => /px$/.test(p))) return { w: num(parts[0]), h: num(parts[1] || parts[0]) };
    return { box: [w, h], mode: parts[0] === "cover" ? "cover" : "contain" };
  }

  /** Each background layer, top first: {gradient: css} or {image} (as imageData returns it), with its size,
   * position and repeat as computed. */
  async function backgrounds(el, cs, w, h) {
    if (!cs.backgroundImage || cs.backgroundImage === "none") return [];
    const sizes = splitTop(cs.backgroundSize);
    const positions = splitTop(cs.backgroundPosition);
    const repeats = splitTop(cs.backgroundRepeat);
    const layers = [];
    const list = splitTop(cs.backgroundImage);
    for (let i = 0; i < list.length; i++) {
      const layer = list[i];
      const at = { size: sizes[i % sizes.length] || "auto", position: positions[i % positions.length] || "0% 0%",
        repeat: repeats[i % repeats.length] || "repeat" };
      const drawn = layerSize(at.size, w, h);
      let url = null;
      if (/^(-webkit-)?(repeating-)?(linear|radial|conic)-gradient\(/.test(layer)) {
        layers.push({ gradient: layer, ...at });
        continue;
      }
      if (/^(-webkit-)?image-set\(/.test(layer)) url = imageSetUrl(layer);
      else if (layer.startsWith("url(")) url = urlIn(layer);
      if (url) {
        const found = await imageData(url, el, drawn, false);
        if (found) layers.push({ image: found.data || found, ...at });
      } else warnings.push("background " + layer.slice(0, 60) + " of " + pathOf(el) + " is not carried");
    }
    return layers;
  }

  function textStyle(cs) {
    return {
      fontFamily: cs.fontFamily, fontSize: num(cs.fontSize), fontWeight: cs.fontWeight, fontStyle: cs.fontStyle,
      lineHeight: cs.lineHeight, letterSpacing: cs.letterSpacing, textAlign: cs.textAlign,
      textTransform: cs.textTransform, textDecoration: cs.textDecorationLine, color: cs.color,
      whiteSpace: cs.whiteSpace,
    };
  }

  /**
   * A selector matching every element the page's rules may give ::before/::after content ("" for none), read once
   * from its style sheets: asking each element for its pseudo-elements' style is most of a long page's walk. null
   * when some rules cannot be read (another origin's sheet, nested rules): then every element is asked.
   */
  const pseudoSelector = (() => {
    const bases = [];
    let unknown = false;
    const scan = (rules) => {
      for (const rule of rules) {
        if (!(rule instanceof CSSStyleRule)) {
          if (rule.cssRules) scan(rule.cssRules);
          continue;
        }
        if (rule.cssRules && rule.cssRules.length) unknown = true;
        if (!rule.style.getPropertyValue("content")) continue;
        for (const part of splitTop(rule.selectorText)) {
          if (/::?(before|after)\b/i.test(part)) bases.push(part.replace(/::?(before|after)\b/gi, "").trim() || "*");
        }
      }
    };
    for (const sheet of document.styleSheets) {
      try { scan(sheet.cssRules); } catch (e) { unknown = true; }
    }
    if (unknown) return null;
    const valid = bases.filter((b) => {
      try { document.documentElement.matches(b); return true; } catch (e) { return false; }
    });
    return valid.length < bases.length ? null : valid.join(", ");
  })();
  const mayHavePseudo = (el) => pseudoSelector === null || (pseudoSelector !== "" && el.matches(pseudoSelector));

  /** The text a pseudo-element adds, when it is a plain quoted string shown inline; counters are counted as lost. */
  function pseudoText(el, which) {
    if (!mayHavePseudo(el) || (carried.has(el) && carried.get(el).has(which))) return null;
    const pcs = getComputedStyle(el, which);
    const content = pcs.content;
    if (!content || content === "none" || content === "normal" || content === '""') return null;
    const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(content);
    if (!quoted || (pcs.display !== "inline" && pcs.display !== "inline-block") || pcs.position === "absolute") {
      if (/counter/.test(content)) lost.counters += 1;
      else lost.pseudo += 1;
      return null;
    }
    const text = quoted[1].replace(/\\(.)/g, "$1");
    return text.trim() ? { t: text, cs: pcs } : null;
  }

  const ROMAN = [[1000, "m"], [900, "cm"], [500, "d"], [400, "cd"], [100, "c"], [90, "xc"], [50, "l"], [40, "xl"],
    [10, "x"], [9, "ix"], [5, "v"], [4, "iv"], [1, "i"]];
  const roman = (n) => ROMAN.reduce((out, [v, s]) => { while (n >= v) { out += s; n -= v; } return out; }, "");
  const alpha = (n) => {
    let s = "";
    for (; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(97 + (n - 1) % 26) + s;
    return s;
  };

  /** The marker text of a list item ("•", "3.", "iv."), or null when it has none or one the design cannot show. */
  function markerOf(el, cs) {
    if (cs.display !== "list-item" || cs.listStyleType === "none" || cs.listStyleImage !== "none") return null;
    const list = el.parentElement;
    const items = list ? [...list.children].filter((c) => c.tagName === "LI") : [el];
    const start = list && list.tagName === "OL" ? (list.start || 1) : 1;
    const n = el.value && el.hasAttribute("value") ? el.value : start + items.indexOf(el);
    const type = cs.listStyleType;
    const marker = { disc: "\u2022", circle: "\u25e6", square: "\u25aa", decimal: n + ".",
      "decimal-leading-zero": (n < 10 ? "0" : "") + n + ".", "lower-roman": roman(n) + ".",
      "upper-roman": roman(n).toUpperCase() + ".", "lower-alpha": alpha(n) + ".", "lower-latin": alpha(n) + ".",
      "upper-alpha": alpha(n).toUpperCase() + ".", "upper-latin": alpha(n).toUpperCase() + "." }[type];
    if (marker) return marker;
    if (/^".*"$/.test(type)) return type.slice(1, -1);
    lost.counters += 1;
    return null;
  }

  const fontOf = (cs) => cs.fontStyle + " " + cs.fontWeight + " " + cs.fontSize + " " + cs.fontFamily;
  const widthOf = (text, cs) => { measure.font = fontOf(cs); return measure.measureText(text).width; };

  /**
   * Whether `el`'s content can be one text layer: text and inline elements that draw nothing of their own
   * (no background, border, shadow, padding or transform), down to the leaves.
   */
  function plainInline(el) {
    for (const child of el.childNodes) {
      if (child.nodeType !== 1) continue;
      if (NOT_INLINE.has(child.tagName) || SKIP.has(child.tagName)) return false;
      const cs = getComputedStyle(child);
      if (cs.display === "none") continue;
      if (cs.display !== "inline" || cs.position !== "static" && cs.position !== "relative") return false;
      if (cs.backgroundImage !== "none" || !/rgba\(0, 0, 0, 0\)|transparent/.test(cs.backgroundColor)) return false;
      const sides = ["Top", "Right", "Bottom", "Left"];
      if (sides.some((side) => num(cs["border" + side + "Width"]))) return false;
      if (cs.boxShadow !== "none" || num(cs.opacity) < 1 || cs.transform !== "none") return false;
      if (num(cs.paddingLeft) || num(cs.paddingRight) || num(cs.marginLeft) || num(cs.marginRight)) return false;
      if (cs.visibility === "hidden" || !plainInline(child)) return false;
    }
    return true;
  }

  /** The runs of a plain inline block: {t, style, href} with white space collapsed as the page shows it. */
  function runsOf(el, cs) {
    const runs = [];
    const rects = [];
    const walk = (node, ncs, href) => {
      for (const child of node.childNodes) {
        if (child.nodeType === 3) {
          const pre = /^(pre|pre-wrap|break-spaces)$/.test(ncs.whiteSpace);
          const t = pre ? child.data : child.data.replace(/[\t\n\r ]+/g, " ");
          if (!t) continue;
          const range = document.createRange();
          range.selectNodeContents(child);
          const found = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
          if (!found.length && !pre) continue;
          rects.push(...found);
          runs.push({ t: t, cs: ncs, href: href, pre: pre });
        } else if (child.nodeType === 1) {
          const ccs = getComputedStyle(child);
          if (ccs.display === "none") continue;
          if (child.tagName === "BR") { runs.push({ t: "\n", cs: ncs, href: href, pre: true }); continue; }
          const before = pseudoText(child, "::before");
          if (before) runs.push({ t: before.t, cs: before.cs, href: href });
          walk(child, ccs, child.tagName === "A" && child.href ? child.href : href);
          const after = pseudoText(child, "::after");
          if (after) runs.push({ t: after.t, cs: after.cs, href: href });
        }
      }
    };
    walk(el, cs, null);
    // White space collapses across runs as it does on the page: no run starts with a space after one that ends
    // with a space (or a line break), and the block's first and last spaces go.
    let prevSpace = true;
    for (const run of runs) {
      if (!run.pre && prevSpace) run.t = run.t.replace(/^ +/, "");
      if (run.t) prevSpace = run.pre ? /\n$/.test(run.t) : / $/.test(run.t);
    }
    for (let i = runs.length - 1; i >= 0; i--) {
      if (!runs[i].pre) runs[i].t = runs[i].t.replace(/ +$/, "");
      if (runs[i].t) break;
    }
    return { runs: runs.filter((r) => r.t), rects: rects };
  }

  /**
   * The lines of a text: rects that share most of their height are on one line (runs of different sizes share a
   * line); glyph boxes taller than a tight line-height overlap the next line's a little, and start a line of their own.
   */
  function lineCount(rects) {
    const sorted = [...rects].sort((a, b) => a.top - b.top);
    let lines = 0, top = Infinity, bottom = -Infinity;
    for (const r of sorted) {
      const shared = Math.min(bottom, r.bottom) - Math.max(top, r.top);
      if (lines && shared >= 0.5 * Math.min(r.height, bottom - top)) {
        top = Math.min(top, r.top);
        bottom = Math.max(bottom, r.bottom);
      } else {
        lines += 1;
        top = r.top;
        bottom = r.bottom;
      }
    }
    return lines;
  }

  /** One text entry for the plain inline content of `el` (its runs, marker and pseudo text), or nothing. */
  function addTextBlock(el, parent, cs) {
    const { runs, rects } = runsOf(el, cs);
    if (!rects.length) return false;
    const before = pseudoText(el, "::before");
    const after = pseudoText(el, "::after");
    const marker = markerOf(el, cs);
    let left = Math.min(...rects.map((r) => r.left));
    const top = Math.min(...rects.map((r) => r.top));
    let right = Math.max(...rects.map((r) => r.right));
    const bottom = Math.max(...rects.map((r) => r.bottom));
    if (before) { runs.unshift({ t: before.t, cs: before.cs }); left -= widthOf(before.t, before.cs); }
    if (after) { runs.push({ t: after.t, cs: after.cs }); right += widthOf(after.t, after.cs); }
    const text = runs.map((r) => r.t).join("");
    if (!text.trim()) return false;
    const first = rects.filter((r) => r.top < rects[0].bottom);
    const entry = { k: "text", p: parent, text: text, lines: lineCount(rects),
      lineBox: Math.max(...first.map((r) => r.height)), x: left + sx, y: top + sy, w: right - left, h: bottom - top,
      st: intern(textStyle(cs)) };
    const styled = runs.some((r) => r.cs !== cs || r.href);
    if (styled) {
      let at = 0;
      entry.runs = runs.map((r) => {
        const run = { start: at, end: at + r.t.length };
        at = run.end;
        if (r.cs !== cs) run.st = intern(textStyle(r.cs));
        if (r.href) run.href = r.href;
        return run;
      });
    }
    entries.push(entry);
    if (marker && cs.listStylePosition === "outside") {
      addMarker(el, marker, parent, left, Math.min(...first.map((r) => r.top)), entry.lineBox);
    } else if (marker) {
      entry.text = marker + " " + entry.text;
      if (entry.runs) entry.runs.forEach((r) => { r.start += marker.length + 1; r.end += marker.length + 1; });
      entry.x -= widthOf(marker + " ", cs);
    }
    return true;
  }

  /** A list item's marker as a text of its own, ending a space before `left` on the line whose top is `top`. */
  function addMarker(el, marker, parent, left, top, lineBox) {
    const mcs = getComputedStyle(el, "::marker");
    const gap = widthOf(" ", mcs);
    const mw = widthOf(marker, mcs);
    entries.push({ k: "text", p: parent, text: marker, lines: 1, lineBox: lineBox, marker: true,
      x: left + sx - gap - mw, y: top + sy, w: mw, h: lineBox, st: intern(textStyle(mcs)) });
  }

  function addText(node, parent, cs) {
    const pre = /^(pre|pre-wrap|break-spaces)$/.test(cs.whiteSpace);
    let text = node.data;
    if (!pre) text = text.replace(/[\t\n\r ]+/g, " ").trim();
    if (!text) return;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (!rects.length) return;
    entries.push({ k: "text", p: parent, text: text, lines: lineCount(rects), lineBox: rects[0].height,
      ...box(range.getBoundingClientRect()), st: intern(textStyle(cs)) });
  }

  /**
   * The element's transform as {m: [a, b, c, d, e, f], origin: [x, y]} (the origin in page coordinates), or
   * {unsupported} for a 3D one.
   */
  function transformOf(transform, cs, r) {
    const origin = cs.transformOrigin.split(" ").map(num);
    const at = [r.left + sx + origin[0], r.top + sy + origin[1]];
    const flat = /^matrix\(([^)]*)\)$/.exec(transform);
    if (flat) return { m: flat[1].split(",").map(Number), origin: at };
    // A 3D matrix that moves nothing in depth (translate3d(0, 0, 0) and the like) is a flat one.
    const deep = /^matrix3d\(([^)]*)\)$/.exec(transform);
    const v = deep ? deep[1].split(",").map(Number) : [];
    const flatInDepth = [2, 3, 6, 7, 8, 9, 11, 14].every((i) => Math.abs(v[i]) < 1e-6)
      && Math.abs(v[10] - 1) < 1e-6 && Math.abs(v[15] - 1) < 1e-6;
    if (deep && flatInDepth) return { m: [v[0], v[1], v[4], v[5], v[12], v[13]], origin: at };
    return { unsupported: transform.slice(0, 60) };
  }

  /** The fields of a box entry that its computed style gives (an element's, or a painted pseudo-element's). */
  function boxStyle(cs) {
    const e = {
      display: cs.display, position: cs.position, z: cs.zIndex === "auto" ? null : num(cs.zIndex),
      visibility: cs.visibility, opacity: num(cs.opacity),
      overflow: cs.overflowX === "visible" && cs.overflowY === "visible" ? "visible" : "clip",
      bg: cs.backgroundColor,
      border: ["Top", "Right", "Bottom", "Left"].map((s) => ({
        w: num(cs["border" + s + "Width"]), c: cs["border" + s + "Color"], s: cs["border" + s + "Style"] })),
      radius: ["TopLeft", "TopRight", "BottomRight", "BottomLeft"].map((s) => cs["border" + s + "Radius"]),
      shadow: cs.boxShadow,
      padding: ["Top", "Right", "Bottom", "Left"].map((s) => num(cs["padding" + s])),
      flexDirection: cs.flexDirection, flexWrap: cs.flexWrap,
      gap: [num(cs.rowGap), num(cs.columnGap)],
    };
    if (cs.mixBlendMode !== "normal") e.blend = cs.mixBlendMode;
    if (cs.filter !== "none") e.filter = cs.filter;
    if (cs.backdropFilter && cs.backdropFilter !== "none") e.backdrop = cs.backdropFilter;
    return e;
  }

  const nameOf = (el) => el.tagName.toLowerCase()
    + (el.id ? "#" + el.id : el.classList.length ? "." + el.classList[0] : "");

  /**
   * A ::before/::after that paints a box of its own (an overlay, a decoration), placed absolutely in its
   * positioned element: an entry of its own, so the design shows it.
   */
  async function pseudoBox(el, cs, r, which, parent) {
    if (cs.position === "static" || !mayHavePseudo(el)) return;
    const pcs = getComputedStyle(el, which);
    if (!pcs.content || pcs.content === "none" || pcs.content === "normal") return;
    if (pcs.position !== "absolute" || pcs.display === "none" || pcs.visibility === "hidden") return;
    const bordered = ["Top", "Right", "Bottom", "Left"].some((s) => num(pcs["border" + s + "Width"])
      && pcs["border" + s + "Style"] !== "none");
    const painted = pcs.backgroundImage !== "none" || !/^rgba\(0, 0, 0, 0\)$/.test(pcs.backgroundColor)
      || bordered || pcs.boxShadow !== "none";
    const w = num(pcs.width), h = num(pcs.height);
    if (!painted || !(w > 0 && h > 0)) return;
    const e = { k: "el", p: parent, tag: which, name: nameOf(el) + which,
      x: r.left + sx + num(cs.borderLeftWidth) + num(pcs.left), y: r.top + sy + num(cs.borderTopWidth) + num(pcs.top),
      w: w, h: h, s: intern(boxStyle(pcs)) };
    const layers = await backgrounds(el, pcs, w, h);
    if (layers.length) e.backgrounds = layers;
    if (!carried.has(el)) carried.set(el, new Set());
    carried.get(el).add(which);
    entries.push(e);
  }

  async function visit(el, parent) {
    if (entries.length >= opts.limit) { truncated = true; return; }
    if (SKIP.has(el.tagName.toUpperCase())) return;
    const cs = getComputedStyle(el);
    if (cs.display === "none") return;
    // A transformed subtree is read untransformed (its boxes in its own space), and the transform carried.
    let restore = null;
    if (cs.transform && cs.transform !== "none" && el.style) {
      const saved = [el.style.getPropertyValue("transform"), el.style.getPropertyPriority("transform"),
        el.style.getPropertyValue("transition"), el.style.getPropertyPriority("transition")];
      const transform = cs.transform;
      el.style.setProperty("transition", "none", "important");
      el.style.setProperty("transform", "none", "important");
      restore = { saved: saved, transform: transform };
    }
    const r = el.getBoundingClientRect();
    const tag = el.tagName.toLowerCase();
    const e = { k: "el", p: parent, tag: tag, ...box(r), name: nameOf(el), s: intern(boxStyle(cs)) };
    // The component of the team's library the element renders, when the app says so.
    if (el.hasAttribute("data-component")) e.component = el.getAttribute("data-component");
    if (restore) e.transform = transformOf(restore.transform, cs, r);
    const index = entries.length;
    entries.push(e);
    try {
      await pseudoBox(el, cs, r, "::before", index);
      await visitContent(el, cs, e, r, index);
      await pseudoBox(el, cs, r, "::after", index);
    } finally {
      if (restore) {
        const [tv, tp, trv, trp] = restore.saved;
        el.style.setProperty("transform", tv, tp);
        el.style.setProperty("transition", trv, trp);
        if (!tv) el.style.removeProperty("transform");
        if (!trv) el.style.removeProperty("transition");
      }
    }
  }

  /** SVG markup drawn at `w` × `h` as the page shows it (object-fit fill stretches it); null if it does not parse. */
  function sizedSvg(markup, w, h, fit) {
    const doc = new DOMParser().parseFromString(markup, "image/svg+xml");
    const svg = doc.documentElement;
    if (!svg || svg.tagName !== "svg" || doc.getElementsByTagName("parsererror").length) return null;
    svg.setAttribute("width", String(w));
    svg.setAttribute("height", String(h));
    if (fit === "fill") svg.setAttribute("preserveAspectRatio", "none");
    return new XMLSerializer().serializeToString(svg);
  }

  async function visitContent(el, cs, e, r, index) {
    const tag = e.tag;
    if (tag === "canvas" || tag === "video" || tag === "iframe") lost.media.add(tag);
    // What a media element holds (its sources, its fallback) is not drawn as boxes.
    if (MEDIA.has(tag)) return;
    if (tag === "svg") {
      const copy = el.cloneNode(true);
      copy.setAttribute("width", String(r.width));
      copy.setAttribute("height", String(r.height));
      if (!copy.getAttribute("xmlns")) copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
      e.svg = new XMLSerializer().serializeToString(copy).replace(/currentColor/gi, cs.color);
      return;
    }
    if (tag === "img") {
      e.alt = el.alt || "";
      e.fit = cs.objectFit;
      const shown = el.currentSrc || el.src;
      const size = { w: r.width, h: r.height };
      const found = await imageData(shown, el, size, cs.objectFit === "fill" || cs.objectFit === "contain");
      const svg = found && found.svg ? sizedSvg(found.svg, r.width, r.height, cs.objectFit) : null;
      if (svg) e.svg = svg;
      else if (found && found.svg) e.image = await imageData(shown, el, size, false);
      else e.image = found && (found.data || found);
      if (e.svg) return;
    }
    const layers = await backgrounds(el, cs, r.width, r.height);
    if (layers.length) e.backgrounds = layers;
    if (tag === "input" || tag === "textarea" || tag === "select") {
      const chosen = tag === "select" ? el.selectedOptions[0] : null;
      // A password shows as dots on the page, and only as dots in the design.
      const typed = el.type === "password" ? "\u2022".repeat(el.value.length) : el.value;
      const value = tag === "select" ? (chosen ? chosen.text : "") : typed || el.placeholder || "";
      if (value && el.type !== "checkbox" && el.type !== "radio" && el.type !== "hidden") {
        const pcs = el.value || tag === "select" ? cs : getComputedStyle(el, "::placeholder");
        const left = r.left + sx + num(cs.borderLeftWidth) + num(cs.paddingLeft);
        const innerH = r.height - num(cs.borderTopWidth) - num(cs.borderBottomWidth)
          - num(cs.paddingTop) - num(cs.paddingBottom);
        const lh = cs.lineHeight === "normal" ? num(cs.fontSize) * 1.2 : num(cs.lineHeight);
        const top = r.top + sy + num(cs.borderTopWidth) + num(cs.paddingTop) + Math.max(0, (innerH - lh) / 2);
        entries.push({ k: "text", p: index, text: value, lines: 1, lineBox: lh, x: left, y: top, w: 0, h: lh,
          st: intern({ ...textStyle(cs), color: pcs.color }), field: true });
      }
      if (tag !== "textarea") return;
    }
    if (cs.visibility === "hidden") { e.hidden = true; }
    else if (tag !== "textarea" && el.firstChild && plainInline(el) && addTextBlock(el, index, cs)) return;
    else {
      if (pseudoText(el, "::before") || pseudoText(el, "::after")) lost.pseudo += 1;
      const marker = markerOf(el, cs);
      if (marker && cs.listStylePosition === "outside") {
        // An item holding more than a line of text: its marker goes beside its first line.
        const lh = cs.lineHeight === "normal" ? num(cs.fontSize) * 1.2 : num(cs.lineHeight);
        addMarker(el, marker, index, r.left + num(cs.borderLeftWidth) + num(cs.paddingLeft),
          r.top + num(cs.borderTopWidth) + num(cs.paddingTop), lh);
      } else if (marker) lost.counters += 1;
    }
    for (const child of el.childNodes) {
      if (child.nodeType === Node.ELEMENT_NODE) await visit(child, index);
      else if (child.nodeType === Node.TEXT_NODE && cs.visibility !== "hidden") addText(child, index, cs);
      if (truncated) return;
    }
  }

  if (document.fonts && document.fonts.ready) await document.fonts.ready;
  const root = document.documentElement;
  const body = document.body ? document.body.scrollHeight : 0;
  const height = Math.max(root.scrollHeight, body, root.getBoundingClientRect().height);
  await visit(root, -1);
  if (lost.pseudo) warnings.push(lost.pseudo + " ::before/::after contents (icons, shapes) are not carried");
  if (lost.counters) warnings.push(lost.counters + " list markers or counters the design cannot show are not carried");
  lost.media.forEach((tag) => warnings.push("the content of <" + tag + "> elements is not carried (their box is)"));
  return { width: root.clientWidth, height: Math.ceil(height), title: document.title, entries, styles, truncated,
    elements: document.getElementsByTagName("*").length, warnings };
})
"""


def expand_styles(page: dict[str, Any]) -> None:
    """Puts the styles the walk sent once (``styles``) back where its entries name them: a box's computed style into
    its entry (``s``), a text's as its ``style`` (``st``, also on each styled run)."""
    styles: list[dict[str, Any]] = page.pop("styles", None) or []
    for entry in page["entries"]:
        if "s" in entry:
            entry.update(styles[entry.pop("s")])
        if "st" in entry:
            entry["style"] = styles[entry.pop("st")]
        for run in entry.get("runs") or []:
            if "st" in run:
                run["style"] = styles[run.pop("st")]
