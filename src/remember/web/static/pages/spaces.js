// #/spaces: one's shared spaces, their members and roles, and the invitations one has not answered; #/space/<key>:
// one of them. Anyone creates a space (and is its admin), accepts or declines an invitation, and leaves a space;
// an admin on a full-trust session invites members, changes roles and removes members or takes an invitation
// back. Each form's refusal (the last admin, a user id that is not one…) is shown beside it.

import { spacesChanged } from "../app.js";
import { api } from "../api.js";
import { spaces } from "../space.js";
import { announce, clear, errorBox, h, labelled, okBox, stacked } from "../ui.js";

const ROLES = ["reader", "writer", "admin"];
let counter = 0;

export async function render(root, args) {
  const key = args[0];
  const listed = await spaces();
  const shown = key ? listed.spaces.filter((s) => s.space === key) : listed.spaces;
  const status = h("div");
  const full = listed.trust_level >= 1;
  const again = async (message) => {
    await spacesChanged();
    await render(root, args);
    if (message) { clear(root.querySelector(".space-status"), okBox(message)); announce(message); }
  };
  clear(root,
    key ? h("p", {}, h("a", { href: "#/spaces" }, "← All my spaces")) : null,
    h("h1", {}, key && shown.length ? `Space ${shown[0].name}` : "Spaces"),
    h("p", { class: "muted" }, "Memory shared with others: readers read, writers also write, admins manage its members. ",
      `Your personal space (${listed.personal}) is yours alone.`),
    h("div", { class: "space-status" }, status),
    key && !shown.length ? errorBox(`Unknown space ${key}: no space of yours has that key. A space's admin can invite you.`) : null,
    key ? null : invitationsSection(listed.invitations || [], again),
    key ? null : createForm(again),
    key || shown.length ? null : h("p", { class: "muted" }, "You belong to no shared space yet."),
    shown.map((space) => spaceSection(space, full, again)));
}

// The invitations one has not answered: each space's name, the role offered and who offered it.
function invitationsSection(invitations, again) {
  if (!invitations.length) return null;
  return h("section", { class: "space-invitations", "aria-labelledby": "space-invitations-h" },
    h("h2", { id: "space-invitations-h" }, "Invitations"),
    h("p", { class: "muted" }, "A space's memories join your searches once you accept; until then you see nothing of it."),
    h("ul", {}, invitations.map((offer) => invitationItem(offer, again))));
}

function invitationItem(offer, again) {
  const out = h("div");
  const path = `/api/spaces/${encodeURIComponent(offer.space)}`;
  const answer = (verb, done) => async () => {
    try {
      await api(`${path}/${verb}`, { method: "POST" });
      await again(done);
    } catch (error) { clear(out, errorBox(error)); }
  };
  return h("li", {}, h("div", { class: "row" },
    h("span", {}, h("strong", {}, offer.name), ` — ${offer.invited_by} invites you as ${offer.role}`),
    h("button", { type: "button", "aria-label": `Accept the invitation to ${offer.name}`,
      onclick: answer("accept", `Joined space ${offer.name} as ${offer.role}.`) }, "Accept"),
    h("button", { type: "button", class: "secondary", "aria-label": `Decline the invitation to ${offer.name}`,
      onclick: answer("decline", `Declined the invitation to ${offer.name}.`) }, "Decline")), out);
}

function createForm(again) {
  const name = h("input", { type: "text", name: "name", size: 30, autocomplete: "off" });
  const out = h("div");
  return h("form", { class: "edit space-create", "aria-labelledby": "space-create-h", onsubmit: async (event) => {
    event.preventDefault();
    try {
      const made = await api("/api/spaces", { method: "POST", body: { name: name.value } });
      await again(`Created space ${made.spaces[0].name}; you are its admin.`);
    } catch (error) { clear(out, errorBox(error)); }
  } },
  h("h2", { id: "space-create-h" }, "Create a space"),
  h("div", { class: "row" }, labelled("Name", name), h("button", { type: "submit" }, "Create")), out);
}

