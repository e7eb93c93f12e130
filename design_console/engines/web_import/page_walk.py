"""The script that reads a laid-out page in the browser: one evaluation that walks the DOM and returns a compact list.

Each entry is an element box or a run of text, in document order, with its parent entry's index, its box in page
coordinates (CSS px, scrolled to the top) and the computed styles :mod:`.convert` needs. Images and CSS background
images are read in the page (fetched as base64 data), so nothing is fetched twice and the page's own cookies apply;
an image of a ``file:`` page is named (``{"file": url}``) for the caller to read. The walk
stops once it has read ``opts.limit`` entries and says so, so a huge page costs one bounded answer.
"""

from __future__ import annotations

#: Called as ``(PAGE_WALK)({limit, maxImageBytes})``; resolves to ``{width, height, entries, truncated, warnings}``.
PAGE_WALK = r"""
(async (opts) => {
  const SKIP = new Set(["SCRIPT", "STYLE", "HEAD", "META", "LINK", "TITLE", "NOSCRIPT", "TEMPLATE", "BASE"]);
  const entries = [];
  const warnings = [];
  const images = new Map();
  let truncated = false;
  // What the design cannot show, counted for the warnings.
  const lost = { pseudo: 0, bullets: 0, media: new Set() };
  const sx = window.scrollX, sy = window.scrollY;
  const box = (r) => ({ x: r.left + sx, y: r.top + sy, w: r.width, h: r.height });
  const num = (v) => parseFloat(v) || 0;

  async function imageData(url) {
    if (!url) return null;
    if (images.has(url)) return images.get(url);
    // A file the page links to is read by the caller, which checks that it lies in a folder the user shares.
    if (url.startsWith("file:")) return { file: url };
    let data = null;
    try {
      const res = await fetch(url);
      const blob = await res.blob();
      if (!res.ok) warnings.push("image " + url.slice(0, 120) + " answered " + res.status);
      else if (blob.size > opts.maxImageBytes) {
        warnings.push("image " + url.slice(0, 120) + " is over " + opts.maxImageBytes + " bytes: left out");
      }
      else data = await new Promise((resolve) => {
        const reader = new FileReader();
        reader.onload = () => resolve(String(reader.result).split(",", 2)[1] || null);
        reader.onerror = () => resolve(null);
        reader.readAsDataURL(blob);
      });
    } catch (e) {
      warnings.push("image " + url.slice(0, 120) + " could not be read: " + (e && e.message || e));
    }
    images.set(url, data);
    return data;
  }

  function textStyle(cs) {
    return {
      fontFamily: cs.fontFamily, fontSize: num(cs.fontSize), fontWeight: cs.fontWeight, fontStyle: cs.fontStyle,
      lineHeight: cs.lineHeight, letterSpacing: cs.letterSpacing, textAlign: cs.textAlign,
      textTransform: cs.textTransform, textDecoration: cs.textDecorationLine, color: cs.color,
      whiteSpace: cs.whiteSpace,
    };
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
    const tops = new Set(rects.map((r) => Math.round(r.top)));
    entries.push({ k: "text", p: parent, text: text, lines: tops.size, lineBox: rects[0].height,
      ...box(range.getBoundingClientRect()), style: textStyle(cs) });
  }

  async function visit(el, parent) {
    if (entries.length >= opts.limit) { truncated = true; return; }
    if (SKIP.has(el.tagName.toUpperCase())) return;
    const cs = getComputedStyle(el);
    if (cs.display === "none") return;
    const r = el.getBoundingClientRect();
    const tag = el.tagName.toLowerCase();
    const e = {
      k: "el", p: parent, tag: tag, ...box(r),
      name: tag + (el.id ? "#" + el.id : el.classList.length ? "." + el.classList[0] : ""),
      display: cs.display, position: cs.position, visibility: cs.visibility, opacity: num(cs.opacity),
      overflow: cs.overflowX === "visible" && cs.overflowY === "visible" ? "visible" : "clip",
      bg: cs.backgroundColor, bgImage: cs.backgroundImage, bgSize: cs.backgroundSize,
      border: ["Top", "Right", "Bottom", "Left"].map((s) => ({
        w: num(cs["border" + s + "Width"]), c: cs["border" + s + "Color"], s: cs["border" + s + "Style"] })),
      radius: ["TopLeft", "TopRight", "BottomRight", "BottomLeft"].map((s) => cs["border" + s + "Radius"]),
      shadow: cs.boxShadow,
      padding: ["Top", "Right", "Bottom", "Left"].map((s) => num(cs["padding" + s])),
      flexDirection: cs.flexDirection, flexWrap: cs.flexWrap,
    };
    const index = entries.length;
    entries.push(e);
    for (const pseudo of ["::before", "::after"]) {
      const content = getComputedStyle(el, pseudo).content;
      if (content && content !== "none" && content !== "normal" && content !== '""') lost.pseudo += 1;
    }
    if (cs.display === "list-item" && cs.listStyleType !== "none") lost.bullets += 1;
    if (tag === "canvas" || tag === "video" || tag === "iframe") lost.media.add(tag);
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
      e.image = await imageData(el.currentSrc || el.src);
      e.fit = cs.objectFit;
    }
    const bgUrl = /url\("?(.*?)"?\)/.exec(e.bgImage || "");
    if (bgUrl) e.bgImageData = await imageData(new URL(bgUrl[1], document.baseURI).href);
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
          style: { ...textStyle(cs), color: pcs.color }, field: true });
      }
      if (tag !== "textarea") return;
    }
    if (cs.visibility === "hidden") e.hidden = true;
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
  if (lost.pseudo) warnings.push(lost.pseudo + " ::before/::after contents (icons, counters) are not carried");
  if (lost.bullets) warnings.push(lost.bullets + " list bullets or numbers are not carried");
  lost.media.forEach((tag) => warnings.push("the content of <" + tag + "> elements is not carried (their box is)"));
  return { width: root.clientWidth, height: Math.ceil(height), title: document.title, entries, truncated, warnings };
})
"""
