// #/memory-new: a new memory, as free text or with a template. Templates that fit the text are
// suggested as it is typed (the server's suggestion service, as `remember add` uses); choosing
// one builds a form from its fields, filled with what was read from the text. While the fields
// are typed, the server's template engine checks them: its messages appear beside each field
// touched so far, and the fields its show_if conditions hide are hidden.

import { api } from "../api.js";
import { PERSONAL, chosenSpace, spaceOf, withSpace } from "../space.js";
import { announce, clear, errorBox, h, labelled } from "../ui.js";
import { chipInput } from "./chips.js";
import { fieldsForm } from "./fields-form.js";

const WAIT = 400;  // ms after the last key before asking the server

export async function render(root) {
  const back = h("p", {}, h("a", { href: "#/memories" }, "← Memories"));
  const space = chosenSpace();
  const shared = space && space !== PERSONAL ? await spaceOf(space) : undefined;
  if (shared && shared.role === "reader") {
    clear(root, back, h("h1", {}, "New memory"), h("div", { class: "error", role: "note" },
      `You are a reader in space ${shared.name}: only its writers and admins add memories there. Choose another space above, or ask one of its admins.`));
    return;
  }
  const form = newForm(space);
  const where = shared ? `It goes to space ${shared.name}.` : space === PERSONAL ? "It goes to your personal space." : null;
  clear(root, back, h("h1", {}, "New memory"), where ? h("p", { class: "muted" }, where) : null, form.node);
  await form.ready;
}

function newForm(space) {
  const problems = {};
  const controls = {
    content: h("textarea", { name: "content", rows: 5 }),
    title: h("input", { type: "text", name: "title", size: 50 }),
    type: h("input", { type: "text", name: "type", size: 16 }),
    weight: h("input", { type: "number", name: "weight", step: "any", min: 0, max: 1 }),
    trust: h("input", { type: "number", name: "trust", step: "any", min: 0, max: 1 }),
    template_id: h("select", { name: "template_id" }, h("option", { value: "" }, "None: free text")),
  };
  const tags = chipInput("tags", "Tags", [], "string");
  controls.tags = tags.input;
  const wrap = (key, text, control, extra = {}) => {
    const box = labelled(text, control, extra.hint);
    if (extra.list) box.insertBefore(extra.list, control);
    problems[key] = h("div", { class: "field-error", id: `${control.id}-error` });
    box.append(problems[key]);
    return box;
  };
  const template = templatePart(controls.template_id, wrap, problems, space);
  const suggestions = suggestionPart(controls.content, (s) => template.choose(s.template_id, s.prefill), space);
  const summary = h("div");
  const submit = async (event) => {
    event.preventDefault();
    clearProblems(problems, summary);
    try {
      const body = { ...draftOf(controls, tags), ...template.draft(), ...(space ? { space } : {}) };
      const made = await api("/api/memories", { method: "POST", body });
      announce("Stored.");
      location.hash = withSpace(`#/memory/${encodeURIComponent(made.id)}`);
    } catch (error) {
      clear(summary, errorBox(error));
      showProblems(error.errors, problems, template.touchAll);
    }
  };
  const node = h("form", { class: "edit new-memory", novalidate: true, onsubmit: submit },
    wrap("content", "Text", controls.content, { hint: "What to remember. With a template, it may stay empty." }),
    suggestions.node,
    wrap("template_id", "Template", controls.template_id),
    template.node,
    wrap("title", "Title", controls.title),
    h("div", { class: "row" }, wrap("type", "Type", controls.type), wrap("weight", "Weight (0 to 1)", controls.weight),
      wrap("trust", "Trust (0 to 1)", controls.trust)),
    wrap("tags", "Tags", controls.tags, { list: tags.list, hint: tags.hint }),
    summary,
    h("p", {}, h("button", { type: "submit" }, "Store the memory")));
  return { node, ready: template.ready };
}

