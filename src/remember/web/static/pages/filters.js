// The filter builder of the memories page: a form whose values become an expression of the
// filter language (docs/filters.md), including conditions on a chosen template's fields.

import { api } from "../api.js";
import { clear, errorBox, h, labelled } from "../ui.js";

const OPERATORS = {
  string: ["eq", "ne", "contains", "exists"], text: ["contains", "eq", "ne", "exists"],
  enum: ["eq", "ne", "exists"], number: ["gte", "lte", "eq", "ne", "gt", "lt", "exists"],
  integer: ["gte", "lte", "eq", "ne", "gt", "lt", "exists"], date: ["gte", "lte", "eq", "gt", "lt", "exists"],
  boolean: ["eq", "exists"], array: ["contains", "exists"],
};
const OPERATOR_WORDS = { eq: "is", ne: "is not", gt: "more than", gte: "at least", lt: "less than",
  lte: "at most", contains: "contains", exists: "is filled in" };

const NARROW = window.matchMedia("(max-width: 640px)");

// A builder bound to `onChange(expression)`; `node` is its form part.
export function filterBuilder(onChange) {
  const type = h("input", { type: "text", name: "type", size: 12 });
  const tags = h("input", { type: "text", name: "tags", size: 20 });
  const tagsMatch = h("select", { name: "tags_match" }, h("option", { value: "any" }, "any"), h("option", { value: "all" }, "all"));
  const template = h("select", { name: "template" }, h("option", { value: "" }, "Any template"));
  const after = h("input", { type: "date", name: "created_after" });
  const before = h("input", { type: "date", name: "created_before" });
  const weight = h("input", { type: "number", name: "weight", min: 0, max: 1, step: 0.05, size: 5 });
  const fieldRows = h("div", { class: "filter-fields" });
  const shown = h("pre", { class: "filter-expression", "aria-label": "Filter expression" }, "{}");
  let fields = [];

  const build = () => {
    const out = {};
    if (type.value.trim()) out.type = type.value.trim();
    const tagList = tags.value.split(",").map((t) => t.trim()).filter(Boolean);
    if (tagList.length) out.tags = { [tagsMatch.value]: tagList };
    if (template.value) out.template_id = template.value;
    const created = {};
    if (after.value) created.gte = after.value;
    if (before.value) created.lt = before.value;
    if (Object.keys(created).length) out.created_at = created;
    if (weight.value !== "") out.weight = { gte: Number(weight.value) };
    for (const f of fields) {
      const condition = f.condition();
      if (condition) out[`structured_content.${f.name}`] = condition;
    }
    return out;
  };
  const changed = () => { const expression = build(); shown.textContent = JSON.stringify(expression, null, 1); onChange(expression); };

  const loadFields = async () => {
    fields = [];
    clear(fieldRows);
    if (!template.value) { changed(); return; }
    let found;
    try {
      found = await api(`/api/memory-templates/${encodeURIComponent(template.value)}`);
    } catch (error) {
      clear(fieldRows, errorBox(error));
      return;
    }
    fields = found.fields.map((f) => fieldRow(f, changed));
    clear(fieldRows, h("h3", {}, "Template fields"), fields.map((f) => f.node));
    changed();
  };
  template.addEventListener("change", loadFields);
  for (const control of [type, tags, tagsMatch, after, before, weight]) control.addEventListener("input", changed);

  const listed = api("/api/memory-templates").then((found) => {
    for (const t of found.templates) template.append(h("option", { value: t.id }, t.name));
  }).catch((error) => fieldRows.append(errorBox(error)));

  // The controls set from an expression this builder made (the address of a search keeps it).
  const set = async (expression) => {
    const e = expression || {};
    type.value = typeof e.type === "string" ? e.type : "";
    const match = e.tags && Array.isArray(e.tags.all) ? "all" : "any";
    tagsMatch.value = match;
    tags.value = e.tags && Array.isArray(e.tags[match]) ? e.tags[match].join(", ") : "";
    after.value = (e.created_at && e.created_at.gte) || "";
    before.value = (e.created_at && e.created_at.lt) || "";
    weight.value = e.weight && e.weight.gte !== undefined ? String(e.weight.gte) : "";
    await listed;
    const wanted = typeof e.template_id === "string" ? e.template_id : "";
    if (wanted && ![...template.options].some((o) => o.value === wanted)) template.append(h("option", { value: wanted }, wanted));
    if (template.value !== wanted || (wanted && !fields.length)) {
      template.value = wanted;
      await loadFields();
    }
    for (const f of fields) f.set(e[`structured_content.${f.name}`]);
    changed();
  };

  // Folded on a phone unless a filter is set, so the results are not a long scroll away.
  const node = h("details", { class: "filter-builder", open: !NARROW.matches },
    h("summary", {}, "Filters"),
    h("div", { class: "row" },
      labelled("Type", type), labelled("Tags (comma separated)", tags), labelled("Tags match", tagsMatch),
      labelled("Template", template), labelled("Created from", after), labelled("Created before", before),
      labelled("Weight at least", weight)),
    fieldRows,
    h("div", {}, h("span", { class: "muted" }, "Filter expression"), shown),
  );
  const setAndOpen = async (expression) => {
    await set(expression);
    if (Object.keys(expression || {}).length) node.open = true;
  };
  return { node, build, set: setAndOpen };
}

function fieldRow(field, changed) {
  const kind = OPERATORS[field.type] ? field.type : "string";
  const op = h("select", { name: `op-${field.name}` }, OPERATORS[kind].map((o) => h("option", { value: o }, OPERATOR_WORDS[o])));
  const value = valueControl(field);
  const condition = () => {
    if (op.value === "exists") return value.value === "" ? null : { exists: value.value !== "false" };
    if (value.value === "") return null;
    return { [op.value]: typed(field, value.value) };
  };
  op.addEventListener("change", changed);
  value.addEventListener("input", changed);
  value.addEventListener("change", changed);
  const node = h("div", { class: "row" },
    labelled(`${field.label || field.name}: condition`, op), labelled(`${field.label || field.name}: value`, value));
  const set = (given) => {
    const [name, wanted] = given && typeof given === "object" ? Object.entries(given)[0] || [] : [];
    op.value = OPERATORS[kind].includes(name) ? name : OPERATORS[kind][0];
    value.value = wanted === undefined || wanted === null || name !== op.value ? "" : String(wanted);
  };
  return { name: field.name, condition, node, set };
}

function valueControl(field) {
  if (field.type === "enum") {
    return h("select", { name: `value-${field.name}` }, h("option", { value: "" }, "—"), (field.options || []).map((o) => h("option", { value: o }, o)));
  }
  if (field.type === "boolean") {
    return h("select", { name: `value-${field.name}` }, h("option", { value: "" }, "—"), h("option", { value: "true" }, "yes"), h("option", { value: "false" }, "no"));
  }
  const type = field.type === "number" || field.type === "integer" ? "number" : field.type === "date" ? "date" : "text";
  return h("input", { type, name: `value-${field.name}`, size: 14 });
}

function typed(field, text) {
  if (field.type === "number" || field.type === "integer") return Number(text);
  if (field.type === "boolean") return text === "true";
  return text;
}
