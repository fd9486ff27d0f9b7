// #/template-new and #/template-edit/<id>: a template edited as a form (template-form.js) or as
// YAML or JSON text (as `remember template create` reads a file): two views of one definition.
// Switching keeps the edits; the text view's format, and the view itself, are kept per template
// in this browser, so a template written in YAML reopens as YAML. Every change goes to the
// server's template engine (300 ms after the last one): its problems appear beside their rows, and
// a valid definition shows a preview of the memory form it makes. Saving is possible only when the
// definition is valid; a change of an existing template becomes a new version. A new template goes to
// the space chosen in the header (none chosen: the personal space); only a space's admins make or change
// its templates, and its other members are told so instead of being shown a form.

import { api } from "../api.js";
import { PERSONAL, chosenSpace, spaceOf, withSpace } from "../space.js";
import { announce, clear, counted, errorBox, h, okBox } from "../ui.js";
import { FLASH, copyInto, describeChanges } from "./template.js";
import { definitionForm } from "./template-form.js";
import { templatePreview } from "./template-preview.js";

const WAIT = 300;
const STARTER = { name: "My template", description: "What it is for", fields: [{ name: "title", type: "string", required: true }] };
const KEPT = "remember.template-view.";  // + the template's id: {view, format}

export async function render(root, args) {
  const id = args[0] || null;  // none: a new template
  const loaded = id ? await api(`/api/templates/${encodeURIComponent(id)}`) : null;
  if (loaded && loaded.is_default) return builtIn(root, loaded);
  if (loaded && !loaded.editable) return readOnly(root, loaded, loaded.read_only);
  const space = loaded ? loaded.space || PERSONAL : chosenSpace() || PERSONAL;  // where it is, or goes
  const shared = space !== PERSONAL ? await spaceOf(space) : undefined;
  if (!loaded && shared && shared.role !== "admin") {
    return readOnly(root, null, `You are a ${shared.role} in space ${shared.name}: only its admins create its templates. Choose another space above, or ask one of its admins.`);
  }
  const [choices, listed] = await Promise.all([api("/api/templates/kinds"), api("/api/templates", { query: { limit: 100, space } })]);
  const parents = listed.templates.filter((t) => t.id !== id).map((t) => ({ id: t.id, name: t.name }));
  const kept = remembered(id);
  const editor = new Editor(loaded ? loaded.definition : STARTER, kept, choices, parents, id, space);
  const save = h("button", { type: "submit", disabled: true }, loaded ? "Save a new version" : "Create template");
  const outcome = h("div");
  editor.onValid = (valid) => { save.disabled = !valid; };

  // Enter in a box of the form or the preview is not a save: the button is.
  const noImplicitSave = (event) => {
    if (event.key === "Enter" && event.target instanceof HTMLInputElement) event.preventDefault();
  };
  const form = h("form", { class: "editor", novalidate: true, onkeydown: noImplicitSave, onsubmit: async (event) => {
    event.preventDefault();
    if (!editor.valid) return;
    clear(outcome);
    save.disabled = true;
    const definition = editor.toSend();
    try {
      const done = loaded
        ? await api(`/api/templates/${encodeURIComponent(id)}`, { method: "PUT", body: { definition, base_version: loaded.version } })
        : await api("/api/templates", { method: "POST", query: { space }, body: { definition } });
      remember(done.id, editor.view, editor.format);
      const text = loaded
        ? `Saved version ${done.version}: ${describeChanges(done.changes)}; ${counted(done.rechecked_memories, "memory")} re-checked.`
        : `Created ${done.name} (version ${done.version}).`;
      sessionStorage.setItem(FLASH, text);
      announce(text);
      location.hash = withSpace(`#/template/${encodeURIComponent(done.id)}`);
    } catch (error) {
      save.disabled = !editor.valid;
      clear(outcome, errorBox(error));
    }
  } },
    editor.switcher,
    h("div", { class: "grid2 editor-panes" }, h("div", {}, editor.pane, editor.problems), editor.preview.node),
    h("p", { class: "row" }, save, h("a", { href: loaded ? `#/template/${encodeURIComponent(id)}` : "#/templates" }, "Cancel")),
    outcome);
  clear(root,
    h("p", {}, h("a", { href: "#/templates" }, "All templates")),
    h("h1", {}, loaded ? `Edit ${loaded.name}` : "New template"),
    shared ? h("p", { class: "muted" }, `${loaded ? "It belongs to" : "It goes to"} space ${shared.name}, for its members to use.`) : null,
    loaded ? h("p", { class: "muted" }, `Version ${loaded.version}; saving makes a new version (the minor number raised, unless you write another) and re-checks its ${counted(loaded.usage_count, "memory")}.`) : null,
    form);
  await editor.start();
}

