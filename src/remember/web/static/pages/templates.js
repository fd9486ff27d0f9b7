// #/templates: the built-in library and the templates of the space chosen in the header (all of one's
// spaces when none is: each then names its space), searched by name, a page at a time.

import { setQuery } from "../app.js";
import { api } from "../api.js";
import { inSpace, spaceName, spaces } from "../space.js";
import { announce, clear, errorBox, h, labelled, okBox, stacked } from "../ui.js";

const PAGE = 25;
export const FLASH = "remember.templates.done";  // what the last action on another page did

// The search, the origin shown and the page's offset live in the address (#/templates?search=…).
export async function render(root, args, query) {
  const search = h("input", { type: "search", name: "search", autocomplete: "off", size: 30 });
  const origin = h("select", { name: "origin" },
    h("option", { value: "all" }, "All"), h("option", { value: "builtin" }, "Built-in"), h("option", { value: "mine" }, "Yours and your spaces'"));
  const results = h("div");
  let offset = 0;
  let timer = null;
  let asked = 0;

  async function load(quiet = false) {
    const mine = ++asked;
    let page;
    try {
      page = await api("/api/templates", { query: inSpace({ search: search.value.trim(), origin: origin.value, sort_by: "name", limit: PAGE, offset }) });
      page.spaces = await spaces().catch(() => ({ spaces: [] }));
    } catch (error) {
      if (mine === asked) clear(results, errorBox(error));
      return;
    }
    if (mine !== asked) return;  // a newer search answered first
    clear(results, table(page), pager(page));
    if (!quiet) announce(`${page.total} template${page.total === 1 ? "" : "s"}`);
  }

  // Write the address from the controls; a new history entry unless `typing`.
  function go(newOffset, typing = false) {
    const params = {};
    if (search.value.trim()) params.search = search.value.trim();
    if (origin.value !== "all") params.origin = origin.value;
    if (newOffset) params.offset = String(newOffset);
    offset = newOffset;
    if (!setQuery(params, { replace: typing })) load();
  }

  function pager(page) {
    const previous = h("button", { type: "button", class: "secondary", disabled: offset === 0,
      onclick: () => go(Math.max(0, offset - PAGE)) }, "Previous");
    const next = h("button", { type: "button", class: "secondary", disabled: !page.has_more,
      onclick: () => go(offset + PAGE) }, "Next");
    const last = Math.min(page.total, offset + page.templates.length);
    return h("p", { class: "row" }, previous, next, h("span", { class: "muted" }, page.total ? `${offset + 1}–${last} of ${page.total}` : "No templates match."));
  }

  search.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => go(0, true), 300); });
  origin.addEventListener("change", () => go(0));

  shown = (given, quiet) => {
    search.value = given.get("search") || "";
    origin.value = ["builtin", "mine"].includes(given.get("origin")) ? given.get("origin") : "all";
    offset = Math.max(0, Number.parseInt(given.get("offset") || "0", 10) || 0);
    load(quiet);
  };
  const done = sessionStorage.getItem(FLASH);
  sessionStorage.removeItem(FLASH);
  clear(root,
    h("h1", {}, "Templates"),
    done ? okBox(done) : null,
    h("div", { class: "row" },
      labelled("Search by name", search),
      labelled("Show", origin),
      h("p", {}, h("a", { href: "#/template-new" }, "New template"))),
    results);
  shown(query, true);  // not awaited: the shell focuses the page when render returns, which must not be mid-typing
}

let shown = () => {};
export function update(query) { shown(query, false); }

function table(page) {
  return stacked(h("table", { class: "templates" },
    h("caption", { class: "muted" }, "Templates you can use"),
    h("thead", {}, h("tr", {}, ["Name", "Origin", "Category", "Version", "Own fields", "Used by"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, page.templates.map((t) => h("tr", {},
      h("td", {}, h("a", { href: `#/template/${encodeURIComponent(t.id)}` }, t.name),
        t.description ? h("div", { class: "muted" }, t.description) : null),
      h("td", {}, t.is_default ? "Built-in" : t.space ? `Space ${spaceName(page.spaces, t.space)}` : "Yours"),
      h("td", {}, t.category),
      h("td", {}, t.version),
      h("td", {}, String(t.fields.length)),
      h("td", {}, `${t.usage_count} memor${t.usage_count === 1 ? "y" : "ies"}`))))));
}
