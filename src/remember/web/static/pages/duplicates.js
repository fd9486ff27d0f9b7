// On a memory's page: the memories it may duplicate (GET /api/memories/{id}/duplicates, as dedup on write finds
// them), each with a merge: choose which one to keep; the other's tags, references and relationships are folded
// into it, the merge goes into its history, and the other goes to the trash, where it can be restored.

import { api } from "../api.js";
import { withSpace } from "../space.js";
import { announce, clear, errorBox, h } from "../ui.js";
import { excerpt } from "./memories.js";

export async function duplicatesSection(memory) {
  if (memory.deleted_at) return null;
  let found;
  try {
    found = (await api(`/api/memories/${encodeURIComponent(memory.id)}/duplicates`)).duplicates;
  } catch (error) {
    return errorBox(error);
  }
  if (!found.length) return null;
  return h("section", { class: "duplicates", "aria-labelledby": "duplicates-h" },
    h("h2", { id: "duplicates-h" }, "Possible duplicates"), found.map((twin) => mergeForm(memory, twin)));
}

function mergeForm(memory, twin) {
  const name = twin.title || excerpt(twin.content);
  const mine = memory.title || excerpt(memory.content);
  const how = twin.match === "same" ? "the same text" : `a similar text (${Math.round(twin.similarity * 100)}% alike)`;
  const status = h("div");
  const choice = (value, text, checked) => h("label", { class: "inline" },
    h("input", { type: "radio", name: `keep-${twin.memory_id}`, value, checked }), ` ${text} `);
  const form = h("form", { class: "merge card", "aria-label": `Merge with ${name}` },
    h("p", {}, "Possible duplicate of ", h("a", { href: `#/memory/${encodeURIComponent(twin.memory_id)}` }, name), `: ${how}.`),
    h("fieldset", { class: "choice" }, h("legend", {}, "Keep"),
      choice(memory.id, `this one (${mine})`, true), choice(twin.memory_id, `the other (${name})`, false)),
    h("p", { class: "muted" }, "The one kept takes the other's tags, references and relationships; the other goes to the trash, where it can be restored."),
    h("p", {}, h("button", { type: "submit" }, "Merge")), status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const keep = form.querySelector("input:checked").value;
    const other = keep === memory.id ? twin.memory_id : memory.id;
    const versions = keep === memory.id ? [memory.version, twin.version] : [twin.version, memory.version];
    try {
      await api("/api/memories/merge", { method: "POST", body: { keep, merge: other, versions } });
      announce(`Merged. ${keep === memory.id ? name : mine} is in the trash.`);
      location.hash = withSpace(`#/memory/${encodeURIComponent(keep)}?merged=${encodeURIComponent(other)}`);
    } catch (error) { clear(status, errorBox(error)); }
  });
  return form;
}
