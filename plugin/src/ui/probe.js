const PROBE_TIMEOUT_MS = 1500;

/**
 * Asks a port for /health. Resolves with the body when designd (or another Desktop Bridge server) answers: status
 * "ok", a version string and a clients count. Anything else, including no answer, resolves with null.
 * @param {number} port
 * @returns {Promise<Record<string, any> | null>}
 */
export function probe(port) {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("GET", "http://localhost:" + port + "/health");
    xhr.timeout = PROBE_TIMEOUT_MS;
    xhr.onload = () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch (err) {
        body = null;
      }
      const ours = xhr.status === 200 && body && body.status === "ok" && typeof body.version === "string" && "clients" in body;
      resolve(ours ? body : null);
    };
    xhr.onerror = xhr.ontimeout = xhr.onabort = () => resolve(null);
    try {
      xhr.send();
    } catch (err) {
      resolve(null);
    }
  });
}
