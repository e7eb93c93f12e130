import { fileInfo } from "./file-info.js";

export const MAX_SELECTION_NODES = 50;
export const MAX_CHANGED_IDS = 50;
const DOCUMENT_FLUSH_MS = 150;
const METADATA_FIELDS = ["name", "description", "descriptionMarkdown", "annotations", "componentPropertyDefinitions"];

/** @param {(event: {type: string, data: any}) => void} emit */
export function selectionEvent(emit) {
  const selection = figma.currentPage.selection;
  emit({
    type: "SELECTION_CHANGE",
    data: {
      nodes: selection.slice(0, MAX_SELECTION_NODES).map((n) => ({
        id: n.id,
        name: n.name,
        type: n.type,
        width: "width" in n ? n.width : undefined,
        height: "height" in n ? n.height : undefined,
      })),
      count: selection.length,
      page: figma.currentPage.name,
      pageId: figma.currentPage.id,
      timestamp: Date.now(),
    },
  });
}

/**
 * Subscribes to the editor's events and forwards them. `documentchange` needs every page loaded under dynamic page
 * access; when that load fails, changes of the current page are still reported through its `nodechange` event.
 * @param {(event: {type: string, data: any}) => void} emit
 * @param {(...args: any[]) => void} diag
 */
export function watchDocument(emit, diag) {
  figma.on("selectionchange", () => selectionEvent(emit));
  figma.on("currentpagechange", () => {
    emit({ type: "PAGE_CHANGE", data: { pageId: figma.currentPage.id, pageName: figma.currentPage.name, timestamp: Date.now() } });
    emit({ type: "FILE_INFO", data: fileInfo() });
  });

  /** @type {{nodeIds: string[], seen: Record<string, boolean>, count: number, style: boolean, node: boolean, meta: any[]} | null} */
  let pending = null;
  function flush() {
    const batch = pending;
    pending = null;
    if (!batch) return;
    emit({
      type: "DOCUMENT_CHANGE",
      data: {
        hasStyleChanges: batch.style,
        hasNodeChanges: batch.node,
        changedNodeIds: batch.nodeIds,
        changeCount: batch.count,
        timestamp: Date.now(),
      },
    });
    if (batch.meta.length) emit({ type: "METADATA_CHANGE", data: { changes: batch.meta } });
  }
  /** @param {ReadonlyArray<any>} changes */
  function collect(changes) {
    if (!pending) {
      pending = { nodeIds: [], seen: {}, count: 0, style: false, node: false, meta: [] };
      setTimeout(flush, DOCUMENT_FLUSH_MS);
    }
    const batch = pending;
    changes.forEach((change) => {
      batch.count++;
      if (String(change.type).indexOf("STYLE_") === 0) {
        batch.style = true;
        return;
      }
      batch.node = true;
      const id = change.id || (change.node && change.node.id);
      if (id && !batch.seen[id] && batch.nodeIds.length < MAX_CHANGED_IDS) {
        batch.seen[id] = true;
        batch.nodeIds.push(id);
      }
      if (change.type === "PROPERTY_CHANGE" && change.node && !change.node.removed) {
        (change.properties || []).forEach((/** @type {string} */ field) => {
          if (METADATA_FIELDS.indexOf(field) < 0 || batch.meta.length >= MAX_CHANGED_IDS) return;
          const node = change.node;
          const value = field in node ? node[field] : undefined;
          batch.meta.push({
            node_id: node.id,
            node_name: node.name,
            node_type: node.type,
            field: field,
            new_value: typeof value === "string" ? value : JSON.stringify(value === undefined ? null : value),
            timestamp: Date.now(),
          });
        });
      }
    });
  }

  figma
    .loadAllPagesAsync()
    .then(() => figma.on("documentchange", (event) => collect(event.documentChanges)))
    .catch((err) => {
      diag("[design bridge] whole-document change events unavailable, watching the current page only:", err);
      figma.currentPage.on("nodechange", (event) => collect(event.nodeChanges));
    });
}
