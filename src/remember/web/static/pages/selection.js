// Memories chosen on the memories page, and what to do with all of them at once: add or remove
// a tag, or move them to the trash (POST /api/memories/bulk: checked whole, so one memory that
// cannot be changed changes none), or apply a template (POST /api/memories/apply-template: the
// selection is checked whole too, then each memory says whether the template applied, or why not).

import { api } from "../api.js";
import { clear, counted, errorBox, h, labelled, okBox } from "../ui.js";

export function selection(onDone) {
  const chosen = new Map();  // id -> name
  const count = h("span", { class: "muted", "aria-live": "polite" }, "None selected.");
  const tag = h("input", { type: "text", name: "bulk-tag", size: 14, autocomplete: "off" });
  const status = h("div");
  const buttons = [];
  const refresh = () => {
    count.textContent = chosen.size ? `${counted(chosen.size, "memory")} selected.` : "None selected.";
    for (const b of buttons) b.disabled = !chosen.size;
  };
  const act = (body, done) => async () => {
    clear(status);
    try {
      const answer = await api("/api/memories/bulk", { method: "POST", body: { memory_ids: [...chosen.keys()], ...body } });
      const said = done(answer.changed);
      chosen.clear();
      refresh();
      await onDone();
      clear(status, okBox(said));  // a status: said aloud
    } catch (error) { clear(status, errorBox(error)); }
  };
  const needsTag = (make) => () => {
    if (!tag.value.trim()) { clear(status, errorBox("Write the tag first.")); tag.focus(); return undefined; }
    return make(tag.value.trim())();
  };
  const button = (text, onclick, kind = "secondary") => {
    const b = h("button", { type: "button", class: kind, disabled: true, onclick }, text);
    buttons.push(b);
    return b;
  };
  const template = h("select", { name: "bulk-template" }, h("option", { value: "" }, "Choose a template"));
  api("/api/memory-templates").then((found) => {
    for (const t of found.templates) template.append(h("option", { value: t.id }, t.name));
  }).catch((error) => clear(status, errorBox(error)));
  const applyTemplate = async () => {
    clear(status);
    if (!template.value) { clear(status, errorBox("Choose the template first.")); template.focus(); return; }
    const names = new Map(chosen);
    const name = template.selectedOptions[0].textContent;
    try {
      const answer = await api("/api/memories/apply-template", { method: "POST", body: { memory_ids: [...chosen.keys()], template_id: template.value } });
      chosen.clear();
      refresh();
      await onDone();
      clear(status, applied(answer, name, names));
    } catch (error) { clear(status, errorBox(error)); }
  };
  const node = h("section", { class: "bulk", "aria-label": "Selected memories" },
    h("div", { class: "row" }, count,
      labelled("Tag", tag),
      button("Add the tag", needsTag((t) => act({ add_tags: [t] }, (n) => `Tagged ${counted(n, "memory")} “${t}”.`))),
      button("Remove the tag", needsTag((t) => act({ remove_tags: [t] }, (n) => `Removed “${t}” from ${counted(n, "memory")}.`))),
      button("Move to the trash", act({ trash: true }, (n) => `Moved ${counted(n, "memory")} to the trash.`), "danger")),
    h("div", { class: "row" }, labelled("Template to apply", template), button("Apply the template", applyTemplate)),
    status);
  const checkbox = (memory, name) => {
    const box = h("input", { type: "checkbox", name: "select", value: memory.id, checked: chosen.has(memory.id), "aria-label": `Select ${name}` });
    box.addEventListener("change", () => { if (box.checked) chosen.set(memory.id, name); else chosen.delete(memory.id); refresh(); });
    return box;
  };
  return { node, checkbox };
}

// What applying a template did: how many it applied to, and each memory it could not, with the engine's reasons.
function applied(answer, name, names) {
  const failed = answer.results.filter((r) => r.status === "failed");
  const already = answer.results.filter((r) => r.status === "unchanged").length;
  const said = `Applied ${name} to ${answer.applied} of ${counted(answer.selected, "memory")}${already ? ` (${already} already had it)` : ""}.`;
  if (!failed.length) return okBox(said);
  return h("div", { class: "error", role: "alert" }, h("p", {}, `${said} ${counted(failed.length, "memory")} could not take it:`),
    h("ul", { class: "problems" }, failed.map((r) => h("li", {},
      h("a", { href: `#/memory/${encodeURIComponent(r.memory_id)}` }, names.get(r.memory_id) || r.memory_id), ": ",
      (r.errors && r.errors.length ? r.errors.map((e) => `${e.field}: ${e.message}`).join("; ") : r.message)))));
}
