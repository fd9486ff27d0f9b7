// The memories: a hybrid search (alpha from keywords to meaning) with the filter builder,
// or, without a query, the memories page by page (keyset cursors: next and previous).
// The search, its filters and the page live in the address (#/memories?q=…&filters=…), so
// Back, reload and a shared link show the same results: the form only writes the address,
// and the results are drawn from it.

import { setQuery } from "../app.js";
import { api } from "../api.js";
import { severalShown, spaceName, spaces } from "../space.js";
import { announce, clear, counted, errorBox, h, labelled, stacked, when } from "../ui.js";
import { filterBuilder } from "./filters.js";
import { selection } from "./selection.js";

const PAGE = 20;
const BY = [["both", "Both (a blend chosen each time)"], ["words", "Words"], ["meaning", "Meaning"]];
const CURSORS = ".";  // joins the cursors of the pages before this one (cursors are URL-safe base64)

let shown = null;  // the page's controls, for update()

export async function render(root, args, query) {
  const box = h("input", { type: "search", name: "q", size: 40, placeholder: "What are you looking for?" });
  // Alpha is chosen for each search unless "Auto" is unchecked; then the slider's value is sent.
  const auto = h("input", { type: "checkbox", id: "alpha-auto", name: "alpha_auto", checked: true });
  const alpha = h("input", { type: "range", id: "alpha", name: "alpha", min: 0, max: 1, step: 0.1, value: 0.3, disabled: true });
  const alphaShown = h("output", { for: "alpha" }, "auto");
  // The plain choice (both, words, meaning) and the number (under the filters) say the same thing.
  const how = h("fieldset", { class: "choice" }, h("legend", {}, "Match by"),
    BY.map(([value, text]) => h("label", { class: "inline" }, h("input", { type: "radio", name: "by", value }), ` ${text} `)));
  const showAlpha = () => {
    alpha.disabled = auto.checked;
    alphaShown.textContent = auto.checked ? "auto" : alpha.value;
    const by = auto.checked ? "both" : Number(alpha.value) === 0 ? "words" : Number(alpha.value) === 1 ? "meaning" : null;
    for (const radio of how.querySelectorAll("input")) radio.checked = radio.value === by;
  };
  how.addEventListener("change", () => {
    const by = how.querySelector("input:checked").value;
    auto.checked = by === "both";
    if (by !== "both") alpha.value = by === "words" ? "0" : "1";
    showAlpha();
  });
  alpha.addEventListener("input", showAlpha);
  auto.addEventListener("change", showAlpha);
  const results = h("div", { class: "results" });
  const ended = h("input", { type: "checkbox", id: "include-superseded", name: "include_superseded" });
  const builder = filterBuilder(() => {});
  const chosen = selection(() => update(new URLSearchParams(location.hash.split("?")[1] || "")));
  const controls = { query: box, auto, alpha, alphaShown, showAlpha, ended, results, builder, chosen, asked: 0 };
  shown = controls;

  const form = h("form", { class: "search", onsubmit: (event) => {
    event.preventDefault();
    const params = {};
    const text = box.value.trim();
    if (text) params.q = text;
    if (text && !auto.checked) params.alpha = alpha.value;
    const filters = json(builder.build());
    if (filters) params.filters = filters;
    if (ended.checked) params.include_superseded = "1";
    if (!setQuery(params)) update(new URLSearchParams(params));  // the same search again: run it again
  } },
    h("div", { class: "row" }, labelled("Search", box), how, labelled("Also what has ended", ended),
      h("button", { type: "submit" }, "Search")),
    builder.node);
  builder.node.append(h("div", { class: "row alpha" },
    labelled("Auto alpha", auto),
    labelled("Alpha: 0 = by keywords, 1 = by meaning", alpha),
    h("div", { class: "control" }, h("span", { class: "muted" }, "alpha "), alphaShown)));
  clear(root, h("h1", {}, "Memories"), form, h("h2", {}, "Results"), chosen.node, results);
  update(query);  // not awaited: the form is ready (and "/" may focus its search) while the results load
}

// Show what the address asks for: the controls set from it, then its page of results.
export async function update(query) {
  const c = shown;
  const state = stateOf(query);
  c.query.value = state.q;
  c.auto.checked = state.alpha === undefined;
  if (state.alpha !== undefined) c.alpha.value = state.alpha;
  c.showAlpha();
  c.ended.checked = state.ended;
  await c.builder.set(state.filters);
  const mine = ++c.asked;
  try {
    const found = state.q ? await searched(state) : await listed(state);
    if (mine !== c.asked) return;  // a newer address answered first
    if (found.alpha !== undefined && state.alpha === undefined) c.alphaShown.textContent = `auto (${found.alpha.toFixed(2)} for this search)`;
    const named = (await severalShown()) ? await spaces() : null;  // each row names its space when several are shown
    if (mine !== c.asked) return;
    clear(c.results, table(found.memories, found.names, state.q ? "search" : "list", c.chosen.checkbox, named), pager(query, state, found.next));
    announce(`${counted(found.memories.length, "memory")} shown, page ${state.page}.`);
  } catch (error) {
    if (mine === c.asked) clear(c.results, errorBox(error));
  }
}

