// Calls to the dashboard's JSON API. Errors arrive as ApiError, with the server's message
// (the one the CLI prints) and its field problems.

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `The server answered ${status}.`);
    this.status = status;
    this.kind = (body && body.error) || "Error";
    this.errors = (body && body.errors) || [];
  }
}

let onLoggedOut = () => {};
export function whenLoggedOut(handler) { onLoggedOut = handler; }

function url(path, query) {
  const u = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v === undefined || v === null || v === "") continue;
    for (const one of Array.isArray(v) ? v : [v]) u.searchParams.append(k, String(one));
  }
  return u.pathname + u.search;
}

// `body` is sent as JSON; `file` (a File or Blob) as the request body itself.
export async function api(path, { method = "GET", body, file, query } = {}) {
  const headers = { "Accept": "application/json" };
  if (method !== "GET") headers["X-Remember-Request"] = "1";
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (file !== undefined) headers["Content-Type"] = "application/octet-stream";
  let response;
  try {
    response = await fetch(url(path, query), {
      method, headers, credentials: "same-origin",
      body: file !== undefined ? file : body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, { error: "Unreachable", message: "The server cannot be reached: is `remember` still running?" });
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = { message: text }; }
  if (!response.ok) {
    const error = new ApiError(response.status, data);
    // A refused login is the login form's to show; any other 401 means the session ended.
    if (response.status === 401 && path !== "/api/session") onLoggedOut(error);
    throw error;
  }
  return data;
}
