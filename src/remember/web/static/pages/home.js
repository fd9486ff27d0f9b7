// #/home, the first page: one search box that searches as you type (by words, by meaning, or
// both, chosen plainly), the memories stored last, the templates in use with their counts
// (each opens the memories made with it), and a timeline of what happened when: all of the space chosen
// in the header (all of one's spaces when none is; a memory or template then names its space).

import { api } from "../api.js";
import { inSpace, severalShown, spaceName, spaces } from "../space.js";
import { clear, counted, errorBox, h, labelled, when } from "../ui.js";
import { excerpt } from "./memories.js";

const WAIT = 300;  // ms after the last key
const RECENT = 8;
const TIMELINE = 12;
const HOW = [["auto", "Both (a blend chosen each time)", undefined], ["words", "By words", "0"], ["meaning", "By meaning", "1"]];

export async function render(root) {
  const named = (await severalShown()) ? await spaces() : null;  // each memory names its space when several are shown
  const search = searchPart(named);
  const recent = h("div");
  const templates = h("div");
  const timeline = h("div");
  clear(root, h("h1", {}, "Home"), search.node,
    h("div", { class: "grid2" },
      h("section", { "aria-labelledby": "recent-h" }, h("h2", { id: "recent-h" }, "Stored last"), recent),
      h("section", { "aria-labelledby": "used-h" }, h("h2", { id: "used-h" }, "Templates in use"), templates)),
    h("section", { "aria-labelledby": "timeline-h" }, h("h2", { id: "timeline-h" }, "What happened when"), timeline));
  await Promise.all([recentPart(recent, named), templatesPart(templates, named), timelinePart(timeline, named)]);
}

// The latest things that happened (context.timestamp, else when stored), a heading per day.
async function timelinePart(out, named) {
  try {
    const page = await api("/api/memories", { query: inSpace({ sort_by: "occurred_at", limit: TIMELINE }) });
    const days = new Map();
    for (const m of page.memories) {
      const day = new Date(m.context.timestamp).toLocaleDateString(undefined, { year: "numeric", month: "long", day: "numeric" });
      if (!days.has(day)) days.set(day, []);
      days.get(day).push(m);
    }
    clear(out, days.size ? h("ol", { class: "timeline" }, [...days].map(([day, memories]) => h("li", {},
      h("h3", {}, day), list(memories, page.template_names, named, (m) => m.context.timestamp)))) : h("p", { class: "muted" }, "Nothing yet."));
  } catch (error) { clear(out, errorBox(error)); }
}

function searchPart(named) {
  const box = h("input", { type: "search", name: "q", size: 40, autocomplete: "off", placeholder: "What are you looking for?" });
  const how = h("fieldset", { class: "choice" }, h("legend", {}, "Search"),
    HOW.map(([value, text], i) => h("label", { class: "inline" },
      h("input", { type: "radio", name: "how", value, checked: i === 0 }), ` ${text} `)));
  const found = h("div", { "aria-live": "polite" });
  let timer = null, asked = 0;
  const alpha = () => HOW.find(([value]) => value === how.querySelector("input:checked").value)[2];
  const run = async () => {
    const mine = ++asked;
    const q = box.value.trim();
    if (!q) { clear(found); return; }
    try {
      const answer = await api("/api/search", { query: inSpace({ q, alpha: alpha(), limit: RECENT }) });
      if (mine !== asked) return;
      const all = new URLSearchParams({ q, ...(alpha() === undefined ? {} : { alpha: alpha() }) });
      clear(found, answer.results.length ? list(answer.results.map((r) => r.memory), answer.template_names, named) : h("p", { class: "muted" }, "No memories match."),
        h("p", {}, h("a", { href: `#/memories?${all}` }, "All results, with filters")));
    } catch (error) { if (mine === asked) clear(found, errorBox(error)); }
  };
  const later = () => { clearTimeout(timer); timer = setTimeout(run, WAIT); };
  box.addEventListener("input", later);
  how.addEventListener("change", later);
  return { node: h("section", { class: "home-search", "aria-label": "Search" }, labelled("Search your memories", box), how, found) };
}

async function recentPart(out, named) {
  try {
    const page = await api("/api/memories", { query: inSpace({ limit: RECENT }) });
    clear(out, page.memories.length ? list(page.memories, page.template_names, named)
      : h("p", { class: "muted" }, "Nothing stored yet. ", h("a", { href: "#/memory-new" }, "Store a first memory.")));
  } catch (error) { clear(out, errorBox(error)); }
}

async function templatesPart(out, named) {
  try {
    const used = (await api("/api/analytics/templates", { query: inSpace() })).templates.filter((t) => t.usage_count > 0);
    clear(out, used.length ? h("ul", { class: "used" }, used.map((t) => h("li", {},
      h("a", { href: `#/memories?${new URLSearchParams({ filters: JSON.stringify({ template_id: t.id }) })}` }, t.name),
      named && t.space ? [" ", h("span", { class: "space-name" }, spaceName(named, t.space))] : null,
      ` ${counted(t.usage_count, "memory")}`)))
      : h("p", { class: "muted" }, "No memory made with a template yet."));
  } catch (error) { clear(out, errorBox(error)); }
}

// Memories as links, each with its template's name (or type) and a time: `at(m)`, by default when stored.
function list(memories, names, named, at = (m) => m.created_at) {
  return h("ul", { class: "recent" }, memories.map((m) => h("li", {},
    h("a", { href: `#/memory/${encodeURIComponent(m.id)}` }, m.title || excerpt(m.content)),
    named ? [" ", h("span", { class: "space-name" }, spaceName(named, m.space))] : null,
    h("span", { class: "muted" }, ` ${[m.template_id ? names[m.template_id] || m.template_id : m.type, when(at(m))].join(" · ")}`))));
}
