// The trash: deleted memories, last deleted first, page by page (the cursors of the pages before
// this one are in the address, #/trash?after=…), each with restore and delete-forever buttons.

import { setQuery } from "../app.js";
import { api } from "../api.js";
import { inSpace, severalShown, spaceName, spaces } from "../space.js";
import { announce, clear, counted, errorBox, h, okBox, stacked, when } from "../ui.js";
import { excerpt } from "./memories.js";

const CURSORS = ".";
let shown = async () => {};
export async function update(query) { await shown(query); }

export async function render(root, args, query) {
  const list = h("div");
  const status = h("div");
  let starts = [null];
  const go = (cursors) => setQuery(cursors.length > 1 ? { after: cursors.slice(1).join(CURSORS) } : {});
  const load = async () => {
    try {
      const found = await api("/api/trash", { query: inSpace({ limit: 20, cursor: starts[starts.length - 1] }) });
      const named = (await severalShown()) ? await spaces() : null;
      clear(list, table(found.memories, restore, erase, named), pager(found.next_cursor));
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
  // Erasing asks first, naming what goes: the memory, its history and its relationships.
  const erase = async (memory) => {
    const name = memory.title || excerpt(memory.content);
    let detail;
    try {
      detail = await api(`/api/memories/${encodeURIComponent(memory.id)}/erasure`);
    } catch (error) { clear(status, errorBox(error)); return; }
    const keep = h("button", { type: "button", class: "secondary", onclick: () => clear(status) }, "Keep it");
    const confirm = h("button", { type: "button", class: "danger", onclick: async () => {
      try {
        await api(`/api/memories/${encodeURIComponent(memory.id)}`, { method: "DELETE", query: { permanent: "true" } });
        clear(status, okBox(`Erased “${name}” for good.`));
        announce(`Erased ${name} for good.`);
        await load();
      } catch (error) { clear(status, errorBox(error)); }
    } }, "Erase for good");
    clear(status, h("div", { class: "error confirm", role: "group", "aria-label": `Erase ${name} for good?` },
      h("p", {}, `Erase “${name}” for good? This loses the memory, its history (${counted(detail.history, "change")}) `,
        `and its place in ${counted(detail.relationships, "relationship")} (a relationship left with one memory is deleted). `,
        "It cannot be undone."),
      h("p", { class: "row" }, confirm, keep)));
    keep.focus();
  };
  const pager = (next) => h("nav", { class: "pager", "aria-label": "Pages" },
    h("button", { type: "button", class: "secondary", disabled: starts.length < 2, onclick: () => go(starts.slice(0, -1)) }, "Previous page"),
    h("span", { class: "muted" }, ` Page ${starts.length} `),
    h("button", { type: "button", class: "secondary", disabled: next === null, onclick: () => go([...starts, next]) }, "Next page"));
  clear(root, h("h1", {}, "Trash"), h("p", { class: "muted" }, "Deleted memories stay here until restored or deleted forever."), status, list);
  shown = async (given) => {
    starts = [null, ...(given.get("after") || "").split(CURSORS).filter(Boolean)];
    clear(status);
    await load();
  };
  await shown(query);
}

function table(memories, restore, erase, named) {
  if (!memories.length) return h("p", { class: "muted" }, "The trash is empty.");
  return stacked(h("table", {},
    h("thead", {}, h("tr", {}, ["Memory", named ? "Space" : null, "Type", "Deleted", ""].filter((t) => t !== null).map((t) => h("th", { scope: "col" }, t || h("span", { class: "skip" }, "Actions"))))),
    h("tbody", {}, memories.map((m) => {
      const name = m.title || excerpt(m.content);
      return h("tr", {},
        h("td", {}, h("a", { href: `#/memory/${encodeURIComponent(m.id)}` }, name)),
        named ? h("td", {}, spaceName(named, m.space)) : null,
        h("td", {}, m.type), h("td", {}, when(m.deleted_at)),
        h("td", {}, h("button", { type: "button", "aria-label": `Restore ${name}`, onclick: () => restore(m) }, "Restore"), " ",
          h("button", { type: "button", class: "danger", "aria-label": `Delete forever: ${name}`, onclick: () => erase(m) }, "Delete forever")));
    }))));
}
