// Small helpers to build the page. Text is always set as text, never parsed as HTML.

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(node, ...children) { node.replaceChildren(); append(node, children); return node; }

// An error as the CLI shows it: the message (with its "- field: problem" lines).
export function errorBox(error) {
  return h("div", { class: "error", role: "alert" }, error && error.message ? error.message : String(error));
}

// "1 memory", "2 memories": a count and its noun, singular for exactly one.
export function counted(n, noun, plural = /[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`) {
  return `${n} ${n === 1 ? noun : plural}`;
}

export function okBox(text) { return h("div", { class: "ok", role: "status" }, text); }

export function announce(text) {
  const status = document.getElementById("status");
  status.textContent = "";
  setTimeout(() => { status.textContent = text; }, 10);
}

export function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return isNaN(d) ? String(iso) : d.toLocaleString();
}

// A labelled form control: label text, then the control; the id ties them together.
let counter = 0;
export function labelled(text, control, hint) {
  const id = control.id || `f${++counter}`;
  control.id = id;
  const hintNode = hint ? h("div", { class: "muted", id: `${id}-hint` }, hint) : null;
  if (hintNode) control.setAttribute("aria-describedby", hintNode.id);
  return h("div", { class: "control" }, h("label", { for: id }, text), control, hintNode);
}

// A table that becomes a list on a narrow screen (style.css: table.stack): each cell is given the
// name of its column, shown before it when the rows are stacked as cards.
export function stacked(table) {
  const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
  for (const row of table.querySelectorAll("tbody tr")) {
    [...row.children].forEach((cell, i) => { if (names[i]) cell.dataset.label = names[i]; });
  }
  table.classList.add("stack");
  return table;
}