function spaceSection(space, full, again) {
  const id = `space-${++counter}`;
  const admin = space.role === "admin";
  const manage = admin && full;
  const path = `/api/spaces/${encodeURIComponent(space.space)}`;
  const out = h("div");
  return h("section", { class: "space", "aria-labelledby": id },
    h("h2", { id }, h("a", { href: `#/space/${encodeURIComponent(space.space)}` }, space.name)),
    h("p", { class: "muted" }, `Your role: ${space.role}. Key: `, h("code", {}, space.space), ". ",
      h("a", { href: `#/memories?space=${encodeURIComponent(space.space)}` }, "Its memories.")),
    admin && !full ? h("p", { class: "note", role: "note" }, "Managing members needs a full-trust session: log in with a full-trust token.") : null,
    membersTable(space, manage, path, again),
    manage ? addForm(space, path, again) : null,
    h("p", {}, h("button", { type: "button", class: "secondary", onclick: async () => {
      try {
        await api(`${path}/leave`, { method: "POST" });
        if (location.hash === "#/spaces") await again(`Left space ${space.name}.`);
        else { await spacesChanged(); location.hash = "#/spaces"; announce(`Left space ${space.name}.`); }
      } catch (error) { clear(out, errorBox(error)); }
    } }, `Leave ${space.name}`)), out);
}

function membersTable(space, manage, path, again) {
  const members = space.members || [];
  const invited = space.invited || [];
  return stacked(h("table", { "aria-label": `Members of ${space.name}` },
    h("thead", {}, h("tr", {}, ["Member", "Role", manage ? "Change" : null].filter(Boolean).map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {},
      members.map((m) => h("tr", {},
        h("td", {}, m.user), h("td", {}, m.role), manage ? h("td", {}, memberForm(space, m, path, again)) : null)),
      invited.map((m) => h("tr", { class: "invited" },
        h("td", {}, m.user), h("td", {}, `${m.role} (invited)`), manage ? h("td", {}, takeBack(m, path, again)) : null)))));
}

// An admin takes back an invitation not yet answered.
function takeBack(member, path, again) {
  const out = h("div");
  return h("div", {}, h("button", { type: "button", class: "secondary", "aria-label": `Take back the invitation to ${member.user}`,
    onclick: async () => {
      try {
        await api(`${path}/members/${encodeURIComponent(member.user)}`, { method: "DELETE" });
        await again(`Took back the invitation to ${member.user}.`);
      } catch (error) { clear(out, errorBox(error)); }
    } }, "Take back"), out);
}

// An admin's controls for one member: a new role, or removal; a refusal is shown under them.
function memberForm(space, member, path, again) {
  const role = h("select", { name: "role", "aria-label": `Role of ${member.user}` },
    ROLES.map((r) => h("option", { value: r, selected: r === member.role }, r)));
  const out = h("div");
  const at = `${path}/members/${encodeURIComponent(member.user)}`;
  const act = (method, body, done) => async () => {
    try {
      await api(at, { method, body });
      await again(done);
    } catch (error) { clear(out, errorBox(error)); }
  };
  return h("div", {}, h("div", { class: "row" }, role,
    h("button", { type: "button", class: "secondary", onclick: () => act("PATCH", { role: role.value }, `${member.user} is now ${role.value}.`)() }, "Set role"),
    h("button", { type: "button", class: "danger", "aria-label": `Remove ${member.user}`, onclick: act("DELETE", undefined, `Removed ${member.user}.`) }, "Remove")), out);
}

function addForm(space, path, again) {
  const user = h("input", { type: "text", name: "user", size: 20, autocomplete: "off" });
  const role = h("select", { name: "role" }, ROLES.map((r) => h("option", { value: r }, r)));
  const out = h("div");
  const id = `space-add-${++counter}`;
  return h("form", { class: "edit space-add", "aria-labelledby": id, onsubmit: async (event) => {
    event.preventDefault();
    try {
      await api(`${path}/members`, { method: "POST", body: { user: user.value, role: role.value } });
      await again(`Invited ${user.value.trim()} as ${role.value}; they join when they accept.`);
    } catch (error) { clear(out, errorBox(error)); }
  } },
  h("h3", { id }, `Invite a member to ${space.name}`),
  h("div", { class: "row" }, labelled("User id", user, "Their user id on this server; they need no account first. They join when they accept."),
    labelled("Role", role), h("button", { type: "submit" }, "Invite")), out);
}
