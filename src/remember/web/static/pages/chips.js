// A list edited as a list: each item a chip with a remove button, and a box that adds what is
// typed on Enter or a comma. `input` is the control to label; `list` goes beside it.

import { clear, h } from "../ui.js";

export function chipInput(name, text, values, itemType) {
  const items = Array.isArray(values) ? [...values] : [];
  const wasSet = Array.isArray(values);
  const list = h("ul", { class: "chips editable", "aria-label": `${text}: the list` });
  const input = h("input", { type: "text", name, size: 24, autocomplete: "off" });
  const draw = () => clear(list, items.map((v, i) => h("li", { class: "tag" }, String(v),
    h("button", { type: "button", class: "chip-remove", "aria-label": `Remove ${v} from ${text}`,
      onclick: () => { items.splice(i, 1); draw(); input.focus(); } }, "×"))));
  const take = () => {
    for (const part of input.value.split(",")) {
      const item = part.trim();
      if (item) items.push(typed(item, itemType));
    }
    input.value = "";
    draw();
  };
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== ",") return;
    event.preventDefault();
    take();
  });
  draw();
  // What is still typed in the box counts as an item too.
  const read = () => { take(); return items.length || wasSet ? [...items] : null; };
  // The list with what is still typed in the box, which stays there: for a form read as it is typed.
  const peek = () => [...items, ...input.value.split(",").map((p) => p.trim()).filter(Boolean).map((p) => typed(p, itemType))];
  return { input, list, read, peek, hint: "Press Enter or type a comma to add an item." };
}

function typed(text, itemType) {
  if ((itemType === "number" || itemType === "integer") && text !== "" && !isNaN(Number(text))) return Number(text);
  if (itemType === "boolean" && (text === "true" || text === "false")) return text === "true";
  return text;
}
