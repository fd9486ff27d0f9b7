// The space the pages read and write, chosen in the header: kept in the address as `space` (a shared
// space's key, or "personal"; none: all of one's spaces), so that reload, Back and a shared link keep it.
// The list of one's spaces (GET /api/spaces) names each and says one's role there.

import { api } from "./api.js";

export const PERSONAL = "personal";

// The space chosen now: "" (all), "personal", or a shared space's key.
export function chosenSpace() {
  const search = location.hash.split("?").slice(1).join("?");
  return new URLSearchParams(search).get("space") || "";
}

// `query` (an object of API query parameters) with the chosen space, for the reads that take one.
export function inSpace(query = {}) {
  const space = chosenSpace();
  return space ? { ...query, space } : query;
}

let known = null;  // a promise of GET /api/spaces, asked once per login and again after a change

export function spaces() {
  if (!known) known = api("/api/spaces").catch((error) => { known = null; throw error; });
  return known;
}

export function forgetSpaces() { known = null; }

// The shared space of `key` as listed (its name, one's role), or undefined.
export async function spaceOf(key) {
  if (!key) return undefined;
  try {
    return (await spaces()).spaces.find((s) => s.space === key);
  } catch (error) {
    return undefined;
  }
}

// The name a memory's space is shown by: its name, or "Personal" for one's own.
export function spaceName(list, key) {
  if (!key) return "Personal";
  const found = list && list.spaces.find((s) => s.space === key);
  return found ? found.name : key;
}

// Whether more than one space is shown now: all of one's spaces, when one belongs to any shared space.
export async function severalShown() {
  if (chosenSpace()) return false;
  try {
    return (await spaces()).spaces.length > 0;
  } catch (error) {
    return false;
  }
}

// An address of the dashboard with the chosen space kept (unless it names one itself).
export function withSpace(address) {
  const space = chosenSpace();
  if (!space || !address.startsWith("#/")) return address;
  const [path, search = ""] = address.split(/\?(.*)/s);
  const query = new URLSearchParams(search);
  if (query.has("space")) return address;
  query.set("space", space);
  return `${path}?${queryText(query)}`;
}

// A query as the address shows it: a space's key keeps its "~" (URLSearchParams would write %7E).
export function queryText(params) {
  return new URLSearchParams(params).toString().replace(/%7E/g, "~");
}
