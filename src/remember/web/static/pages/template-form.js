// The template editor's form view: the template's attributes (name, description, category, tags,
// version, parent, identity) and its fields as rows (template-row.js) that can be added, removed
// and moved with buttons. `read()` gives the definition back in the order a person would write
// it; attributes the form does not edit (examples, trigger keywords…) are kept as they came.

import { clear, h, labelled } from "../ui.js";
import { chipInput } from "./chips.js";
import { fieldRow } from "./template-row.js";

const FIRST = ["name", "description", "version", "category", "tags", "parent_template_id", "identity"];

// `doc`: the definition as an object; `choices`: /api/templates/kinds; `parents`: [{id, name}];
// `changed()` after every edit.
export function definitionForm(doc, choices, parents, changed) {
  const shownVersion = doc.version === undefined || doc.version === null ? "" : String(doc.version);
  const text = (name, value, size) => h("input", { type: "text", name, size, value: value ?? "", oninput: changed });
  const c = {
    name: text("name", doc.name, 30),
    description: text("description", doc.description, 50),
    category: text("category", doc.category, 16),
    version: text("version", shownVersion, 6),
    parent: h("select", { name: "parent_template_id", onchange: changed }, h("option", { value: "" }, "None")),
  };
  const current = typeof doc.parent_template_id === "string" ? doc.parent_template_id : "";
  const offered = parents.some((p) => p.id === current) || !current ? parents : [...parents, { id: current, name: current }];
  for (const p of offered) c.parent.append(h("option", { value: p.id, selected: p.id === current }, p.name));
  const tags = chipInput("tags", "Tags", Array.isArray(doc.tags) ? doc.tags : [], "string");
  tags.input.addEventListener("input", changed);
  tags.input.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === ",") setTimeout(changed); });
  tags.list.addEventListener("click", changed);
  let identity = Array.isArray(doc.identity) ? [...doc.identity] : [];
  const identityBox = h("fieldset", { class: "choice identity" });

  const problems = {};
  const wrap = (key, words, control, hint, list) => {
    const box = labelled(words, control, hint);
    if (list) box.insertBefore(list, control);
    problems[key] = h("div", { class: "field-error", id: `${control.id}-problems` });
    box.append(problems[key]);
    return box;
  };
  const rowsNode = h("div", { class: "field-rows" });
  const rows = [];
  const add = h("button", { type: "button", class: "secondary", onclick: () => {
    const row = addRow({ name: "", type: "string" }, rows.length);
    changed();
    row.focus();
  } }, "Add a field");
  const fieldsProblems = h("div", { class: "field-error", "aria-live": "polite" });

  function addRow(raw, at) {
    const row = fieldRow(raw, choices, () => { renumber(); changed(); });
    row.buttons.up.addEventListener("click", () => move(row, -1));
    row.buttons.down.addEventListener("click", () => move(row, 1));
    row.buttons.remove.addEventListener("click", () => {
      const i = rows.indexOf(row);
      rows.splice(i, 1);
      row.node.remove();
      renumber();
      changed();
      (rows[Math.min(i, rows.length - 1)]?.buttons.remove || add).focus();
    });
    rows.splice(at, 0, row);
    rowsNode.insertBefore(row.node, rowsNode.children[at] || null);
    renumber();
    return row;
  }

  // A row moved one place up or down keeps the focus on the button that moved it, where it is now.
  function move(row, by) {
    const i = rows.indexOf(row);
    const j = i + by;
    if (j < 0 || j >= rows.length) return;
    rows.splice(i, 1);
    rows.splice(j, 0, row);
    rowsNode.insertBefore(row.node, by < 0 ? rows[j + 1].node : rows[j - 1].node.nextSibling);
    renumber();
    changed();
    const button = by < 0 ? row.buttons.up : row.buttons.down;
    (button.disabled ? (by < 0 ? row.buttons.down : row.buttons.up) : button).focus();
  }

  function renumber() {
    rows.forEach((r, i) => r.place(i, rows.length));
    drawIdentity();
  }

  // Identity: a box per field name; a name it holds that is no field (yet) is kept, for the engine to judge.
  function drawIdentity() {
    const names = rows.map((r) => r.name()).filter(Boolean);
    const shown = [...names, ...identity.filter((n) => !names.includes(n))];
    clear(identityBox, h("legend", {}, "Identity: the fields that name what a memory is about"),
      shown.length ? shown.map((n) => {
        const box = h("input", { type: "checkbox", name: "identity", value: n, checked: identity.includes(n), onchange: () => {
          identity = box.checked ? [...identity.filter((x) => x !== n), n] : identity.filter((x) => x !== n);
          identity.sort((a, b) => shown.indexOf(a) - shown.indexOf(b));
          changed();
        } });
        return h("label", { class: "inline" }, box, ` ${n}`);
      }) : h("span", { class: "muted" }, "Name a field first."));
    problems.identity = problems.identity || h("div", { class: "field-error" });
    identityBox.append(problems.identity);
  }

  const fields = Array.isArray(doc.fields) ? doc.fields : [];
  fields.forEach((f, i) => addRow(f && typeof f === "object" ? f : { name: String(f) }, i));

  function read() {
    const out = {};
    const set = (key, value) => { if (value !== undefined && value !== "" && !(Array.isArray(value) && !value.length)) out[key] = value; };
    set("name", c.name.value.trim());
    set("description", c.description.value);
    // A version written as a number (YAML's 1.0) is kept as written while its box is left alone.
    set("version", c.version.value === shownVersion ? doc.version : c.version.value.trim());
    set("category", c.category.value.trim());
    set("tags", tags.peek());
    set("parent_template_id", c.parent.value);
    set("identity", identity);
    for (const [key, value] of Object.entries(doc)) if (!FIRST.includes(key) && key !== "fields") out[key] = value;
    out.fields = rows.map((r) => r.read());
    return out;
  }

  // The engine's problems: each beside the row or attribute it names ("rating", "fields[2]",
  // "trip.stops", "name", "identity"); those it names nothing here are answered back.
  function showProblems(errors) {
    const byRow = rows.map(() => []);
    const left = [];
    for (const p of Object.values(problems)) clear(p);
    clear(fieldsProblems);
    for (const e of errors || []) {
      const path = String(e.field || "");
      const indexed = /^fields\[(\d+)\]/.exec(path);
      const root = path.split(/[.[]/)[0];
      const at = indexed ? Number(indexed[1]) : rows.findIndex((r) => r.name() === root);
      // A field may be named like an attribute ("name"): its row takes the problem, unless the attribute is empty.
      const attribute = root in problems && (at < 0 || (root === "name" && !c.name.value.trim()));
      if (at >= 0 && at < rows.length && (indexed || !attribute)) byRow[at].push(e.message);
      else if (root === "parent_template_id" && problems.parent) problems.parent.append(h("div", {}, e.message));
      else if (problems[root]) problems[root].append(h("div", {}, e.message));
      else if (path === "fields") fieldsProblems.append(h("div", {}, e.message));
      else left.push(e);
    }
    rows.forEach((r, i) => r.showProblems(byRow[i]));
    return left;
  }

  const node = h("div", { class: "definition-form" },
    h("fieldset", { class: "template-attributes" }, h("legend", {}, "Template"),
      h("div", { class: "row-controls" },
        wrap("name", "Name", c.name), wrap("description", "Description", c.description),
        wrap("category", "Category", c.category), wrap("version", "Version", c.version),
        wrap("parent", "Parent template (inherits its fields)", c.parent),
        wrap("tags", "Tags", tags.input, tags.hint, tags.list)),
      identityBox),
    h("h2", {}, "Fields"), fieldsProblems, rowsNode, h("p", {}, add));
  renumber();
  return { node, read, showProblems };
}
