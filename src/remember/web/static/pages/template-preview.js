// The template editor's preview: the memory form the definition would make, built as the New
// memory form builds it (fields-form.js). What is typed in it is checked against the draft by the
// template engine: its show_if conditions hide fields, its messages appear beside the fields typed.

import { api } from "../api.js";
import { clear, h, labelled } from "../ui.js";
import { fieldsForm } from "./fields-form.js";

const WAIT = 300;

export function templatePreview(templateId, space) {
  const note = h("p", { class: "muted" }, "The form a memory made with this template gets, once the definition is valid.");
  const body = h("div");
  const node = h("section", { class: "preview", "aria-labelledby": "preview-h" }, h("h2", { id: "preview-h" }, "Preview"), note, body);
  let drawn = null, definition = null, form = null, problems = {}, timer = null, asked = 0;
  const touched = new Set();

  const wrap = (key, text, control, extra = {}) => {
    const box = labelled(text, control, extra.hint);
    if (extra.list) box.insertBefore(extra.list, control);
    problems[key] = h("div", { class: "field-error", id: `${control.id}-error` });
    box.append(problems[key]);
    return box;
  };

  const check = async () => {
    const mine = ++asked;
    let found;
    try {
      found = await api("/api/templates/check-content", { method: "POST", query: space ? { space } : {},
        body: { definition, template_id: templateId || undefined, content: form.values() } });
    } catch (error) { return; }  // the definition's own check says what is wrong
    if (mine === asked && form) form.show(found, touched, problems);
  };
  const changed = (name) => { touched.add(name); clearTimeout(timer); timer = setTimeout(check, WAIT); };

  // `fields`: the resolved fields (inherited ones included); drawn again only when they change,
  // so that what was typed in the preview stays.
  function draw(fields, doc) {
    definition = doc;
    clear(note, "The form a memory made with this template gets. Type in it to see the checks.");
    const key = JSON.stringify(fields);
    if (key !== drawn) {
      drawn = key;
      problems = {};
      touched.clear();
      form = fieldsForm(fields, wrap, { changed });
      clear(body, h("fieldset", { class: "preview-fields" }, h("legend", {}, "A new memory's fields"), form.boxes));
    }
    if (form) check();
  }

  function stale() {
    if (drawn !== null) clear(note, "The preview shows the last valid definition: fix the problems to bring it up to date.");
  }
  return { node, draw, stale };
}
