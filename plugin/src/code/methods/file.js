import { fileInfo } from "../file-info.js";

/** GET_FILE_INFO */
export async function getFileInfo() {
  return Object.assign({ success: true }, fileInfo());
}
