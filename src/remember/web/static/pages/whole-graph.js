// #/graph: the relationships across all of one's memories, drawn as a graph (GET /api/graph). Filters by
// relationship type, template, tag and date live in the address; the layout settles in a bounded number
// of steps in a worker (graph-layout.js); past the server's limit the most connected memories are drawn
// and the page says how many are left out. Pan and zoom: pan-zoom.js. A node is a link to its memory.

import { setQuery } from "../app.js";
import { api } from "../api.js";
import { severalShown, spaceName, spaces } from "../space.js";
import { announce, clear, counted, errorBox, h, labelled } from "../ui.js";
import { s } from "./graph.js";
import { layout } from "./graph-layout.js";
import { panZoom } from "./pan-zoom.js";

const KEYS = ["type", "template", "tag", "since", "until", "dated_by", "include_ended", "limit"];  // limit: only from the address
const LABELLED = 120;  // the most connected nodes show their names where they fit; all on hover and to screen readers
const COLOURS = 6;  // template colours (style.css: svg.whole .k0 … .k5)
const number = (n) => n.toLocaleString("en");

let shown = null;

export async function render(root, args, query) {
  const form = filterForm();
  const out = h("div", { class: "graph-out" });
  shown = { form, out, asked: 0 };
  clear(root, h("h1", {}, "Graph"),
    h("p", { class: "muted" }, "How your memories are related. Drag or use the buttons to move, the wheel or pinch to zoom; choose a memory to open it."),
    form.node, out);
  await update(query);
}

export async function update(query) {
  const { form, out } = shown;
  const mine = ++shown.asked;
  for (const mark of ["graph-answered", "graph-laid-out", "graph-drawn"]) performance.clearMarks(mark);  // this draw's only
  form.set(query);
  clear(out, h("p", { class: "muted" }, "Drawing…"));
  let graph;
  try {
    graph = await api("/api/graph", { query: Object.fromEntries([...KEYS, "space"].map((k) => [k, query.get(k) || undefined])) });
    graph.named = (await severalShown()) ? await spaces() : null;  // each memory names its space when several are drawn
  } catch (error) {
    if (mine === shown.asked) clear(out, errorBox(error));
    return;
  }
  if (mine !== shown.asked) return;
  performance.mark("graph-answered");
  form.offer(graph.types, query.get("type"));
  if (!graph.nodes.length) {
    clear(out, h("p", { role: "status" }, "No relationships match. Relate memories from a memory's page, or widen the filters."));
    return;
  }
  const xy = await placed(graph);
  if (mine !== shown.asked) return;
  performance.mark("graph-laid-out");
  const drawn = drawing(graph, xy);
  clear(out, summary(graph), drawn.node, legend(graph), nodeList(graph));
  drawn.view.fit();  // now that it has its size on the page
  performance.mark("graph-drawn");  // the marks: how long the answer, the layout and the drawing took (bench/graph.py)
  announce(summary(graph).textContent);
}

function summary(graph) {
  const nodes = graph.nodes.length, edges = graph.edges.length;
  if (!graph.sampled) return h("p", { class: "graph-summary" }, `${counted(nodes, "memory")}, ${counted(edges, "relationship")}.`);
  const strongest = edges >= graph.max_edges ? " (the strongest)" : "";
  const shown = nodes < graph.total_memories
    ? `Showing ${number(nodes)} of ${number(graph.total_memories)} memories: the most connected, with ${number(edges)} of the ${number(graph.total_relationships)} relationships${strongest}`
    : `Showing ${number(edges)} of ${number(graph.total_relationships)} relationships${strongest}`;
  return h("p", { class: "graph-summary sampled", role: "note" }, `${shown}; narrow the filters to see the rest.`);
}

// Each relationship as lines from its first member to the others (a star when it has more than two).
function linksOf(graph) {
  const index = new Map(graph.nodes.map((n, i) => [n.id, i]));
  return graph.edges.flatMap((e) => e.memory_ids.slice(1).map((m) => [index.get(e.memory_ids[0]), index.get(m), e]));
}

// The layout in a worker when the browser allows one, else here (bounded either way).
let worker = null, jobs = 0;
async function placed(graph) {
  const links = linksOf(graph).map(([a, b]) => [a, b]);
  try {
    worker = worker || new Worker(new URL("./graph-worker.js", import.meta.url), { type: "module" });
    const id = ++jobs;
    return await new Promise((resolve, reject) => {
      const stop = () => { worker.removeEventListener("message", done); worker.removeEventListener("error", failed); };
      const done = (event) => { if (event.data.id === id) { stop(); resolve(event.data.xy); } };
      const failed = (error) => { stop(); reject(error); };
      worker.addEventListener("message", done);
      worker.addEventListener("error", failed);
      worker.postMessage({ id, count: graph.nodes.length, links });
    });
  } catch (error) {
    worker = null;
    return layout(graph.nodes.length, links);
  }
}

