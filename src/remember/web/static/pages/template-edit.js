// #/template-new and #/template-edit/<id>: a template's definition (YAML or JSON, as
// `remember template create` reads a file) and sample content, both checked by the server's
// template engine as you type (300 ms after the last key); saving is possible only when the
// definition is valid, and a change of an existing template becomes a new version.

import { api } from "../api.js";
import { announce, clear, counted, errorBox, h, labelled, okBox } from "../ui.js";
import { FLASH, describeChanges } from "./template.js";

const WAIT = 300;
const STARTER = `name: My template
description: What it is for
fields:
  - name: title
    type: string
    required: true
`;

export async function render(root, args) {
  const id = args[0] || null;  // none: a new template
  const loaded = id ? await api(`/api/templates/${encodeURIComponent(id)}`) : null;
  if (loaded && loaded.is_default) return builtIn(root, loaded);
  const definition = h("textarea", { name: "definition", rows: 22, spellcheck: "false" },
    loaded ? JSON.stringify(loaded.definition, null, 2) : STARTER);
  const sample = h("textarea", { name: "sample", rows: 10, spellcheck: "false" });
  const definitionState = h("section", { "aria-label": "Definition problems", "aria-live": "polite", id: "definition-problems" });
  const sampleState = h("section", { "aria-label": "Sample content problems", "aria-live": "polite", id: "sample-problems" });
  const save = h("button", { type: "submit", disabled: true }, loaded ? "Save a new version" : "Create template");
  const outcome = h("div");
  let valid = false;
  let asked = 0;
  let timer = null;

  async function check() {
    const mine = ++asked;
    const body = { definition: definition.value, template_id: id || undefined };
    let result;
    try {
      result = await api("/api/templates/check", { method: "POST", body });
    } catch (error) {
      if (mine === asked) { valid = false; save.disabled = true; clear(definitionState, errorBox(error)); }
      return;
    }
    if (mine !== asked) return;  // a later keystroke's check is on its way
    valid = result.valid;
    save.disabled = !valid;
    clear(definitionState, valid ? okBox(`The definition is valid: ${counted(result.resolved_fields.length, "field")}.`) : problemList(result.message, result.errors));
    await checkSample(mine);
  }

  async function checkSample(mine) {
    if (!sample.value.trim()) { clear(sampleState, h("p", { class: "muted" }, "Type sample content to check it against the definition.")); return; }
    if (!valid) { clear(sampleState, h("p", { class: "muted" }, "Fix the definition to check the sample content.")); return; }
    let result;
    try {
      result = await api("/api/templates/check-content", { method: "POST", body: { definition: definition.value, template_id: id || undefined, content: sample.value } });
    } catch (error) {
      if (mine === asked) clear(sampleState, errorBox(error));
      return;
    }
    if (mine !== asked) return;
    const filled = `${Math.round(result.completion * 100)}% of the fields filled`;
    clear(sampleState, result.valid ? okBox(`The sample content is valid; ${filled}.`)
      : problemList(`The sample content does not fit the template: ${result.errors.length} problem${result.errors.length === 1 ? "" : "s"}; ${filled}.`, result.errors));
  }

  function later() {
    save.disabled = true;
    clearTimeout(timer);
    timer = setTimeout(check, WAIT);
  }
  definition.addEventListener("input", later);
  sample.addEventListener("input", later);

  const form = h("form", { class: "editor", onsubmit: async (event) => {
    event.preventDefault();
    if (!valid) return;
    clear(outcome);
    save.disabled = true;
    try {
      const done = loaded
        ? await api(`/api/templates/${encodeURIComponent(id)}`, { method: "PUT", body: { definition: definition.value, base_version: loaded.version } })
        : await api("/api/templates", { method: "POST", body: { definition: definition.value } });
      const text = loaded
        ? `Saved version ${done.version}: ${describeChanges(done.changes)}; ${counted(done.rechecked_memories, "memory")} re-checked.`
        : `Created ${done.name} (version ${done.version}).`;
      sessionStorage.setItem(FLASH, text);
      announce(text);
      location.hash = `#/template/${encodeURIComponent(done.id)}`;
    } catch (error) {
      save.disabled = !valid;
      clear(outcome, errorBox(error));
    }
  } },
    h("div", { class: "grid2" },
      h("div", {}, labelled("Definition (YAML or JSON)", definition, "As `remember template create FILE` reads it: name, description, fields, parent_template_id…"), definitionState),
      h("div", {}, labelled("Sample content (YAML or JSON)", sample, "Fields of a memory made with it, e.g. title: Dune"), sampleState)),
    h("p", { class: "row" }, save, h("a", { href: loaded ? `#/template/${encodeURIComponent(id)}` : "#/templates" }, "Cancel")),
    outcome);
  definition.setAttribute("aria-describedby", `${definition.getAttribute("aria-describedby") || ""} definition-problems`.trim());
  sample.setAttribute("aria-describedby", `${sample.getAttribute("aria-describedby") || ""} sample-problems`.trim());
  clear(root,
    h("p", {}, h("a", { href: "#/templates" }, "All templates")),
    h("h1", {}, loaded ? `Edit ${loaded.name}` : "New template"),
    loaded ? h("p", { class: "muted" }, `Version ${loaded.version}; saving makes a new version and re-checks its ${counted(loaded.usage_count, "memory")}.`) : null,
    form);
  check();  // not awaited: the shell focuses the page when render returns, which must not be mid-typing
}


// The engine's own words: its headline, then each problem at its field path.
function problemList(message, errors) {
  const headline = (message || "").split("\n")[0];
  return h("div", { class: "error", role: "alert" },
    h("p", {}, headline),
    h("ul", { class: "problems" }, errors.map((e) => h("li", {}, h("code", {}, e.field || "(definition)"), ": ", e.message))));
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
      const made = await api(`/api/templates/${encodeURIComponent(t.id)}/copy`, { method: "POST", body: {} });
      location.hash = `#/template-edit/${encodeURIComponent(made.id)}`;
    } catch (error) { clear(problems, errorBox(error)); }
  } }, "Copy it to edit");
  clear(root,
    h("p", {}, h("a", { href: `#/template/${encodeURIComponent(t.id)}` }, t.name)),
    h("h1", {}, `Edit ${t.name}`),
    refusal ? errorBox(refusal) : errorBox(`${t.id} is a built-in template and cannot be changed.`),
    h("p", {}, copy), problems);
}
