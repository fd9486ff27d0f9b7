// When a memory is true: its span, what replaced it (a link to its successor) or what it replaced, and each
// template field's values over time, rebuilt from its history (each change keeps the values it replaced and,
// for a memory about the same thing told again, when the new ones became true).

import { h, when } from "../ui.js";

export function validityRows(memory) {
  const v = memory.validity || {};
  const link = (id) => h("a", { href: `#/memory/${encodeURIComponent(id)}` }, id.slice(0, 8));
  return [
    ["True from", when(v.valid_from || (memory.context && memory.context.timestamp))],
    ["Until", v.valid_until ? when(v.valid_until) : "still true"],
    v.superseded_by ? ["Replaced by", link(v.superseded_by)] : null,
    v.supersedes && v.supersedes.length ? ["Replaces", v.supersedes.map((id) => h("div", {}, link(id)))] : null,
  ].filter(Boolean);
}

export function endedNotice(memory) {
  const v = memory.validity || {};
  if (!v.valid_until) return null;
  const successor = v.superseded_by
    ? [" Replaced by ", h("a", { href: `#/memory/${encodeURIComponent(v.superseded_by)}` }, "the memory that superseded it"), "."]
    : [];
  return h("div", { class: "superseded-note", role: "note" }, `No longer true since ${when(v.valid_until)}.`, ...successor);
}

// Field -> [{value, since}], oldest first, for the template fields that changed.
export function fieldTimeline(memory) {
  const changes = (memory.history || []).filter((e) => e.action === "update" && "structured_content" in e.previous)
    .sort((a, b) => a.version - b.version);
  if (!changes.length) return {};
  const states = [...changes.map((e) => e.previous.structured_content || {}), memory.structured_content || {}];
  const start = (memory.validity && memory.validity.valid_from) || (memory.context && memory.context.timestamp);
  const times = [start, ...changes.map((e) => e.effective_at || e.at)];
  const out = {};
  const names = [...new Set(states.flatMap((s) => Object.keys(s)))];
  for (const name of names) {
    const values = [];
    states.forEach((state, i) => {
      const value = JSON.stringify(state[name] ?? null);
      if (!values.length || values[values.length - 1].value !== value) values.push({ value, since: times[i] });
    });
    if (values.length > 1) out[name] = values;
  }
  return out;
}

export function timelineSection(memory) {
  const timeline = fieldTimeline(memory);
  const names = Object.keys(timeline);
  if (!names.length) return null;
  const shown = (value) => { const parsed = JSON.parse(value); return parsed === null ? "(none)" : typeof parsed === "string" ? parsed : value; };
  return h("section", { "aria-labelledby": "timeline-h" }, h("h2", { id: "timeline-h" }, "Over time"),
    h("table", { "aria-label": "Values over time" },
      h("thead", {}, h("tr", {}, ["Field", "Value", "True from"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, names.flatMap((name) => timeline[name].map((step, i) => h("tr", { class: i < timeline[name].length - 1 ? "superseded" : "" },
        h("td", {}, i === 0 ? name : ""), h("td", {}, shown(step.value)), h("td", {}, when(step.since))))))));
}
