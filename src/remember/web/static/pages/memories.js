// The memories: a hybrid search (alpha from keywords to meaning) with the filter builder,
// or, without a query, the memories page by page (keyset cursors: next and previous).

import { api } from "../api.js";
import { announce, clear, counted, errorBox, h, labelled, when } from "../ui.js";
import { filterBuilder } from "./filters.js";

const PAGE = 20;

export async function render(root) {
  const query = h("input", { type: "search", name: "q", size: 40, placeholder: "What are you looking for?" });
  // Alpha is chosen for each search unless "Auto" is unchecked; then the slider's value is sent.
  const auto = h("input", { type: "checkbox", id: "alpha-auto", name: "alpha_auto", checked: true });
  const alpha = h("input", { type: "range", id: "alpha", name: "alpha", min: 0, max: 1, step: 0.1, value: 0.3, disabled: true });
  const alphaShown = h("output", { for: "alpha" }, "auto");
  alpha.addEventListener("input", () => { alphaShown.textContent = alpha.value; });
  auto.addEventListener("change", () => { alpha.disabled = auto.checked; alphaShown.textContent = auto.checked ? "auto" : alpha.value; });
  const results = h("div", { class: "results" });
  const ended = h("input", { type: "checkbox", id: "include-superseded", name: "include_superseded" });
  const builder = filterBuilder(() => {});
  // Pages already seen: each entry is the cursor (list) or offset (search) that opened it.
  let state = { mode: "list", starts: [null], filters: {} };

  const load = async () => {
    const start = state.starts[state.starts.length - 1];
    try {
      const found = state.mode === "search" ? await searched(state, start, auto.checked ? undefined : alpha.value) : await listed(state, start);
      if (found.alpha !== undefined && auto.checked) alphaShown.textContent = `auto (${found.alpha.toFixed(2)} for this search)`;
      clear(results, table(found.memories, state.mode), pager(found.next, state.starts.length > 1));
      announce(`${counted(found.memories.length, "memory")} shown, page ${state.starts.length}.`);
    } catch (error) {
      clear(results, errorBox(error));
    }
  };
  const pager = (next, hasPrevious) => h("nav", { class: "pager", "aria-label": "Pages" },
    h("button", { type: "button", class: "secondary", disabled: !hasPrevious, onclick: () => { state.starts.pop(); load(); } }, "Previous page"),
    h("span", { class: "muted" }, ` Page ${state.starts.length} `),
    h("button", { type: "button", class: "secondary", disabled: next === null, onclick: () => { state.starts.push(next); load(); } }, "Next page"));

  const form = h("form", { class: "search", onsubmit: (event) => {
    event.preventDefault();
    const text = query.value.trim();
    state = { mode: text ? "search" : "list", q: text, starts: [text ? 0 : null], filters: builder.build(), ended: ended.checked };
    load();
  } },
    h("div", { class: "row" },
      labelled("Search", query),
      labelled("Auto alpha", auto),
      labelled("Alpha: 0 = by keywords, 1 = by meaning", alpha),
      h("div", { class: "control" }, h("span", { class: "muted" }, "alpha "), alphaShown),
      labelled("Also what has ended", ended),
      h("button", { type: "submit" }, "Search")),
    builder.node);
  clear(root, h("h1", {}, "Memories"), form, h("h2", {}, "Results"), results);
  await load();
}

async function searched(state, offset, alpha) {
  const found = await api("/api/search", { query: { q: state.q, alpha, filters: json(state.filters), limit: PAGE, offset, include_superseded: state.ended ? 1 : undefined } });
  return { memories: found.results.map((r) => ({ ...r.memory, score: r.score })), next: found.has_more ? offset + found.results.length : null, alpha: found.alpha };
}

async function listed(state, cursor) {
  const found = await api("/api/memories", { query: { filters: json(state.filters), limit: PAGE, cursor, include_superseded: state.ended ? 1 : undefined } });
  return { memories: found.memories, next: found.next_cursor };
}

function json(filters) { return Object.keys(filters).length ? JSON.stringify(filters) : undefined; }

function table(memories, mode) {
  if (!memories.length) return h("p", { class: "muted" }, "No memories match.");
  return h("table", { class: "memories" },
    h("thead", {}, h("tr", {}, ["Memory", "Type", "Tags", "Template", "Created", "Weight", mode === "search" ? "Score" : null]
      .filter(Boolean).map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, memories.map((m) => h("tr", { class: m.validity && m.validity.valid_until ? "superseded" : "" },
      h("td", {}, h("a", { href: `#/memory/${encodeURIComponent(m.id)}` }, m.title || excerpt(m.content)), successor(m)),
      h("td", {}, m.type),
      h("td", {}, m.tags.map((t) => h("span", { class: "tag" }, t))),
      h("td", {}, m.template_id || ""),
      h("td", {}, when(m.created_at)),
      h("td", {}, m.weight.toFixed(2)),
      mode === "search" ? h("td", {}, m.score.toFixed(3)) : null))));
}

// An ended memory's row says so, and links to the memory that replaced it.
function successor(m) {
  const v = m.validity || {};
  if (!v.valid_until) return null;
  const next = v.superseded_by ? h("a", { href: `#/memory/${encodeURIComponent(v.superseded_by)}` }, "replaced →") : "ended";
  return h("span", { class: "muted" }, " (", next, ")");
}

export function excerpt(text) { return text.length > 80 ? `${text.slice(0, 80)}…` : text || "(no text)"; }
