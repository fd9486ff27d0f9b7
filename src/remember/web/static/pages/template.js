// #/template/<id>: one template's fields (and where each comes from), its inheritance, its JSON
// Schema, its versions, and the memories made with it with their compliance with it as it is now.
// A shared space's template is shown to all its members; only its admins are offered Edit and Delete,
// the others are told why. A copy goes to the space chosen in the header where one is an admin, else
// to the personal space.

import { api } from "../api.js";
import { PERSONAL, chosenSpace, spaceOf, withSpace } from "../space.js";
import { announce, clear, errorBox, h, labelled, okBox, stacked, when } from "../ui.js";
import { FLASH as LIST_FLASH } from "./templates.js";

const PAGE = 20;
export const FLASH = "remember.template.saved";

export async function render(root, args) {
  const id = args[0];
  const t = await api(`/api/templates/${encodeURIComponent(id)}`);
  const space = await spaceOf(t.space);
  const saved = sessionStorage.getItem(FLASH);
  sessionStorage.removeItem(FLASH);
  const problems = h("div");
  clear(root,
    h("p", {}, h("a", { href: "#/templates" }, "All templates")),
    h("h1", {}, t.name),
    saved ? okBox(saved) : null,
    summary(t, space),
    await actions(t, problems),
    problems,
    h("h2", {}, "Fields"), fieldsTable(t),
    h("h2", {}, "Inheritance"), inheritance(t),
    h("h2", {}, "Versions"), await versions(t),
    h("h2", {}, "Memories made with it"), await memories(t),
    h("h2", {}, "JSON Schema"),
    h("p", { class: "muted" }, "What structured_content must look like (draft 2020-12)."),
    h("pre", { class: "schema", "aria-label": "JSON Schema" }, JSON.stringify(t.json_schema, null, 2)));
}

function summary(t, space) {
  const parent = t.parent_template_id;
  return h("dl", { class: "facts" },
    h("dt", {}, "Id"), h("dd", {}, h("code", {}, t.id)),
    h("dt", {}, "Version"), h("dd", {}, t.version),
    h("dt", {}, "Origin"), h("dd", {}, t.is_default ? "Built-in (read-only: copy it to change it)" : t.space ? `Space ${space ? space.name : t.space}` : "Yours",
      t.derived_from ? [" — copied from ", link(t.derived_from)] : null),
    parent ? [h("dt", {}, "Inherits from"), h("dd", {}, link(parent, nameOf(t, parent)))] : null,
    t.description ? [h("dt", {}, "Description"), h("dd", {}, t.description)] : null,
    h("dt", {}, "Category"), h("dd", {}, t.category),
    t.tags.length ? [h("dt", {}, "Tags"), h("dd", {}, t.tags.map((tag) => h("span", { class: "tag" }, tag)))] : null,
    h("dt", {}, "Used by"), h("dd", {}, `${t.usage_count} memor${t.usage_count === 1 ? "y" : "ies"}`));
}

function nameOf(t, id) {
  const found = t.inheritance.chain.find((c) => c.id === id);
  return found ? found.name : id;
}

function link(id, text) { return h("a", { href: `#/template/${encodeURIComponent(id)}` }, text || id); }

// Where a copy goes: the space chosen in the header when one is an admin there, else the personal space.
export async function copyInto() {
  const chosen = chosenSpace();
  if (!chosen || chosen === PERSONAL) return { space: PERSONAL, name: "your personal space" };
  const shared = await spaceOf(chosen);
  return shared && shared.role === "admin" ? { space: chosen, name: `space ${shared.name}` } : { space: PERSONAL, name: "your personal space" };
}

async function actions(t, problems) {
  const into = await copyInto();
  const copy = h("button", { type: "button", class: "secondary", title: `Copy it into ${into.name}`, onclick: async () => {
    try {
      const made = await api(`/api/templates/${encodeURIComponent(t.id)}/copy`, { method: "POST", query: { space: into.space }, body: {} });
      announce(`Copied as ${made.name}`);
      location.hash = withSpace(`#/template-edit/${encodeURIComponent(made.id)}`);
    } catch (error) { clear(problems, errorBox(error)); }
  } }, "Copy");
  if (t.is_default) return h("p", { class: "row" }, copy);
  if (!t.editable) return [h("p", { class: "muted", role: "note" }, `Read-only: ${t.read_only}`), h("p", { class: "row" }, copy)];
  const remove = h("button", { type: "button", class: "danger", onclick: async () => {
    if (!confirm(`Delete the template ${t.name}? Its memories keep their fields.`)) return;
    try {
      const done = await api(`/api/templates/${encodeURIComponent(t.id)}`, { method: "DELETE" });
      sessionStorage.setItem(LIST_FLASH, done.message);
      announce(done.message);
      location.hash = withSpace("#/templates");
    } catch (error) { clear(problems, errorBox(error)); }
  } }, "Delete");
  return h("p", { class: "row" }, h("a", { href: `#/template-edit/${encodeURIComponent(t.id)}`, class: "button" }, "Edit"), copy, remove);
}

