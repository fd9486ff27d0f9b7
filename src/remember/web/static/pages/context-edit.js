// The part of a memory's edit form for when and where it happened and what it refers to:
// context (timestamp, source, participants), location (address, lat, lon) and references.
// `changes()` gives only what was changed, as the PATCH takes it (context and location whole).

import { h } from "../ui.js";
import { chipInput } from "./chips.js";

export function contextPart(memory, wrap) {
  const context = memory.context || {};
  const place = memory.location || {};
  const participants = chipInput("participants", "Participants", context.participants, "string");
  const references = chipInput("references", "References", memory.references, "string");
  const controls = {
    timestamp: h("input", { type: "text", name: "timestamp", size: 24, value: context.timestamp || "" }),
    source: h("input", { type: "text", name: "source", size: 24, value: context.source || "" }),
    address: h("input", { type: "text", name: "address", size: 40, value: place.address || "" }),
    lat: h("input", { type: "number", name: "lat", step: "any", value: place.lat ?? "" }),
    lon: h("input", { type: "number", name: "lon", step: "any", value: place.lon ?? "" }),
    participants: participants.input,
    references: references.input,
  };
  const node = h("fieldset", { class: "context" }, h("legend", {}, "When, where, and references"),
    wrap("context", "Happened (a date, or date and time: 2026-02-10T18:30)", controls.timestamp),
    wrap("context.source", "Source", controls.source),
    wrap("context.participants", "Participants", controls.participants, participants.list, participants.hint),
    wrap("location", "Place (address)", controls.address),
    h("div", { class: "row" }, wrap("location.lat", "Latitude", controls.lat), wrap("location.lon", "Longitude", controls.lon)),
    wrap("references", "References (links, ids, citations)", controls.references, references.list, references.hint));
  const changes = () => {
    const out = {};
    const nextContext = contextOf(context, controls, participants.read());
    if (JSON.stringify(nextContext) !== JSON.stringify(tidy(context))) out.context = nextContext;
    const nextPlace = placeOf(controls);
    if (JSON.stringify(nextPlace) !== JSON.stringify(memory.location && Object.keys(memory.location).length ? tidy(memory.location) : null)) out.location = nextPlace;
    const refs = references.read() || [];
    if (JSON.stringify(refs) !== JSON.stringify(memory.references || [])) out.references = refs;
    return out;
  };
  return { node, controls, changes };
}

function contextOf(before, controls, people) {
  const out = { ...before };
  for (const [key, control] of [["timestamp", controls.timestamp], ["source", controls.source]]) {
    if (control.value.trim()) out[key] = control.value.trim(); else delete out[key];
  }
  if (people && people.length) out.participants = people; else delete out.participants;
  return tidy(out);
}

function placeOf(controls) {
  const out = {};
  if (controls.address.value.trim()) out.address = controls.address.value.trim();
  if (controls.lat.value !== "") out.lat = Number(controls.lat.value);
  if (controls.lon.value !== "") out.lon = Number(controls.lon.value);
  return Object.keys(out).length ? tidy(out) : null;
}

// Keys in one order, empty values dropped: two objects saying the same compare equal.
function tidy(value) {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined && v !== "").sort(([a], [b]) => a.localeCompare(b)));
}
