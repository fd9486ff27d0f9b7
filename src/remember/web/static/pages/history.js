// A memory's history: each version rebuilt from the current one and the replaced values each
// change kept, and a diff between two chosen versions (words removed and added).

import { clear, h, labelled, stacked, when } from "../ui.js";

const SHOWN = ["title", "content", "type", "weight", "trust", "tags", "references", "template_id",
  "structured_content", "location", "context", "deleted_at"];

// Version number -> the memory's fields at that version, newest first.
export function versions(memory) {
  const out = new Map();
  let state = pick(memory);
  out.set(memory.version, state);
  for (const entry of memory.history || []) {
    state = { ...state, ...entry.previous };
    out.set(entry.version, state);
  }
  return out;
}

function pick(memory) { return Object.fromEntries(SHOWN.map((k) => [k, memory[k] ?? null])); }

export function historySection(memory) {
  const all = versions(memory);
  const numbers = [...all.keys()];
  const section = h("section", { "aria-labelledby": "history-h" }, h("h2", { id: "history-h" }, "History"));
  if (!memory.history || !memory.history.length) {
    section.append(h("p", { class: "muted" }, "No changes yet: this is the first version."));
    return section;
  }
  // In a shared space each change names the member who made it.
  const by = Boolean(memory.space);
  section.append(stacked(h("table", {},
    h("thead", {}, h("tr", {}, ["Version replaced", "Change", "When", by ? "By" : null, "Fields", "Reason"].filter(Boolean).map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, memory.history.map((e) => h("tr", {},
      h("td", {}, String(e.version)), h("td", {}, e.action), h("td", {}, when(e.at)), by ? h("td", {}, e.by || "—") : null,
      h("td", {}, Object.keys(e.previous).join(", ")), h("td", {}, e.reason || "")))))));
  const from = versionSelect(numbers, numbers[1]);
  const to = versionSelect(numbers, numbers[0]);
  const out = h("div", { class: "diff" });
  const show = () => clear(out, diffTable(all.get(Number(from.value)), all.get(Number(to.value))));
  from.addEventListener("change", show);
  to.addEventListener("change", show);
  section.append(h("div", { class: "row" }, labelled("Compare version", from), labelled("with version", to)), out);
  show();
  return section;
}

function versionSelect(numbers, chosen) {
  return h("select", {}, numbers.map((n) => h("option", { value: n, selected: n === chosen }, `version ${n}`)));
}

function diffTable(before, after) {
  before = flat(before); after = flat(after);
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changed = keys.filter((k) => text(before[k]) !== text(after[k]));
  if (!changed.length) return h("p", { class: "muted" }, "These versions are the same.");
  return h("table", { "aria-label": "Differences" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Field"), h("th", { scope: "col" }, "Change"))),
    h("tbody", {}, changed.map((k) => h("tr", {}, h("td", {}, k), h("td", {}, wordDiff(text(before[k]), text(after[k])))))));
}

// Template fields compared one by one: structured_content.<field> rows.
function flat(state) {
  const out = { ...state };
  delete out.structured_content;
  for (const [k, v] of Object.entries(state.structured_content || {})) out[`structured_content.${k}`] = v;
  return out;
}

function text(value) {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

// Words of `a` and `b` by their longest common subsequence: removed ones struck, added ones marked.
export function wordDiff(a, b) {
  const x = a.split(/(\s+)/), y = b.split(/(\s+)/);
  if (x.length * y.length > 250000) return [h("del", { class: "diff-del" }, a), " ", h("ins", { class: "diff-add" }, b)];
  const table = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      table[i][j] = x[i] === y[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const parts = [];
  let i = 0, j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) { parts.push(x[i]); i++; j++; }
    else if (i < x.length && (j === y.length || table[i + 1][j] >= table[i][j + 1])) { parts.push(h("del", { class: "diff-del" }, x[i])); i++; }
    else { parts.push(h("ins", { class: "diff-add" }, y[j])); j++; }
  }
  return parts;
}