function fieldsTable(t) {
  return stacked(h("table", {},
    h("thead", {}, h("tr", {}, ["Field", "Kind", "Description", "Defined by"].map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, t.inheritance.fields.map((f) => h("tr", {},
      h("th", { scope: "row" }, h("code", {}, f.name)),
      h("td", {}, f.summary),
      h("td", {}, f.description || ""),
      h("td", {}, f.inherited ? ["inherited from ", link(f.source, f.source_name)] : "this template",
        f.overrides.length ? h("div", { class: "muted" }, "overrides ", f.overrides.map((o, i) => [i ? ", " : "", link(o, nameOf(t, o))])) : null))))));
}

function inheritance(t) {
  const chain = t.inheritance.chain;
  if (chain.length === 1) return h("p", { class: "muted" }, "This template inherits from no other.");
  return h("ol", { class: "chain", "aria-label": "Inheritance chain, the root first" },
    chain.map((c) => h("li", {}, c.id === t.id ? h("strong", {}, `${c.name} (this template)`) : link(c.id, c.name),
      ` — version ${c.version}`, c.is_default ? " (built-in)" : "")));
}

async function versions(t) {
  const found = await api(`/api/templates/${encodeURIComponent(t.id)}/versions`);
  return stacked(h("table", {},
    h("thead", {}, h("tr", {}, ["Version", "Saved", "What changed"].map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, found.versions.map((v) => h("tr", {},
      h("td", {}, v.version), h("td", {}, v.at ? when(v.at) : (found.is_default ? "shipped with remember" : "")),
      h("td", {}, describeChanges(v.changes),
        h("details", {}, h("summary", {}, `Definition of version ${v.version}`), h("pre", {}, JSON.stringify(v.definition, null, 2)))))))));
}

export function describeChanges(changes) {
  if (!changes) return "first version";
  const parts = [];
  if (changes.added_fields.length) parts.push(`added ${changes.added_fields.join(", ")}`);
  if (changes.removed_fields.length) parts.push(`removed ${changes.removed_fields.join(", ")}`);
  for (const f of changes.changed_fields) parts.push(`changed ${f.name} (${f.attributes.join(", ")})`);
  for (const a of changes.attributes) parts.push(`changed ${a.name}`);
  return parts.length ? parts.join("; ") : "no change but the version";
}

async function memories(t) {
  const box = h("div");
  const filter = h("select", { name: "compliance" },
    h("option", { value: "all" }, "All"), h("option", { value: "invalid" }, "Not compliant"), h("option", { value: "valid" }, "Compliant"));
  let offset = 0;
  async function load() {
    let page;
    try {
      page = await api(`/api/templates/${encodeURIComponent(t.id)}/memories`, { query: { compliance: filter.value, limit: PAGE, offset } });
    } catch (error) { clear(box, errorBox(error)); return; }
    const { valid, invalid } = page.counts;
    clear(box,
      h("p", { class: "compliance" }, `${valid} compliant, ${invalid} not compliant with version ${page.version}.`),
      page.memories.length ? memoryTable(page) : h("p", { class: "muted" }, "No memories here."),
      h("p", { class: "row" },
        h("button", { type: "button", class: "secondary", disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - PAGE); load(); } }, "Previous memories"),
        h("button", { type: "button", class: "secondary", disabled: !page.has_more, onclick: () => { offset += PAGE; load(); } }, "Next memories")));
  }
  filter.addEventListener("change", () => { offset = 0; load(); });
  await load();
  return h("div", {}, labelled("Show memories", filter), box);
}

function memoryTable(page) {
  return stacked(h("table", { "aria-label": "Memories made with this template" },
    h("thead", {}, h("tr", {}, ["Memory", "Made with version", "Complies now", "Problems"].map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, page.memories.map((m) => h("tr", {},
      h("td", {}, h("a", { href: `#/memory/${encodeURIComponent(m.id)}` }, m.title || m.excerpt || m.id)),
      h("td", {}, m.template_version || ""),
      h("td", {}, m.compliant ? "Yes" : h("strong", { class: "bad" }, "No")),
      h("td", {}, m.errors.length ? h("ul", { class: "problems" }, m.errors.map((e) => h("li", {}, h("code", {}, e.field || "(content)"), ": ", e.message))) : ""))))));
}
