// #/templates: the built-in library and the user's own templates, searched by name, a page at a time.

import { api } from "../api.js";
import { announce, clear, errorBox, h, labelled, okBox, stacked } from "../ui.js";

const PAGE = 25;
export const FLASH = "remember.templates.done";  // what the last action on another page did

export async function render(root) {
  const search = h("input", { type: "search", name: "search", autocomplete: "off", size: 30 });
  const origin = h("select", { name: "origin" },
    h("option", { value: "all" }, "All"), h("option", { value: "builtin" }, "Built-in"), h("option", { value: "mine" }, "Mine"));
  const results = h("div");
  let offset = 0;
  let timer = null;
  let asked = 0;

  async function load(quiet = false) {
    const mine = ++asked;
    let page;
    try {
      page = await api("/api/templates", { query: { search: search.value.trim(), origin: origin.value, sort_by: "name", limit: PAGE, offset } });
    } catch (error) {
      if (mine === asked) clear(results, errorBox(error));
      return;
    }
    if (mine !== asked) return;  // a newer search answered first
    clear(results, table(page), pager(page));
    if (!quiet) announce(`${page.total} template${page.total === 1 ? "" : "s"}`);
  }

  function pager(page) {
    const previous = h("button", { type: "button", class: "secondary", disabled: offset === 0,
      onclick: () => { offset = Math.max(0, offset - PAGE); load(); } }, "Previous");
    const next = h("button", { type: "button", class: "secondary", disabled: !page.has_more,
      onclick: () => { offset += PAGE; load(); } }, "Next");
    const last = Math.min(page.total, offset + page.templates.length);
    return h("p", { class: "row" }, previous, next, h("span", { class: "muted" }, page.total ? `${offset + 1}–${last} of ${page.total}` : "No templates match."));
  }

  search.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => { offset = 0; load(); }, 300); });
  origin.addEventListener("change", () => { offset = 0; load(); });

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
  load(true);  // not awaited: the shell focuses the page when render returns, which must not be mid-typing
}

function table(page) {
  return stacked(h("table", { class: "templates" },
    h("caption", { class: "muted" }, "Templates you can use"),
    h("thead", {}, h("tr", {}, ["Name", "Origin", "Category", "Version", "Own fields", "Used by"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, page.templates.map((t) => h("tr", {},
      h("td", {}, h("a", { href: `#/template/${encodeURIComponent(t.id)}` }, t.name),
        t.description ? h("div", { class: "muted" }, t.description) : null),
      h("td", {}, t.is_default ? "Built-in" : "Yours"),
      h("td", {}, t.category),
      h("td", {}, t.version),
      h("td", {}, String(t.fields.length)),
      h("td", {}, `${t.usage_count} memor${t.usage_count === 1 ? "y" : "ies"}`))))));
}