function drawing(graph, xy) {
  const phone = matchMedia("(max-width: 640px)").matches;
  const [w, hgt] = phone ? [600, 720] : [1000, 640];
  const colour = colours(graph);
  const at = (i) => [xy[2 * i], xy[2 * i + 1]];
  const lines = linksOf(graph).map(([a, b, e]) => {
    const [x1, y1] = at(a), [x2, y2] = at(b);
    const ended = e.valid_until && new Date(e.valid_until) <= new Date();
    return s("line", { x1, y1, x2, y2, class: ended ? "ended" : "" }, s("title", {}, e.relationship_type));
  });
  const radius = (n) => 3 + Math.min(9, Math.sqrt(n.degree) * 1.3);
  const nodes = graph.nodes.map((n, i) => {
    const [x, y] = at(i);
    return s("a", { href: `#/memory/${encodeURIComponent(n.id)}`, class: `node ${colour(n.template_id)}`,
      "aria-label": `${nodeName(graph, n)} (${counted(n.degree, "relationship")})` },
    s("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: radius(n).toFixed(1) }), s("title", {}, nodeName(graph, n)));
  });
  // The names of the most connected, above every dot so that none hides one; the links carry the names for
  // screen readers (their aria-label), so these are hidden from them.
  const names = graph.nodes.slice(0, LABELLED).map((n, i) => {
    const [x, y] = at(i);
    return s("text", { x: x.toFixed(1), y: (y + radius(n) + 2).toFixed(1), "text-anchor": "middle", "dominant-baseline": "hanging" }, short(n.label));
  });
  const named = s("g", { class: "names", "aria-hidden": "true" }, ...names);
  const group = s("g", {}, s("g", { class: "edges" }, ...lines), s("g", { class: "nodes" }, ...nodes), named);
  const svg = s("svg", { viewBox: `${-w / 2} ${-hgt / 2} ${w} ${hgt}`, class: "graph whole", role: "group", tabindex: 0,
    "aria-label": `Graph of ${counted(graph.nodes.length, "memory")} and ${counted(graph.edges.length, "relationship")}; arrow keys move it, plus and minus zoom` }, group);
  const xs = graph.nodes.map((_, i) => at(i));
  const bounds = [Math.min(...xs.map((p) => p[0])), Math.min(...xs.map((p) => p[1])), Math.max(...xs.map((p) => p[0])), Math.max(...xs.map((p) => p[1]))];
  // Names keep 12 screen pixels whatever the zoom (presentation attributes: the CSP allows no inline style).
  const view = panZoom(svg, group, [bounds[0] - 20, bounds[1] - 20, bounds[2] + 20, bounds[3] + 30], (pixels) => {
    named.setAttribute("font-size", (12 / pixels).toFixed(2));
    named.setAttribute("stroke-width", (3 / pixels).toFixed(2));
    uncrowd(names, pixels);
  });
  return { node: h("div", { class: "graph-whole" }, view.controls, h("div", { class: "graph-box wide" }, svg)), view };
}

// At this zoom (screen pixels per unit), show a name only where it covers no name of a better connected
// memory: zoomed in, more names fit.
function uncrowd(names, pixels) {
  const placed = [];
  for (const text of names) {
    const x = Number(text.getAttribute("x")) * pixels, y = Number(text.getAttribute("y")) * pixels;
    const half = (text.textContent.length * 6.5) / 2 + 2;
    const box = [x - half, y, x + half, y + 15];
    const free = placed.every((p) => box[2] < p[0] || box[0] > p[2] || box[3] < p[1] || box[1] > p[3]);
    if (free) placed.push(box);
    text.setAttribute("display", free ? "inline" : "none");
  }
}

// The start of a long name, cut at a word.
function short(text) {
  if (text.length <= 28) return text;
  const cut = text.slice(0, 28), space = cut.lastIndexOf(" ");
  return (space > 8 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, "");
}

// A colour class per template drawn (the most common first), grey for memories without one.
function colours(graph) {
  const count = new Map();
  for (const n of graph.nodes) if (n.template_id) count.set(n.template_id, (count.get(n.template_id) || 0) + 1);
  const order = [...count.keys()].sort((a, b) => count.get(b) - count.get(a)).slice(0, COLOURS);
  return (id) => (id && order.includes(id) ? `k${order.indexOf(id)}` : "none");
}

function legend(graph) {
  const colour = colours(graph);
  const ids = [...new Set(graph.nodes.map((n) => n.template_id).filter((id) => id && colour(id) !== "none"))];
  if (!ids.length) return null;
  return h("ul", { class: "graph-legend", "aria-label": "Colours" },
    ids.map((id) => h("li", {}, h("span", { class: `swatch ${colour(id)}`, "aria-hidden": "true" }), graph.template_names[id] || id)),
    h("li", {}, h("span", { class: "swatch none", "aria-hidden": "true" }), "No template"));
}

function nodeList(graph) {
  return h("details", { class: "graph-list" }, h("summary", {}, "The memories drawn, as a list"),
    h("ol", {}, graph.nodes.map((n) => h("li", {}, h("a", { href: `#/memory/${encodeURIComponent(n.id)}` }, n.label),
      h("span", { class: "muted" }, [graph.named ? spaceName(graph.named, n.space) : null, counted(n.degree, "relationship")].filter(Boolean).map((t) => ` · ${t}`).join(""))))));
}

// A node's name, with its space's where several are drawn.
function nodeName(graph, n) { return graph.named ? `${n.label} (${spaceName(graph.named, n.space)})` : n.label; }

function filterForm() {
  const type = h("select", { name: "type" }, h("option", { value: "" }, "All types"));
  const template = h("select", { name: "template" }, h("option", { value: "" }, "Any template"));
  const tag = h("input", { type: "text", name: "tag", size: 14, autocomplete: "off" });
  const since = h("input", { type: "date", name: "since" });
  const until = h("input", { type: "date", name: "until" });
  const datedBy = h("select", { name: "dated_by" },
    h("option", { value: "happened" }, "the memories happened"), h("option", { value: "valid" }, "the relationships were true"));
  const ended = h("input", { type: "checkbox", name: "include_ended", id: "graph-ended" });
  api("/api/memory-templates").then((found) => {
    const chosen = template.value;
    for (const t of found.templates) {
      const there = [...template.options].find((o) => o.value === t.id);
      if (there) there.textContent = t.name;
      else template.append(h("option", { value: t.id }, t.name));
    }
    template.value = chosen;
  }).catch(() => {});  // the graph still draws; its template filter is then empty
  const node = h("form", { class: "graph-filters", role: "search", "aria-label": "Graph filters" },
    h("div", { class: "row" }, labelled("Relationship type", type), labelled("Template", template), labelled("Tag", tag)),
    h("div", { class: "row" }, labelled("From", since), labelled("Until", until), labelled("Dates are when", datedBy),
      h("div", { class: "control" }, ended,
        h("label", { for: "graph-ended", class: "inline" }, " Also what has ended"))),
    h("p", {}, h("button", { type: "submit" }, "Draw"), " ",
      h("button", { type: "reset", class: "secondary" }, "Clear the filters")));
  const values = () => ({ type: type.value, template: template.value, tag: tag.value.trim(), since: since.value,
    until: until.value, dated_by: datedBy.value === "happened" ? "" : datedBy.value, include_ended: ended.checked ? "1" : "",
    limit });
  let limit = "";  // kept from the address: the page has no control for it
  const go = (params) => {
    const kept = Object.fromEntries(Object.entries(params).filter(([, v]) => v));
    if (!setQuery(kept)) update(new URLSearchParams(kept));
  };
  node.addEventListener("submit", (event) => { event.preventDefault(); go(values()); });
  node.addEventListener("reset", (event) => { event.preventDefault(); go({}); });
  const set = (query) => {
    limit = query.get("limit") || "";
    type.value = query.get("type") || "";
    template.value = query.get("template") || "";
    tag.value = query.get("tag") || "";
    since.value = query.get("since") || "";
    until.value = query.get("until") || "";
    datedBy.value = query.get("dated_by") === "valid" ? "valid" : "happened";
    ended.checked = Boolean(query.get("include_ended"));
    if (query.get("template") && ![...template.options].some((o) => o.value === query.get("template"))) {
      template.append(h("option", { value: query.get("template") }, query.get("template")));
      template.value = query.get("template");
    }
  };
  // The relationship types the user has, offered as the type filter (the one asked for kept).
  const offer = (types, asked) => {
    clear(type, h("option", { value: "" }, "All types"),
      types.map((t) => h("option", { value: t.relationship_type }, `${t.relationship_type} (${number(t.count)})`)));
    if (asked && !types.some((t) => t.relationship_type === asked)) type.append(h("option", { value: asked }, asked));
    type.value = asked || "";
  };
  return { node, set, offer };
}
