// The part of a memory's edit form for when it stops being true: an end ("no longer true from",
// kept, not deleted) and, for a memory that has ended, the way back to true (its end emptied).
// `changes()` gives valid_until as the PATCH takes it: a date, or null to make it true again.

import { h } from "../ui.js";

export function validityPart(memory, wrap) {
  const ended = (memory.validity && memory.validity.valid_until) || "";
  const until = h("input", { type: "text", name: "valid_until", size: 24, value: ended });
  const again = ended ? h("button", { type: "button", onclick: () => { until.value = ""; until.focus(); } }, "True again (remove its end)") : null;
  const node = h("fieldset", { class: "validity" }, h("legend", {}, "Still true?"),
    wrap("valid_until", "No longer true from (a date; empty: still true)", until, null,
      "Ends it without deleting it: it is kept, with its history, and shown with what has ended."),
    again ? h("p", {}, again) : null);
  const changes = () => {
    const given = until.value.trim();
    if (given === ended) return {};
    return { valid_until: given === "" ? null : given };
  };
  return { node, controls: { valid_until: until }, changes };
}