// The definition and its two views. In the form view the form's object is the definition, in the
// text view the text is; the other view is brought up to date when it is switched to.
class Editor {
  constructor(doc, kept, choices, parents, id, space) {
    Object.assign(this, { doc, choices, parents, id, space, view: kept.view, format: kept.format, valid: false, asked: 0, timer: null });
    this.text = null;  // the text as typed or as last written by the server; null: to be written from doc
    this.textIsNewer = false;  // the text was typed since the form was drawn from it
    this.pane = h("div");
    this.problems = h("section", { "aria-label": "Definition problems", "aria-live": "polite", id: "definition-problems" });
    this.preview = templatePreview(id, space);
    this.textarea = h("textarea", { name: "definition", rows: 24, spellcheck: "false", "aria-describedby": "definition-problems",
      oninput: () => { this.textIsNewer = true; this.text = this.textarea.value; this.detect(); this.later(); } });
    const radio = (name, value, words, onchange) => h("label", { class: "inline" },
      h("input", { type: "radio", name, value, onchange }), ` ${words}`);
    this.viewChoice = h("fieldset", { class: "choice" }, h("legend", {}, "Edit as"),
      radio("view", "form", "Form", () => this.show("form")), radio("view", "text", "YAML or JSON text", () => this.show("text")));
    this.formatChoice = h("fieldset", { class: "choice" }, h("legend", {}, "Text format"),
      radio("format", "yaml", "YAML", () => this.reformat("yaml")), radio("format", "json", "JSON", () => this.reformat("json")));
    this.switcher = h("div", { class: "row editor-switch" }, this.viewChoice);
    this.onValid = () => {};
  }

  async start() {
    await this.show(this.view, true);
  }

  mark() {
    for (const input of this.viewChoice.querySelectorAll("input")) input.checked = input.value === this.view;
    for (const input of this.formatChoice.querySelectorAll("input")) input.checked = input.value === this.format;
  }

  // Switch to `view`, bringing it up to date with the other; a text that cannot be read stays in
  // the text view, with the reason.
  async show(view, first = false) {
    if (view === "form" && this.textIsNewer && this.text !== null) {
      const read = await this.ask({ definition: this.text });
      if (!read || !("document" in read)) {
        this.view = "text";
        this.mark();
        this.checked(read);
        this.textarea.focus();
        return;
      }
      this.doc = read.document;
      this.textIsNewer = false;
    }
    if (view === "text" && this.text === null) {
      const written = await this.ask({ definition: this.doc, write_as: this.format });
      this.text = written && written.text !== undefined ? written.text : JSON.stringify(this.doc, null, 2);
    }
    this.view = view;
    this.mark();
    if (view === "form") {
      this.form = definitionForm(this.doc, this.choices, this.parents, () => { this.doc = this.form.read(); this.text = null; this.later(); });
      clear(this.pane, this.form.node);
    } else {
      this.textarea.value = this.text;
      clear(this.pane, this.formatChoice, h("label", { for: "definition-text" }, "Definition (YAML or JSON)"), this.textarea);
      this.textarea.id = "definition-text";
    }
    if (!first) remember(this.id, this.view, this.format);
    await this.check();
  }

  // The text in the other format: read as it is, written again by the server.
  async reformat(format) {
    const read = await this.ask({ definition: this.text ?? this.doc, write_as: format });
    if (!read || read.text === undefined) { this.mark(); this.checked(read); return; }
    this.format = format;
    this.text = read.text;
    this.doc = read.document;
    this.textIsNewer = false;
    this.textarea.value = this.text;
    this.mark();
    remember(this.id, this.view, this.format);
  }