function draftOf(controls, tags) {
  const out = {};
  for (const key of ["content", "title", "type"]) if (controls[key].value.trim()) out[key] = controls[key].value;
  for (const key of ["weight", "trust"]) if (controls[key].value !== "") out[key] = Number(controls[key].value);
  const tagList = tags.read() || [];
  if (tagList.length) out.tags = tagList;
  return out;
}

// Templates suggested for the text as it is typed: each a button that fills in its form.
function suggestionPart(content, use, space) {
  const node = h("div", { class: "suggestions", "aria-live": "polite" });
  let timer = null;
  let asked = 0;
  const ask = async () => {
    const mine = ++asked;
    let found;
    try {
      const body = { content: content.value, ...(space ? { space } : {}) };  // a space's templates, for its memory
      found = (await api("/api/suggestions", { method: "POST", body })).suggestions;
    } catch (error) {
      if (mine === asked) clear(node, errorBox(error));
      return;
    }
    if (mine !== asked) return;
    clear(node, found.length ? [h("span", { class: "muted" }, "Suggested: "), found.map((s) =>
      h("button", { type: "button", class: "secondary suggestion", title: s.reason, onclick: () => use(s) },
        `Use ${s.name} (${Math.round(s.confidence * 100)}%)`))] : null);
  };
  content.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(ask, WAIT); });
  return { node };
}

// The chosen template's fields as a form (fields-form.js): required ones marked, hidden ones
// (show_if) hidden, the engine's problems beside the fields touched so far (every field's once a
// save is tried).
function templatePart(select, wrap, problems, space) {
  const node = h("div");
  let form = null, chosen = null, timer = null, asked = 0;
  const touched = new Set();
  const ready = api("/api/memory-templates", { query: space ? { space } : {} }).then((found) => {
    for (const t of found.templates) select.append(h("option", { value: t.id }, t.name));
  }).catch((error) => node.append(errorBox(error)));

  const values = () => (form ? form.values() : {});
  const check = async () => {
    const mine = ++asked;
    let found;
    try {
      found = await api("/api/memories/check", { method: "POST", body: { template_id: chosen, structured_content: values() } });
    } catch (error) { return; }  // the save says what is wrong
    if (mine !== asked || !form) return;
    form.show(found, touched, problems);
  };
  const changed = (name) => { touched.add(name); clearTimeout(timer); timer = setTimeout(check, WAIT); };

  const choose = async (id, prefill = {}) => {
    select.value = id;
    chosen = id || null;
    form = null;
    touched.clear();
    for (const key of Object.keys(problems)) if (key.startsWith("field:")) delete problems[key];
    clear(node);
    if (!chosen) return;
    let found;
    try {
      found = await api(`/api/memory-templates/${encodeURIComponent(chosen)}`);
    } catch (error) { clear(node, errorBox(error)); return; }
    form = fieldsForm(found.fields, wrap, { prefill, changed });
    clear(node, h("fieldset", {}, h("legend", {}, `${found.name} fields`), form.boxes));
    await check();
  };
  select.addEventListener("change", () => choose(select.value));
  const touchAll = () => { for (const name of form ? form.names : []) touched.add(name); };
  const draft = () => (chosen ? { template_id: chosen, structured_content: values() } : {});
  return { node, ready, choose, draft, touchAll };
}

// A problem's field ("weight", "tags[0]", "structured_content.rating", a template field's name)
// is shown beside its control; the message above the button says them all.
function showProblems(errors, problems, touchAll) {
  touchAll();
  for (const e of errors || []) {
    const name = String(e.field || "");
    const root = name.replace(/^structured_content\./, "").split(/[.[]/)[0];
    const key = problems[`field:${root}`] && name !== "template_id" ? `field:${root}` : problems[root] ? root : null;
    if (!key || problems[key].textContent.includes(e.message)) continue;
    problems[key].append(h("div", {}, e.message));
  }
}

function clearProblems(problems, summary) {
  clear(summary);
  for (const p of Object.values(problems)) clear(p);
}
