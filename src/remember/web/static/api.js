// Calls to the dashboard's JSON API. Errors arrive as ApiError, with the server's message
// (the one the CLI prints) and its field problems.
//
// The session's id lives in this origin's localStorage and goes with every call as the
// X-Remember-Session header. The origin includes the port: no other service on this machine
// can read the id or put another in its place, as it could a cookie (a browser shares those
// across every port of a host). No cookie is sent at all.

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

const SESSION = "remember.session";
export function keepSession(id) { localStorage.setItem(SESSION, id); }
export function forgetSession() { localStorage.removeItem(SESSION); }

function url(path, query) {
  const u = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v === undefined || v === null || v === "") continue;
    for (const one of Array.isArray(v) ? v : [v]) u.searchParams.append(k, String(one));
  }
  return u.pathname + u.search;
}

// `body` is sent as JSON; `file` (a File or Blob) as the request body itself.
export async function api(path, options = {}) {
  const response = await send(path, options);
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = { message: text }; }
  if (!response.ok) refused(path, response, data);
  return data;
}

// Save the file a GET of `path` answers (an export) under the name the server gives it.
export async function download(path, query) {
  const response = await send(path, { query });
  if (!response.ok) {
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    refused(path, response, data);
  }
  const disposition = response.headers.get("Content-Disposition") || "";
  const named = /filename\*=utf-8''([^;]+)/i.exec(disposition) || /filename="([^"]+)"/i.exec(disposition);
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = named ? decodeURIComponent(named[1]) : "remember-export";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);  // the browser reads it at its own pace
}

async function send(path, { method = "GET", body, file, query } = {}) {
  const headers = { "Accept": "application/json" };
  const session = localStorage.getItem(SESSION);
  if (session) headers["X-Remember-Session"] = session;
  if (method !== "GET") headers["X-Remember-Request"] = "1";
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (file !== undefined) headers["Content-Type"] = "application/octet-stream";
  try {
    return await fetch(url(path, query), {
      method, headers, credentials: "omit",
      body: file !== undefined ? file : body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, { error: "Unreachable", message: "The server cannot be reached: is `remember` still running?" });
  }
}

function refused(path, response, data) {
  const error = new ApiError(response.status, data);
  // A refused login is the login form's to show; any other 401 means the session ended.
  if (response.status === 401 && path !== "/api/session") {
    forgetSession();
    onLoggedOut(error);
  }
  throw error;
}
