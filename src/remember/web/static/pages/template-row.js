// One field of a template in the editor's form: its name, type, kind, required mark, options,
// default, description, validation rules, show_if condition and formula, each control shown only
// for the types the engine accepts it on. `read()` gives the field's definition back: the keys
// the row does not edit (nested fields, anything unknown) are kept as they came.

import { clear, h, labelled } from "../ui.js";
import { chipInput } from "./chips.js";

// Which controls a type shows: rules by the shape of value they bound.
const BOUNDED = ["number", "integer", "date", "datetime"];
const TEXTUAL = ["string", "text"];
const WITH_OPTIONS = ["enum", "string", "array"];
const RULES = [
  ["min", "Minimum", (t) => BOUNDED.includes(t)],
  ["max", "Maximum", (t) => BOUNDED.includes(t)],
  ["min_length", "Shortest (characters)", (t) => TEXTUAL.includes(t)],
  ["max_length", "Longest (characters)", (t) => TEXTUAL.includes(t)],
  ["pattern", "Pattern (regular expression)", (t) => TEXTUAL.includes(t)],
  ["min_items", "Fewest items", (t) => t === "array"],
  ["max_items", "Most items", (t) => t === "array"],
  ["error_message", "Message when a rule fails", (t) => t !== "computed" && t !== "boolean"],
];
const NUMERIC_RULES = ["min_length", "max_length", "min_items", "max_items"];
const BOUNDS = ["min", "max"];  // numbers, or dates as text for date fields
// The order of a field's keys as the row writes them; any other key follows, as it came.
const ORDER = ["name", "type", "kind", "required", "default", "description", "options", "validation", "conditional", "formula", "item_type"];