  // A text that starts with "{" is JSON; anything else is taken as YAML.
  detect() {
    const format = /^\s*[{[]/.test(this.text) ? "json" : "yaml";
    if (format !== this.format) { this.format = format; this.mark(); }
  }

  toSend() { return this.view === "text" ? this.text : this.doc; }

  later() {
    this.valid = false;
    this.onValid(false);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), WAIT);
  }

  async ask(body) {
    try {
      return await api("/api/templates/check", { method: "POST", query: { space: this.space }, body: { ...body, template_id: this.id || undefined } });
    } catch (error) {
      return { valid: false, failed: error };
    }
  }

  async check() {
    const mine = ++this.asked;
    const sent = this.toSend();
    const result = await this.ask({ definition: sent });
    if (mine !== this.asked) return;  // a later change's check is on its way
    this.checked(result);
    if (result.valid) this.preview.draw(result.resolved_fields, this.view === "text" ? result.document : sent);
    else this.preview.stale();
  }

  checked(result) {
    this.valid = Boolean(result && result.valid);
    this.onValid(this.valid);
    if (!result) return;
    if (result.failed) { clear(this.problems, errorBox(result.failed)); return; }
    if (this.valid) {
      if (this.form && this.view === "form") this.form.showProblems([]);
      clear(this.problems, okBox(`The definition is valid: ${counted(result.resolved_fields.length, "field")}.`));
      return;
    }
    const left = this.form && this.view === "form" ? this.form.showProblems(result.errors) : result.errors;
    clear(this.problems, problemList(result.message, left, result.errors.length - left.length));
  }
}

// The engine's own words: its headline, then each problem not shown beside its row.
function problemList(message, errors, placed) {
  const headline = (message || "").split("\n")[0];
  return h("div", { class: "error", role: "alert" },
    h("p", {}, headline),
    placed ? h("p", {}, `${counted(placed, "problem")} shown beside ${placed === 1 ? "its field" : "their fields"}.`) : null,
    errors.length ? h("ul", { class: "problems" }, errors.map((e) => h("li", {}, h("code", {}, e.field || "(definition)"), ": ", e.message))) : null);
}

function remembered(id) {
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT + (id || "new")) || "null");
    if (kept && ["form", "text"].includes(kept.view) && ["yaml", "json"].includes(kept.format)) return kept;
  } catch (e) { /* not ours to read: the defaults */ }
  return { view: "form", format: "yaml" };
}

function remember(id, view, format) {
  localStorage.setItem(KEPT + (id || "new"), JSON.stringify({ view, format }));
}

async function builtIn(root, t) {
  // The server says why, in the words the CLI uses: ask it to check an edit and show its refusal.
  let refusal = null;
  try {
    await api("/api/templates/check", { method: "POST", body: { definition: t.definition, template_id: t.id } });
  } catch (error) { refusal = error; }
  const problems = h("div");
  const copy = h("button", { type: "button", onclick: async () => {
    try {
      const made = await api(`/api/templates/${encodeURIComponent(t.id)}/copy`, { method: "POST", query: { space: (await copyInto()).space }, body: {} });
      location.hash = withSpace(`#/template-edit/${encodeURIComponent(made.id)}`);
    } catch (error) { clear(problems, errorBox(error)); }
  } }, "Copy it to edit");
  clear(root,
    h("p", {}, h("a", { href: `#/template/${encodeURIComponent(t.id)}` }, t.name)),
    h("h1", {}, `Edit ${t.name}`),
    refusal ? errorBox(refusal) : errorBox(`${t.id} is a built-in template and cannot be changed.`),
    h("p", {}, copy), problems);
}

// A template the caller may not change (or a space where they may not make one), with the server's reason.
function readOnly(root, t, reason) {
  clear(root,
    h("p", {}, t ? h("a", { href: `#/template/${encodeURIComponent(t.id)}` }, t.name) : h("a", { href: "#/templates" }, "All templates")),
    h("h1", {}, t ? `Edit ${t.name}` : "New template"),
    h("div", { class: "error", role: "note" }, reason));
}
