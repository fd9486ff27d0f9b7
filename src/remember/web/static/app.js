// The dashboard's shell: who is logged in, the navigation, and which view draws the page.
// A view is a module in pages/ exporting `render(root, args)`; the address names it:
// #/memories, #/memory/<id>, #/templates, ... (the part after the name is its `args`).

import { api, whenLoggedOut } from "./api.js";
import { clear, errorBox, h } from "./ui.js";

const PAGES = {
  login: () => import("./pages/login.js"),
  templates: () => import("./pages/templates.js"),
  template: () => import("./pages/template.js"),
  "template-edit": () => import("./pages/template-edit.js"),
  "template-new": () => import("./pages/template-edit.js"),
};
const HOME = "memories";

const page = () => document.getElementById("page");

function parse() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  const [name = HOME, ...args] = parts;
  return { name, args };
}

function markNav(name) {
  for (const link of document.querySelectorAll("#nav a")) {
    const target = link.getAttribute("href").slice(2);
    if (target === name || (name.startsWith(target.replace(/s$/, "")) && target !== name)) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

export async function show() {
  const { name, args } = parse();
  const root = page();
  if (name !== "login" && !(await loggedIn())) return;
  markNav(name);
  const load = PAGES[name];
  if (!load) {
    clear(root, h("h1", {}, "Not found"), h("p", {}, "There is no such page. ", h("a", { href: `#/${HOME}` }, "Go to the memories.")));
    return;
  }
  try {
    const module = await load();
    clear(root);
    await module.render(root, args);
  } catch (error) {
    clear(root, h("h1", {}, "Something went wrong"), errorBox(error));
  }
  root.focus({ preventScroll: true });
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
  clear(document.getElementById("who"), `${me.user}`, " ", logoutButton());
  return true;
}

function logoutButton() {
  return h("button", { class: "secondary", type: "button", onclick: async () => {
    await api("/api/session", { method: "DELETE" });
    loggedOut();
  } }, "Log out");
}

export function loggedOut() {
  me = null;
  document.getElementById("nav").hidden = true;
  clear(document.getElementById("who"));
  if (!location.hash.startsWith("#/login")) location.hash = "#/login";
  else show();
}

export function currentUser() { return me; }

whenLoggedOut(loggedOut);
window.addEventListener("hashchange", show);
window.addEventListener("DOMContentLoaded", show);