export function fieldRow(raw, choices, changed) {
  const field = { ...raw };
  if ("default_value" in field && !("default" in field)) field.default = field.default_value;
  delete field.default_value;
  const validation = { ...(isObject(field.validation) ? field.validation : {}) };
  const ask = () => changed();
  let kindWanted = typeof field.kind === "string" ? field.kind : "";  // kept while the type changes
  const text = (name, value, attrs = {}) => h("input", { type: "text", name, value: value ?? "", oninput: ask, ...attrs });

  const c = {
    name: text("name", typeof field.name === "string" ? field.name : "", { size: 18, autocomplete: "off", spellcheck: "false" }),
    type: h("select", { name: "type", onchange: () => { shape(); ask(); } },
      choices.types.map((t) => h("option", { value: t, selected: t === (field.type ?? "string") }, t))),
    item_type: h("select", { name: "item_type", onchange: () => { shape(); ask(); } }, h("option", { value: "" }, "—"),
      choices.item_types.map((t) => h("option", { value: t, selected: t === field.item_type }, t))),
    kind: h("select", { name: "kind", onchange: () => { kindWanted = c.kind.value; ask(); } }),
    required: h("input", { type: "checkbox", name: "required", checked: field.required === true, onchange: ask }),
    default: text("default", shown(field.default), { size: 14 }),
    description: text("description", field.description, { size: 30 }),
    show_if: text("show_if", isObject(field.conditional) ? field.conditional.show_if : "", { size: 24, spellcheck: "false" }),
    formula: text("formula", field.formula, { size: 30, spellcheck: "false" }),
  };
  if (!choices.types.includes(c.type.value)) c.type.append(h("option", { value: field.type, selected: true }, String(field.type)));
  const options = chipInput("options", "Options", Array.isArray(field.options) ? field.options : [], "string");
  options.input.addEventListener("input", ask);
  options.input.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === ",") setTimeout(ask); });
  options.list.addEventListener("click", ask);
  const rules = Object.fromEntries(RULES.map(([key]) => [key, text(key, shown(validation[key]),
    { size: key === "pattern" || key === "error_message" ? 24 : 8, spellcheck: "false" })]));

  const boxes = {};
  const box = (key, words, control, hint) => (boxes[key] = labelled(words, control, hint));
  const problems = h("div", { class: "field-error row-problems", "aria-live": "polite" });
  const legend = h("legend", {});
  const up = h("button", { type: "button", class: "secondary", "data-move": "up" }, "Up");
  const down = h("button", { type: "button", class: "secondary", "data-move": "down" }, "Down");
  const remove = h("button", { type: "button", class: "secondary", "data-move": "remove" }, "Remove");
  const nested = h("p", { class: "muted" });
  const required = h("div", { class: "control check" }, c.required, h("label", { for: (c.required.id = `req-${++rows}`) }, "Required"));
  boxes.required = required;
  const node = h("fieldset", { class: "field-row" }, legend,
    h("div", { class: "row-controls" },
      box("name", "Name", c.name), box("type", "Type", c.type),
      box("item_type", "Item type", c.item_type), box("kind", "Kind of value (for prefill)", c.kind), required),
    problems,
    h("div", { class: "row-controls" },
      box("options", "Options", options.input, options.hint), box("default", "Default", c.default),
      box("description", "Description", c.description), box("show_if", "Show if", c.show_if, "e.g. status == 'done'"),
      box("formula", "Formula", c.formula, "e.g. price * quantity")),
    h("div", { class: "row-controls rules" }, RULES.map(([key, words]) => box(key, words, rules[key]))),
    nested,
    h("div", { class: "row row-actions" }, up, down, remove));
  boxes.options.insertBefore(options.list, options.input);

  // What the chosen type takes: its item type, kinds, options, rules and formula.
  function shape() {
    const type = c.type.value;
    boxes.item_type.hidden = type !== "array";
    boxes.options.hidden = !WITH_OPTIONS.includes(type);
    boxes.formula.hidden = type !== "computed";
    boxes.default.hidden = boxes.required.hidden = type === "computed";
    for (const [key, , fits] of RULES) boxes[key].hidden = !fits(type);
    const fitting = choices.fits[type === "array" ? `array/${c.item_type.value}` : type] || [];
    const wanted = kindWanted;
    const names = wanted && !fitting.includes(wanted) ? [...fitting, wanted] : fitting;
    clear(c.kind, h("option", { value: "" }, names.length ? "— none" : "— none fits this type"),
      names.map((k) => h("option", { value: k, selected: k === wanted, title: choices.kinds[k] || "" }, k)));
    boxes.kind.hidden = !names.length;
    const inner = Array.isArray(field.fields) ? field.fields.length : 0;
    clear(nested, inner ? `${inner} nested field${inner === 1 ? "" : "s"}: edit ${inner === 1 ? "it" : "them"} in the text view.` : "");
  }
  shape();

  function read() {
    const type = c.type.value;
    const out = { name: c.name.value.trim(), type };
    const set = (key, value) => { if (value !== undefined && value !== "" && value !== null) out[key] = value; };
    if (!boxes.kind.hidden) set("kind", c.kind.value);
    if (!boxes.required.hidden && c.required.checked) out.required = true;
    if (!boxes.default.hidden) set("default", typedDefault(type, c.default.value));
    set("description", c.description.value);
    if (!boxes.options.hidden) { const o = options.peek(); if (o.length) out.options = o; }
    const rulesOut = { ...validation };
    for (const [key] of RULES) {
      const value = rules[key].value.trim();
      if (boxes[key].hidden || value === "") delete rulesOut[key];
      else rulesOut[key] = NUMERIC_RULES.includes(key) || (BOUNDS.includes(key) && !type.startsWith("date")) ? number(value) : value;
    }
    if (Object.keys(rulesOut).length) out.validation = rulesOut;
    const conditional = { ...(isObject(field.conditional) ? field.conditional : {}) };
    if (c.show_if.value.trim()) conditional.show_if = c.show_if.value.trim(); else delete conditional.show_if;
    if (Object.keys(conditional).length) out.conditional = conditional;
    if (!boxes.formula.hidden) set("formula", c.formula.value.trim());
    if (type === "array") set("item_type", c.item_type.value);
    for (const [key, value] of Object.entries(field)) if (!ORDER.includes(key)) out[key] = value;
    if (type !== "array" && type !== "object") delete out.fields;
    return out;
  }

  // The row's place: its legend, the labels of its buttons, and which moves make sense.
  function place(index, count) {
    const name = c.name.value.trim() || "(no name yet)";
    clear(legend, `Field ${index + 1}: ${name}`);
    up.setAttribute("aria-label", `Move ${name} up`);
    down.setAttribute("aria-label", `Move ${name} down`);
    remove.setAttribute("aria-label", `Remove ${name}`);
    up.disabled = index === 0;
    down.disabled = index === count - 1;
  }

  // The engine's problems with this field, beside it.
  function showProblems(messages) {
    clear(problems, messages.map((m) => h("div", {}, m)));
    if (messages.length) {
      c.name.setAttribute("aria-invalid", "true");
      c.name.setAttribute("aria-describedby", problems.id);
    } else {
      c.name.removeAttribute("aria-invalid");
      c.name.removeAttribute("aria-describedby");
    }
  }
  problems.id = `${c.name.id}-problems`;
  return { node, read, place, showProblems, name: () => c.name.value.trim(), focus: () => c.name.focus(), buttons: { up, down, remove } };
}

let rows = 0;

function isObject(value) { return value !== null && typeof value === "object" && !Array.isArray(value); }

// A value as the row's text box shows it: lists and objects as JSON.
function shown(value) {
  if (value === undefined || value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function number(text) { return text !== "" && !isNaN(Number(text)) ? Number(text) : text; }

// A default as its field's type holds it; what does not read as that type goes as typed, for the engine to judge.
function typedDefault(type, text) {
  if (text === "") return undefined;
  if (type === "number" || type === "integer") return number(text);
  if (type === "boolean" && (text === "true" || text === "false")) return text === "true";
  if (type === "array" || type === "object") {
    try { return JSON.parse(text); } catch (e) { return text; }
  }
  return text;
}
