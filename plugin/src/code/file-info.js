import { PLUGIN_VERSION } from "./version.js";

/**
 * The file's identity as designd keys it. `figma.fileKey` needs the private API permission; without it (or in a file
 * not yet saved) a key is derived from the document so the file can still be told apart.
 */
export function fileInfo() {
  const key = figma.fileKey;
  return {
    fileName: figma.root.name,
    fileKey: typeof key === "string" && key ? key : "local:" + figma.root.name,
    currentPage: figma.currentPage.name,
    currentPageId: figma.currentPage.id,
    selectionCount: figma.currentPage.selection.length,
    pluginVersion: PLUGIN_VERSION,
    editorType: figma.editorType,
  };
}
