// The dashboard's shell: who is logged in, the navigation, and which view draws the page.
// A view is a module in pages/ exporting `render(root, args, query)`; the address names it:
// #/memories, #/memory/<id>, #/templates, ... (the part after the name is its `args`, the part
// after "?" its `query`, a URLSearchParams: a search and its page, so that Back, reload and a
// shared link show the same results). A view that exports `update(query)` is told when only
// its query changes, instead of being drawn again.

import { api, forgetSession, whenLoggedOut } from "./api.js";
import { chosenSpace, forgetSpaces, queryText, spaces, withSpace } from "./space.js";
import { clear, errorBox, h } from "./ui.js";

const PAGES = {
  login: () => import("./pages/login.js"),
  home: () => import("./pages/home.js"),
  memories: () => import("./pages/memories.js"),
  memory: () => import("./pages/memory.js"),
  "memory-new": () => import("./pages/memory-new.js"),
  trash: () => import("./pages/trash.js"),
  settings: () => import("./pages/settings.js"),
  analytics: () => import("./pages/analytics.js"),
  graph: () => import("./pages/whole-graph.js"),
  templates: () => import("./pages/templates.js"),
  template: () => import("./pages/template.js"),
  "template-edit": () => import("./pages/template-edit.js"),
  "template-new": () => import("./pages/template-edit.js"),
  spaces: () => import("./pages/spaces.js"),
  space: () => import("./pages/spaces.js"),
};
const HOME = "home";

const page = () => document.getElementById("page");

