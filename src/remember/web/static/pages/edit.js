// A memory's edit form: its fields and its template's fields, sent as one change with the
// version it was read at. Every problem the server finds is shown next to its control.

import { api } from "../api.js";
import { announce, clear, errorBox, h, labelled, okBox } from "../ui.js";
import { chipInput } from "./chips.js";
import { contextPart } from "./context-edit.js";
import { validityPart } from "./validity-edit.js";

const SCALARS = ["title", "type", "weight", "trust"];

// `template`: the memory's template as /api/memory-templates/{id} answers (null without one).
export async function editForm(memory, template, onSaved) {
  const fields = template ? template.fields : [];
  const controls = {
    title: h("input", { type: "text", name: "title", size: 50, value: memory.title || "" }),
    content: h("textarea", { name: "content", rows: 5 }, memory.content),
    type: h("input", { type: "text", name: "type", size: 16, value: memory.type }),
    weight: h("input", { type: "number", name: "weight", step: "any", value: memory.weight }),
    trust: h("input", { type: "number", name: "trust", step: "any", value: memory.trust }),
    tags: h("input", { type: "text", name: "tags", size: 40, value: memory.tags.join(", ") }),
  };
  const reason = h("input", { type: "text", name: "reason", size: 50 });
  const structured = memory.structured_content || {};
  const fieldControls = Object.fromEntries(fields.filter((f) => f.type !== "computed").map((f) => [f.name, fieldControl(f, structured[f.name])]));
  const problems = {};
  const wrap = (key, text, control, list, hint) => {
    const box = labelled(text, control, hint);
    if (list) box.insertBefore(list, control);
    problems[key] = h("div", { class: "field-error", id: `${control.id}-error` });
    box.append(problems[key]);
    return box;
  };
  const summary = h("div");
  const where = contextPart(memory, wrap);
  const span = validityPart(memory, wrap);
  const form = h("form", { class: "edit", novalidate: true, onsubmit: async (event) => {
    event.preventDefault();
    clearProblems(problems, summary, { ...controls, ...where.controls, ...span.controls }, fieldControls);
    const changes = { ...changesOf(memory, controls, fields, fieldControls), ...where.changes(), ...span.changes() };
    if (!Object.keys(changes).length) { clear(summary, okBox("Nothing changed.")); return; }
    try {
      await api(`/api/memories/${encodeURIComponent(memory.id)}`, {
        method: "PATCH", body: { version: memory.version, changes, reason: reason.value || undefined } });
      announce("Saved.");
      await onSaved();
    } catch (error) {
      clear(summary, errorBox(error));
      const placed = { context: where.controls.timestamp, "context.source": where.controls.source, "context.participants": where.controls.participants,
        location: where.controls.address, "location.lat": where.controls.lat, "location.lon": where.controls.lon, references: where.controls.references };
      showProblems(error.errors, problems, { ...controls, reason, ...placed, ...span.controls, ...prefixed(fieldControls) }, "structured_content" in changes);
    }
  } },
    h("h2", { id: "edit-h" }, "Edit"),
    wrap("title", "Title", controls.title), wrap("content", "Content", controls.content),
    h("div", { class: "row" }, wrap("type", "Type", controls.type), wrap("weight", "Weight (0 to 1)", controls.weight),
      wrap("trust", "Trust (0 to 1)", controls.trust)),
    wrap("tags", "Tags (comma separated)", controls.tags),
    where.node,
    span.node,
    fields.length ? h("fieldset", {}, h("legend", {}, `${template.name} fields`),
      Object.values(fieldControls).map((c) => wrap(`field:${c.field.name}`, c.field.label || c.field.name, c.node, c.list, c.hint))) : null,
    wrap("reason", "Reason for the change (kept in the history)", reason),
    summary,
    h("p", {}, h("button", { type: "submit" }, "Save changes")));
  return form;
}