function stateOf(query) {
  const q = (query.get("q") || "").trim();
  const alpha = query.has("alpha") ? query.get("alpha") : undefined;
  let filters = {};
  try { filters = JSON.parse(query.get("filters") || "{}"); } catch (e) { filters = {}; }
  if (!filters || typeof filters !== "object" || Array.isArray(filters)) filters = {};
  const before = (query.get("after") || "").split(CURSORS).filter(Boolean);
  const offset = Math.max(0, Number.parseInt(query.get("offset") || "0", 10) || 0);
  const page = q ? Math.floor(offset / PAGE) + 1 : before.length + 1;
  const ended = query.get("include_superseded") === "1";
  const space = query.get("space") || undefined;
  return { q, alpha, filters, filtersText: query.get("filters") || undefined, before, offset, page, ended, space };
}

function pager(query, state, next) {
  const moved = (change) => () => {
    const params = new URLSearchParams(query);
    change(params);
    setQuery(params);
  };
  const forward = state.q
    ? moved((p) => p.set("offset", String(next)))
    : moved((p) => p.set("after", [...state.before, next].join(CURSORS)));
  const back = state.q
    ? moved((p) => { const o = state.offset - PAGE; if (o > 0) p.set("offset", String(o)); else p.delete("offset"); })
    : moved((p) => { const b = state.before.slice(0, -1); if (b.length) p.set("after", b.join(CURSORS)); else p.delete("after"); });
  return h("nav", { class: "pager", "aria-label": "Pages" },
    h("button", { type: "button", class: "secondary", disabled: state.page < 2, onclick: back }, "Previous page"),
    h("span", { class: "muted" }, ` Page ${state.page} `),
    h("button", { type: "button", class: "secondary", disabled: next === null, onclick: forward }, "Next page"));
}

async function searched(state) {
  const found = await api("/api/search", { query: { q: state.q, alpha: state.alpha, filters: state.filtersText, limit: PAGE, offset: state.offset, include_superseded: state.ended ? 1 : undefined, space: state.space } });
  return { memories: found.results.map((r) => ({ ...r.memory, score: r.score })), names: found.template_names, next: found.has_more ? state.offset + found.results.length : null, alpha: found.alpha };
}

async function listed(state) {
  const cursor = state.before[state.before.length - 1];
  const found = await api("/api/memories", { query: { filters: state.filtersText, limit: PAGE, cursor, include_superseded: state.ended ? 1 : undefined, space: state.space } });
  return { memories: found.memories, names: found.template_names, next: found.next_cursor };
}

function json(filters) { return Object.keys(filters).length ? JSON.stringify(filters) : undefined; }

function table(memories, names, mode, checkbox, named) {
  if (!memories.length) return h("p", { class: "muted" }, "No memories match.");
  return stacked(h("table", { class: "memories" },
    h("thead", {}, h("tr", {}, ["Memory", named ? "Space" : null, "Type", "Tags", "Template", "Created", "Weight", mode === "search" ? "Score" : null]
      .filter(Boolean).map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, memories.map((m) => h("tr", { class: m.validity && m.validity.valid_until ? "superseded" : "" },
      h("td", {}, checkbox(m, m.title || excerpt(m.content)), " ", h("a", { href: `#/memory/${encodeURIComponent(m.id)}` }, m.title || excerpt(m.content)), successor(m)),
      named ? h("td", {}, spaceName(named, m.space)) : null,
      h("td", {}, m.type),
      h("td", {}, m.tags.map((t) => h("span", { class: "tag" }, t))),
      h("td", {}, m.template_id ? names[m.template_id] || m.template_id : ""),
      h("td", {}, when(m.created_at)),
      h("td", {}, m.weight.toFixed(2)),
      mode === "search" ? h("td", {}, m.score.toFixed(3)) : null)))));
}

// An ended memory's row says so, and links to the memory that replaced it.
function successor(m) {
  const v = m.validity || {};
  if (!v.valid_until) return null;
  const next = v.superseded_by ? h("a", { href: `#/memory/${encodeURIComponent(v.superseded_by)}` }, "replaced →") : "ended";
  return h("span", { class: "muted" }, " (", next, ")");
}

export function excerpt(text) { return text.length > 80 ? `${text.slice(0, 80)}…` : text || "(no text)"; }
