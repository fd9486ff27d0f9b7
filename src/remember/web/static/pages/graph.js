// A memory's neighbourhood as a small graph: the memory in the middle, the memories one
// relationship away on a ring around it, two away on an outer ring; each line names its type.

import { counted, h } from "../ui.js";
import { excerpt } from "./memories.js";

const SVG = "http://www.w3.org/2000/svg";
const SIZE = 520, MIDDLE = SIZE / 2, RINGS = [0, 130, 230];

// An SVG element with these attributes and children (text set as text).
export function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

export function graphView(memory, related) {
  const places = new Map([[memory.id, { x: MIDDLE, y: MIDDLE, label: memory.title || excerpt(memory.content) }]]);
  for (const depth of [1, 2]) {
    const ring = related.filter((r) => r.depth === depth);
    ring.forEach((r, n) => {
      const angle = (2 * Math.PI * n) / ring.length - Math.PI / 2 + (depth - 1) * 0.3;
      places.set(r.memory_id, { x: MIDDLE + RINGS[depth] * Math.cos(angle), y: MIDDLE + RINGS[depth] * Math.sin(angle),
        label: r.title || excerpt(r.content), id: r.memory_id });
    });
  }
  const edges = new Map();
  for (const r of related) {
    let from = memory.id;
    for (const step of r.path) {
      edges.set(`${from}>${step.to}`, { from, to: step.to, type: step.type });
      from = step.to;
    }
  }
  const lines = [...edges.values()].filter((e) => places.has(e.from) && places.has(e.to)).map((e) => {
    const a = places.get(e.from), b = places.get(e.to);
    return s("g", { class: "edge" }, s("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y }),
      s("text", { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, "text-anchor": "middle" }, e.type));
  });
  const nodes = [...places.entries()].map(([id, p]) => {
    const label = p.label.length > 24 ? `${p.label.slice(0, 24)}…` : p.label;
    const circle = s("g", { class: id === memory.id ? "node self" : "node" },
      s("circle", { cx: p.x, cy: p.y, r: id === memory.id ? 14 : 10 }),
      s("text", { x: p.x, y: p.y + 26, "text-anchor": "middle" }, label));
    if (id === memory.id) return circle;
    const link = s("a", { href: `#/memory/${encodeURIComponent(id)}` }, circle);
    link.append(s("title", {}, p.label));
    return link;
  });
  // A group, not an image: it holds links, which an image may not.
  const svg = s("svg", { viewBox: `0 0 ${SIZE} ${SIZE}`, class: "graph", role: "group",
    "aria-label": `Relationship graph: ${counted(related.length, "related memory", "related memories")}` }, ...lines, ...nodes);
  return h("div", { class: "graph-box" }, svg);
}
