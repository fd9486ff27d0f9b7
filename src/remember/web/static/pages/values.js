// A memory's template fields as a person reads them: in the template's order, under their
// labels, lists as chips or bullets and objects as nested lists, never as JSON.

import { h } from "../ui.js";

// [name, value, field] for each value of `content`: the template's fields first, in their order,
// then any value the template does not define (field null).
export function orderedEntries(content, fields = []) {
  const known = fields.filter((f) => f.name in content).map((f) => [f.name, content[f.name], f]);
  const names = new Set(fields.map((f) => f.name));
  const rest = Object.keys(content).filter((k) => !names.has(k)).map((k) => [k, content[k], null]);
  return [...known, ...rest];
}

export function fieldLabel(name, field) {
  return field ? field.label || name : `${name} (not in the template)`;
}

const isScalar = (v) => v === null || ["string", "number", "boolean"].includes(typeof v);

export function valueView(value, field) {
  if (value === null || value === undefined || value === "") return h("span", { class: "muted" }, "—");
  if (Array.isArray(value)) {
    if (!value.length) return h("span", { class: "muted" }, "none");
    if (value.every(isScalar)) return h("ul", { class: "chips" }, value.map((v) => h("li", { class: "tag" }, scalar(v))));
    const items = { name: "item", fields: (field && field.fields) || [] };
    return h("ul", { class: "bullets" }, value.map((v) => h("li", {}, valueView(v, items))));
  }
  if (typeof value === "object") {
    const entries = orderedEntries(value, (field && field.fields) || []);
    return h("dl", { class: "nested" }, entries.map(([k, v, f]) => [h("dt", {}, f ? f.label || k : k), h("dd", {}, valueView(v, f))]));
  }
  return scalar(value);
}

function scalar(value) {
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}