// A list of plain values is edited as chips; a list of objects, or an object, as JSON text.
export function fieldControl(field, value) {
  if (field.type === "array" && field.item_type !== "object" && !(field.fields || []).length) {
    const chips = chipInput(`field-${field.name}`, field.label || field.name, value, field.item_type);
    return { node: chips.input, list: chips.list, hint: chips.hint, field, read: chips.read };
  }
  let node;
  if (field.type === "enum") {
    node = h("select", { name: `field-${field.name}` }, h("option", { value: "" }, "—"),
      (field.options || []).map((o) => h("option", { value: o, selected: o === value }, o)));
  } else if (field.type === "boolean") {
    node = h("select", { name: `field-${field.name}` }, h("option", { value: "" }, "—"),
      h("option", { value: "true", selected: value === true }, "yes"), h("option", { value: "false", selected: value === false }, "no"));
  } else if (field.type === "number" || field.type === "integer") {
    node = h("input", { type: "number", step: "any", name: `field-${field.name}`, value: value ?? "" });
  } else if (field.type === "array" || field.type === "object") {
    node = h("input", { type: "text", size: 50, name: `field-${field.name}`, value: value === undefined ? "" : JSON.stringify(value) });
  } else {
    node = h("input", { type: "text", size: 40, name: `field-${field.name}`, value: value ?? "" });
  }
  return { node, field, read: () => readField(field, node.value) };
}

function readField(field, text) {
  if (text === "") return null;
  if (field.type === "number" || field.type === "integer") return Number(text);
  if (field.type === "boolean") return text === "true";
  if (field.type === "array" || field.type === "object") {
    try { return JSON.parse(text); } catch (e) { return text; }  // the server says what is wrong with it
  }
  return text;
}

function changesOf(memory, controls, fields, fieldControls) {
  const changes = {};
  const title = controls.title.value;
  if (title !== (memory.title || "")) changes.title = title === "" ? null : title;
  if (controls.content.value !== memory.content) changes.content = controls.content.value;
  for (const key of SCALARS.slice(1)) {
    const raw = controls[key].value;
    const value = key === "type" ? raw : raw === "" ? raw : Number(raw);
    if (String(value) !== String(memory[key])) changes[key] = value;
  }
  const tags = controls.tags.value.split(",").map((t) => t.trim()).filter(Boolean);
  if (tags.join("\n") !== memory.tags.join("\n")) changes.tags = tags;
  const before = memory.structured_content || {};
  const structured = {};
  for (const [name, c] of Object.entries(fieldControls)) {
    const value = c.read();
    if (JSON.stringify(value) !== JSON.stringify(before[name] ?? null)) structured[name] = value;
  }
  if (Object.keys(structured).length) changes.structured_content = structured;
  return changes;
}

function prefixed(fieldControls) {
  return Object.fromEntries(Object.entries(fieldControls).map(([name, c]) => [`field:${name}`, c.node]));
}

// A problem's field ("weight", "tags[0]", "structured_content.rating", or a template field's
// name) goes to the control it is about; the rest stays in the summary above the button.
// A template field named like a memory field ("title") takes the problem when template fields were sent.
function showProblems(errors, problems, controls, sentFields) {
  for (const e of errors || []) {
    const name = String(e.field || "");
    const root = name.replace(/^structured_content\./, "").split(/[.[]/)[0];
    const templated = problems[`field:${root}`] && (sentFields || name.startsWith("structured_content"));
    const key = templated ? `field:${root}` : problems[name] ? name : problems[root] ? root : null;
    if (!key) continue;
    problems[key].append(h("div", {}, e.message));
    controls[key].setAttribute("aria-invalid", "true");
    controls[key].setAttribute("aria-describedby", problems[key].id);
  }
}

function clearProblems(problems, summary, controls, fieldControls) {
  clear(summary);
  for (const p of Object.values(problems)) clear(p);
  for (const c of [...Object.values(controls), ...Object.values(fieldControls).map((f) => f.node)]) c.removeAttribute("aria-invalid");
}
