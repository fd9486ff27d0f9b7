// A template's fields as form controls, as the New memory form shows them and the template editor
// previews them: required ones marked, and, from the template engine's answer, the fields its
// show_if conditions hide hidden and each touched field's first problem beside it.

import { clear } from "../ui.js";
import { fieldControl } from "./edit.js";

// `fields`: a template's resolved fields (with labels); `wrap(key, text, control, extra)` puts a
// control in a labelled box with a problem area at problems[key]; `changed(name)` after each edit.
export function fieldsForm(fields, wrap, { prefill = {}, changed = () => {} } = {}) {
  const rows = fields.filter((f) => f.type !== "computed").map((field) => {
    const control = fieldControl(field, prefill[field.name] ?? field.default);
    if (field.required) control.node.setAttribute("aria-required", "true");
    const text = `${field.label || field.name}${field.required ? " (required)" : ""}`;
    const box = wrap(`field:${field.name}`, text, control.node, { list: control.list, hint: control.hint || field.description });
    for (const kind of ["input", "change"]) control.node.addEventListener(kind, () => changed(field.name));
    if (control.list) control.list.addEventListener("click", () => changed(field.name));
    return { field, control, box };
  });

  // What is typed in the fields shown, empty ones left out.
  const values = () => {
    const out = {};
    for (const r of rows) {
      const value = r.control.read();
      if (!r.box.hidden && value !== null && !(Array.isArray(value) && !value.length)) out[r.field.name] = value;
    }
    return out;
  };

  // `found`: {errors, hidden_fields} as the engine answers; only the fields in `touched` show a problem.
  const show = (found, touched, problems) => {
    const hidden = new Set(found.hidden_fields || []);
    const said = new Map();
    for (const e of found.errors || []) {
      const name = String(e.field || "").split(/[.[]/)[0];
      if (touched.has(name) && !said.has(name)) said.set(name, e.message);
    }
    for (const r of rows) {
      r.box.hidden = hidden.has(r.field.name);
      clear(problems[`field:${r.field.name}`], said.get(r.field.name) || "");
      if (said.has(r.field.name)) r.control.node.setAttribute("aria-invalid", "true");
      else r.control.node.removeAttribute("aria-invalid");
    }
  };
  return { boxes: rows.map((r) => r.box), names: rows.map((r) => r.field.name), values, show };
}
