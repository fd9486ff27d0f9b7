// One memory (#/memory/<id>): its fields, template fields and tags, its history with a diff
// between versions, its relationships as a graph and a list, an edit form, and delete.

import { api } from "../api.js";
import { spaceOf, withSpace } from "../space.js";
import { announce, clear, counted, errorBox, h, labelled, stacked, when } from "../ui.js";
import { duplicatesSection } from "./duplicates.js";
import { editForm } from "./edit.js";
import { graphView } from "./graph.js";
import { historySection } from "./history.js";
import { relateForm } from "./relate.js";
import { endedNotice, timelineSection, validityRows } from "./timeline.js";
import { excerpt } from "./memories.js";
import { fieldLabel, orderedEntries, valueView } from "./values.js";

export async function render(root, args, query = new URLSearchParams()) {
  const id = args[0] || "";
  let memory;
  try {
    memory = await api(`/api/memories/${encodeURIComponent(id)}`);
  } catch (error) {
    if (error.status !== 404 && error.status !== 422) throw error;
    clear(root, h("h1", {}, "Memory not found"), errorBox(error), h("p", {}, h("a", { href: "#/memories" }, "Back to the memories.")));
    return;
  }
  const again = () => render(root, args);
  const template = memory.template_id ? await templateOf(memory.template_id) : null;
  const space = await spaceOf(memory.space);
  // A reader of the memory's space sees it read-only, and why: the server would refuse the change anyway.
  const readOnly = Boolean(memory.space) && (!space || space.role === "reader");
  const changes = !memory.deleted_at && !readOnly;
  clear(root,
    h("p", {}, h("a", { href: "#/memories" }, "← Memories")),
    h("h1", {}, memory.title || excerpt(memory.content)),
    readOnly ? h("div", { class: "note", role: "note" }, `You are a reader in space ${space ? space.name : memory.space}: `,
      "you can read this memory; only its writers and admins change it. Ask one of its admins for another role.") : null,
    memory.deleted_at ? h("div", { class: "error", role: "note" }, `In the trash since ${when(memory.deleted_at)}. `, h("a", { href: "#/trash" }, "Restore it from the trash.")) : null,
    endedNotice(memory),
    merged(query),
    changes ? await duplicatesSection(memory) : null,
    h("div", { class: "grid2" },
      h("div", {}, fieldsSection(memory, template, space), structuredSection(memory, template), timelineSection(memory)),
      h("div", {}, await relationshipsSection(memory))),
    historySection(memory),
    changes ? await editForm(memory, template, again) : null,
    changes ? relateForm(memory, again) : null,
    changes ? deleteButton(memory) : null);
}

// After a merge the kept memory's page says where the other went.
function merged(query) {
  const other = query.get("merged");
  if (!other) return null;
  return h("div", { class: "ok", role: "status" }, "Merged: the other memory is in the trash, where it can be restored. ",
    h("a", { href: "#/trash" }, "Open the trash."));
}

async function templateOf(templateId) {
  try {
    return await api(`/api/memory-templates/${encodeURIComponent(templateId)}`);
  } catch (error) {
    return null;  // a deleted template: its values are shown by name, and edited no more
  }
}

function templateCell(memory, template) {
  if (!memory.template_id) return "none";
  if (!template) return h("code", {}, memory.template_id);
  return h("a", { href: `#/template/${encodeURIComponent(template.id)}` }, template.name);
}

function fieldsSection(memory, template, space) {
  // Who stored it and in which space: a shared memory's only (in one's personal space, one did it all).
  const shared = memory.space ? [["Space", h("a", { href: `#/space/${encodeURIComponent(memory.space)}` }, space ? space.name : memory.space)],
    ["Stored by", memory.created_by || "—"]] : [];
  const rows = [
    ["Content", h("div", { class: "content" }, memory.content)], ...shared,
    ["Type", memory.type], ["Tags", memory.tags.length ? memory.tags.map((t) => h("span", { class: "tag" }, t)) : "none"],
    ["Weight", memory.weight], ["Trust", memory.trust], ["Template", templateCell(memory, template)],
    ["Follows its template", memory.template_compliance === null || memory.template_compliance === undefined ? "—" : memory.template_compliance ? "yes" : "no"],
    ["References", memory.references.map((r) => h("div", {}, r))],
    ["Happened", when(memory.context && memory.context.timestamp)],
    ...validityRows(memory),
    ["Created", when(memory.created_at)], ["Updated", when(memory.updated_at)], ["Version", memory.version],
    ["Read", counted(memory.access_count, "time")], ["Id", h("code", {}, memory.id)],
  ];
  return h("section", { "aria-labelledby": "fields-h" }, h("h2", { id: "fields-h" }, "Fields"),
    h("table", { class: "fields" }, h("tbody", {}, rows.map(([k, v]) => h("tr", {}, h("th", { scope: "row" }, k), h("td", {}, v))))));
}

// The template's fields in the template's order, under their labels; lists as chips, not JSON.
function structuredSection(memory, template) {
  const content = memory.structured_content;
  if (!content) return null;
  const problems = memory.template_validation_errors || [];
  const entries = orderedEntries(content, template ? template.fields : []);
  const heading = template ? `${template.name} fields` : "Structured content";
  return h("section", { "aria-labelledby": "structured-h" }, h("h2", { id: "structured-h" }, heading),
    h("table", { class: "fields structured" }, h("tbody", {}, entries.map(([k, v, f]) =>
      h("tr", {}, h("th", { scope: "row" }, template ? fieldLabel(k, f) : k), h("td", {}, valueView(v, f)))))),
    problems.length ? h("ul", { class: "field-error" }, problems.map((p) => h("li", {}, `${p.field}: ${p.message}`))) : null);
}

async function relationshipsSection(memory) {
  const depth = h("select", { name: "depth" }, h("option", { value: 1 }, "1"), h("option", { value: 2 }, "2"));
  const out = h("div");
  const show = async () => {
    try {
      const found = await api(`/api/memories/${encodeURIComponent(memory.id)}/related`, { query: { depth: depth.value } });
      clear(out, found.related.length ? [graphView(memory, found.related), relatedList(found.related)] : h("p", { class: "muted" }, "No relationships."));
      announce(`${counted(found.related.length, "related memory", "related memories")}.`);
    } catch (error) {
      clear(out, errorBox(error));
    }
  };
  depth.addEventListener("change", show);
  await show();
  return h("section", { "aria-labelledby": "related-h" }, h("h2", { id: "related-h" }, "Relationships"),
    labelled("Relationships away", depth), out);
}

function relatedList(related) {
  return stacked(h("table", { "aria-label": "Related memories" },
    h("thead", {}, h("tr", {}, ["Memory", "Type", "How", "Away"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, related.map((r) => h("tr", {},
      h("td", {}, h("a", { href: `#/memory/${encodeURIComponent(r.memory_id)}` }, r.title || excerpt(r.content))),
      h("td", {}, r.type), h("td", {}, r.path.map((p) => p.type).join(" → ")), h("td", {}, String(r.depth)))))));
}

function deleteButton(memory) {
  const status = h("div");
  return h("section", { "aria-labelledby": "delete-h" }, h("h2", { id: "delete-h" }, "Delete"),
    h("p", {}, h("button", { type: "button", class: "danger", onclick: async () => {
      try {
        await api(`/api/memories/${encodeURIComponent(memory.id)}`, { method: "DELETE" });
        announce("Moved to the trash.");
        location.hash = withSpace("#/trash");
      } catch (error) {
        clear(status, errorBox(error));
      }
    } }, "Move to the trash")), status);
}
