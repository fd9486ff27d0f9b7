// A memory's "Relate it" form: find other memories by search, tick the ones to link, say how they
// relate (the type), what was observed and how strongly; stored as remember_create_relationship, in the
// memory's space (the others are found there).

import { api } from "../api.js";
import { clear, errorBox, h, labelled } from "../ui.js";
import { excerpt } from "./memories.js";

const WAIT = 300;

export function relateForm(memory, onSaved) {
  const find = h("input", { type: "search", name: "relate-find", size: 30, autocomplete: "off" });
  const found = h("fieldset", { class: "relate-found" }, h("legend", {}, "Memories to link"), h("p", { class: "muted" }, "Search to list them."));
  const type = h("input", { type: "text", name: "relationship_type", size: 20, placeholder: "related_to" });
  const observation = h("input", { type: "text", name: "observation", size: 40 });
  const strength = h("input", { type: "number", name: "strength", min: 0, max: 1, step: 0.1 });
  const picked = new Map();
  const status = h("div");
  let timer = null, asked = 0;
  const search = async () => {
    const mine = ++asked;
    const q = find.value.trim();
    if (!q) return;
    try {
      // A relationship lives in one space: the memory's own is searched for its other members.
      const answer = await api("/api/search", { query: { q, limit: 8, space: memory.space || "personal" } });
      if (mine !== asked) return;
      const others = answer.results.map((r) => r.memory).filter((m) => m.id !== memory.id);
      clear(found, h("legend", {}, "Memories to link"), others.length ? others.map((m) => choice(m, picked)) : h("p", { class: "muted" }, "No other memory matches."));
    } catch (error) { clear(status, errorBox(error)); }
  };
  find.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(search, WAIT); });
  const submit = async (event) => {
    event.preventDefault();
    clear(status);
    const body = { memory_ids: [memory.id, ...picked.keys()], relationship_type: type.value.trim() };
    if (observation.value.trim()) body.observation = observation.value.trim();
    if (strength.value !== "") body.strength = Number(strength.value);
    try {
      await api("/api/relationships", { method: "POST", body });
      await onSaved();
    } catch (error) { clear(status, errorBox(error)); }
  };
  return h("form", { class: "relate", onsubmit: submit, "aria-labelledby": "relate-h" },
    h("h2", { id: "relate-h" }, "Relate it"),
    labelled("Find memories to link", find), found,
    h("div", { class: "row" }, labelled("How they relate (type)", type), labelled("Observation", observation),
      labelled("Strength (0 to 1)", strength)),
    status, h("p", {}, h("button", { type: "submit" }, "Link them")));
}

function choice(m, picked) {
  const name = m.title || excerpt(m.content);
  const box = h("input", { type: "checkbox", name: "member", value: m.id, checked: picked.has(m.id) });
  box.addEventListener("change", () => { if (box.checked) picked.set(m.id, name); else picked.delete(m.id); });
  return h("div", {}, box, " ", h("label", { class: "inline", for: box.id || (box.id = `member-${m.id}`) }, name));
}
