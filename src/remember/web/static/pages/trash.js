// The trash: deleted memories, last deleted first, page by page, each with a restore button.

import { api } from "../api.js";
import { announce, clear, errorBox, h, okBox, stacked, when } from "../ui.js";
import { excerpt } from "./memories.js";

export async function render(root) {
  const list = h("div");
  const status = h("div");
  const starts = [null];
  const load = async () => {
    try {
      const found = await api("/api/trash", { query: { limit: 20, cursor: starts[starts.length - 1] } });
      clear(list, table(found.memories, restore), pager(found.next_cursor));
    } catch (error) {
      clear(list, errorBox(error));
    }
  };
  const restore = async (memory) => {
    try {
      await api(`/api/memories/${encodeURIComponent(memory.id)}/restore`, { method: "POST" });
      const name = memory.title || excerpt(memory.content);
      clear(status, okBox(`Restored “${name}”. `), h("a", { href: `#/memory/${encodeURIComponent(memory.id)}` }, "Open it."));
      announce(`Restored ${name}.`);
      await load();
    } catch (error) {
      clear(status, errorBox(error));
    }
  };
  const pager = (next) => h("nav", { class: "pager", "aria-label": "Pages" },
    h("button", { type: "button", class: "secondary", disabled: starts.length < 2, onclick: () => { starts.pop(); load(); } }, "Previous page"),
    h("span", { class: "muted" }, ` Page ${starts.length} `),
    h("button", { type: "button", class: "secondary", disabled: next === null, onclick: () => { starts.push(next); load(); } }, "Next page"));
  clear(root, h("h1", {}, "Trash"), h("p", { class: "muted" }, "Deleted memories stay here until restored."), status, list);
  await load();
}

function table(memories, restore) {
  if (!memories.length) return h("p", { class: "muted" }, "The trash is empty.");
  return stacked(h("table", {},
    h("thead", {}, h("tr", {}, ["Memory", "Type", "Deleted", ""].map((t) => h("th", { scope: "col" }, t || h("span", { class: "skip" }, "Actions"))))),
    h("tbody", {}, memories.map((m) => {
      const name = m.title || excerpt(m.content);
      return h("tr", {},
        h("td", {}, h("a", { href: `#/memory/${encodeURIComponent(m.id)}` }, name)),
        h("td", {}, m.type), h("td", {}, when(m.deleted_at)),
        h("td", {}, h("button", { type: "button", "aria-label": `Restore ${name}`, onclick: () => restore(m) }, "Restore")));
    }))));
}