function parse() {
  const [path, search = ""] = location.hash.replace(/^#\/?/, "").split(/\?(.*)/s);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const [name = HOME, ...args] = parts;
  return { name, args, query: new URLSearchParams(search), place: path };
}

// The view shown now: its address without the query, its module and its element.
let current = null;

// Go to this view's address with `params` as its query: a history entry, so Back returns, and the
// view's update() follows. With `replace` (a search typed letter by letter), the address is
// rewritten in place and the view draws the change itself. True when update() will follow.
export function setQuery(params, { replace = false } = {}) {
  const kept = new URLSearchParams(params);
  if (!kept.has("space") && chosenSpace()) kept.set("space", chosenSpace());  // the space chosen stays chosen
  const query = queryText(kept);
  const address = `#/${parse().place}${query ? `?${query}` : ""}`;
  if (address === location.hash) return false;
  if (replace) {
    history.replaceState(history.state, "", address);
    return false;
  }
  location.hash = address;
  return true;
}

// The navigation entry a view belongs to: #/memory/<id> is under Memories, and so on.
const SECTION = { memory: "memories", "memory-new": "memories", template: "templates", "template-edit": "templates", "template-new": "templates", space: "spaces" };

// On a phone the navigation folds behind the Menu button; choosing a page folds it again.
function foldNav(open) {
  document.querySelector(".top").classList.toggle("open", open);
  document.getElementById("menu").setAttribute("aria-expanded", String(open));
}

function markNav(name) {
  const section = SECTION[name] || name;
  for (const link of document.querySelectorAll("#nav a")) {
    if (link.getAttribute("href").slice(2).split("?")[0] === section) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

// Each address gets a view element of its own, put in the page at once: a view still loading
// when the address changes draws into its own element, no longer in the page, never over the next.
let shows = 0;  // a newer address, shown while this one waited, wins: the older is dropped
export async function show() {
  const mine = ++shows;
  const { name, args, query, place } = parse();
  if (name !== "login" && !(await loggedIn())) return;
  if (mine !== shows) return;
  if (current && current.place === place && current.module && current.module.update && current.view.isConnected) {
    await showSpace();
    await current.module.update(query);
    return;
  }
  const view = h("div", { class: "view" });
  clear(page(), view);
  await showSpace();
  if (mine !== shows) return;
  markNav(name);
  foldNav(false);
  current = { place, view, module: null };
  const load = PAGES[name];
  if (!load) {
    clear(view, h("h1", {}, "Not found"), h("p", {}, "There is no such page. ", h("a", { href: `#/${HOME}` }, "Go home.")));
    return;
  }
  try {
    const module = await load();
    if (mine !== shows) return;
    current.module = module;
    await module.render(view, args, query);
  } catch (error) {
    clear(view, h("h1", {}, "Something went wrong"), errorBox(error));
  }
  if (wantSearch && view.isConnected) {
    wantSearch = false;
    const box = view.querySelector("input[type=search]");
    if (box) { box.focus(); return; }
  }
  // The new view gets the focus (for keyboard and screen reader users), unless its own
  // code already put it somewhere in the view, or the user did while it loaded.
  if (view.isConnected && !view.contains(document.activeElement)) page().focus({ preventScroll: true });
}

// Keys that act anywhere but in a text box: "/" goes to the search (the memories page's, unless
// the page has a search of its own), "n" to a new memory.
let wantSearch = false;
const TYPING = "input, textarea, select, [contenteditable]";
function shortcut(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
  if (event.target instanceof Element && event.target.closest(TYPING)) return;
  if (!me || !["/", "n"].includes(event.key)) return;
  event.preventDefault();
  if (event.key === "n") { location.hash = withSpace("#/memory-new"); return; }
  const box = page().querySelector("input[type=search]");
  if (box) { box.focus(); return; }
  wantSearch = true;
  location.hash = withSpace("#/memories");
}

let me = null;
async function loggedIn() {
  if (me) return true;
  try {
    me = await api("/api/me");
  } catch (error) {
    if (error.status !== 401) clear(page(), errorBox(error));
    return false;
  }
  document.getElementById("nav").hidden = false;
  document.getElementById("menu").hidden = false;
  document.getElementById("new-memory").hidden = false;
  document.getElementById("space-pick").hidden = false;
  clear(document.getElementById("who"), `${me.user}`, " ", logoutButton());
  return true;
}

// The header's space choice, as the address has it: the options are one's spaces (with one's role in each);
// the navigation keeps the choice; New memory is offered where one may write.
const ROLE_WORD = { reader: "reader", writer: "writer", admin: "admin" };
async function showSpace() {
  if (!me) return;
  const select = document.getElementById("space");
  const chosen = chosenSpace();
  let listed = { spaces: [] };
  try { listed = await spaces(); } catch (error) { /* the page itself says what failed */ }
  const shared = listed.spaces.map((s) => h("option", { value: s.space }, `${s.name} (${ROLE_WORD[s.role] || s.role})`));
  const unknown = chosen && chosen !== "personal" && !listed.spaces.some((s) => s.space === chosen)
    ? h("option", { value: chosen }, "A space not among yours") : null;
  clear(select, h("option", { value: "" }, "All my spaces"), h("option", { value: "personal" }, "Personal"), shared, unknown);
  select.value = chosen;
  for (const link of document.querySelectorAll("#nav a, a.brand")) {
    const base = link.dataset.base || link.getAttribute("href");
    link.dataset.base = base;
    link.setAttribute("href", withSpace(base));
  }
  const role = (listed.spaces.find((s) => s.space === chosen) || {}).role;
  const writes = !chosen || chosen === "personal" || role === "writer" || role === "admin";
  const create = document.getElementById("new-memory");
  create.hidden = !writes;
  create.setAttribute("href", withSpace("#/memory-new"));
}

// After a space is made, left or changed: the choice offers what is now true.
export async function spacesChanged() {
  forgetSpaces();
  await showSpace();
}

// Choosing a space keeps the page and its filters, from its first page.
function chooseSpace(event) {
  const [path, search = ""] = location.hash.replace(/^#\/?/, "").split(/\?(.*)/s);
  const query = new URLSearchParams(search);
  for (const paging of ["after", "offset", "cursor", "space"]) query.delete(paging);
  if (event.target.value) query.set("space", event.target.value);
  location.hash = `#/${path}${query.size ? `?${queryText(query)}` : ""}`;
}

// A link within the dashboard keeps the space chosen, unless it names one.
function keepSpace(event) {
  const link = event.target instanceof Element && event.target.closest("a[href^='#/']");
  if (link && chosenSpace()) link.setAttribute("href", withSpace(link.getAttribute("href")));
}

function logoutButton() {
  return h("button", { class: "secondary", type: "button", onclick: async () => {
    try {
      await api("/api/session", { method: "DELETE" });
    } catch (error) {
      // The server could not be told; this browser forgets the session all the same, so no one holds it.
    }
    forgetSession();
    loggedOut();
  } }, "Log out");
}

export function loggedOut() {
  me = null;
  document.getElementById("nav").hidden = true;
  document.getElementById("menu").hidden = true;
  document.getElementById("new-memory").hidden = true;
  document.getElementById("space-pick").hidden = true;
  forgetSpaces();
  clear(document.getElementById("who"));
  if (!location.hash.startsWith("#/login")) location.hash = "#/login";
  else show();
}

export function currentUser() { return me; }

whenLoggedOut(loggedOut);
document.getElementById("menu").addEventListener("click", () => foldNav(!document.querySelector(".top").classList.contains("open")));
window.addEventListener("hashchange", show);
document.getElementById("space").addEventListener("change", chooseSpace);
document.addEventListener("click", keepSpace, true);
document.addEventListener("keydown", shortcut);
window.addEventListener("DOMContentLoaded", show);
