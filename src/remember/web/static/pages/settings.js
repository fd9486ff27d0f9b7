// Settings: preferences, API tokens, import and export (#/settings/preferences|tokens|import|export).

import { api, download } from "../api.js";
import { currentUser } from "../app.js";
import { PERSONAL, spaces } from "../space.js";
import { announce, clear, counted, errorBox, h, labelled, okBox, stacked, when } from "../ui.js";

const SECTIONS = {
  preferences: ["Preferences", preferencesSection],
  tokens: ["Tokens", tokensSection],
  import: ["Import", importSection],
  export: ["Export", exportSection],
};
const WRITERS = ["writer", "admin"];  // the roles that add memories to a shared space
const POLL_MS = 250;  // the first pause between polls of an import; it grows to MAX_POLL_MS
const MAX_POLL_MS = 2000;

export async function render(root, args) {
  const name = SECTIONS[args[0]] ? args[0] : "preferences";
  const links = Object.entries(SECTIONS).map(([key, [title]]) =>
    h("a", { href: `#/settings/${key}`, "aria-current": key === name ? "page" : undefined }, title));
  const body = h("section", { "aria-labelledby": "settings-title" });
  clear(root, h("h1", {}, "Settings"), h("nav", { class: "settings-tabs", "aria-label": "Settings" }, links), body);
  await SECTIONS[name][1](body);
}

function heading(body, text) {
  body.append(h("h2", { id: "settings-title" }, text));
}

// One's spaces as [value, name] choices: the personal space, then the shared ones whose role is in `roles`.
async function spaceChoices(roles) {
  let listed = { spaces: [] };
  try { listed = await spaces(); } catch (error) { /* the personal space alone */ }
  const shared = listed.spaces.filter((s) => !roles || roles.includes(s.role)).map((s) => [s.space, s.name]);
  return [[PERSONAL, "Personal"], ...shared];
}

function spaceSelect(name, choices) {
  return h("select", { name }, choices.map(([value, text]) => h("option", { value }, text)));
}

// ---- Preferences -------------------------------------------------------------------------------

function capital(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

function label(path) { return capital(path.split(".").slice(1).join(".").replace(/_/g, " ")); }

function control(spec, value) {
  if (spec.kind === "bool") return h("input", { type: "checkbox", checked: value === true });
  if (spec.choices.length) {
    return h("select", {}, spec.choices.map((c) => h("option", { value: c, selected: c === value }, c)));
  }
  if (spec.kind === "int" || spec.kind === "float") {
    return h("input", { type: "number", step: spec.kind === "int" ? "1" : "any", min: spec.minimum ?? undefined,
      max: spec.maximum ?? undefined, value: String(value) });
  }
  if (spec.kind === "str_list") return h("textarea", { rows: 3, class: "short" }, (value || []).join("\n"));
  return h("input", { type: "text", value: String(value ?? "") });
}

function valueOf(spec, input) {
  if (spec.kind === "bool") return input.checked;
  if (spec.kind === "int" || spec.kind === "float") return input.value.trim() === "" ? null : Number(input.value);
  if (spec.kind === "float_or_auto") {  // "auto", or a number (anything else is sent as typed, for the server to name)
    const given = input.value.trim();
    return given === "" || Number.isNaN(Number(given)) ? given : Number(given);
  }
  if (spec.kind === "str_list") return input.value.split("\n").map((s) => s.trim()).filter(Boolean);
  return input.value;
}

function show(field, value) {
  if (field.spec.kind === "bool") field.input.checked = value === true;
  else if (field.spec.kind === "str_list") field.input.value = (value || []).join("\n");
  else field.input.value = String(value ?? "");
}

async function preferencesSection(body) {
  heading(body, "Preferences");
  const data = await api("/api/preferences");
  const current = (path) => { const [c, ...rest] = path.split("."); return data.preferences[c][rest.join(".")]; };
  const fields = new Map();  // path -> {spec, input, problem}
  const groups = new Map();
  for (const spec of data.specs) {
    const input = control(spec, current(spec.path));
    input.name = spec.path;
    const problem = h("div", { class: "field-error", id: `problem-${spec.path.replace(/\W/g, "-")}` });
    fields.set(spec.path, { spec, input, problem });
    if (!groups.has(spec.category)) groups.set(spec.category, h("fieldset", {}, h("legend", {}, capital(spec.category))));
    const row = labelled(label(spec.path), input, `${spec.description} (${spec.path})`);
    row.append(problem);
    groups.get(spec.category).append(row);
  }
  const reason = h("input", { type: "text", name: "reason", size: 50 });
  const outcome = h("div");
  const form = h("form", { class: "preferences", novalidate: true, onsubmit: async (event) => {
    event.preventDefault();
    clear(outcome);
    const values = {};
    for (const [path, f] of fields) {
      f.problem.textContent = "";
      f.input.removeAttribute("aria-invalid");
      const value = valueOf(f.spec, f.input);
      if (JSON.stringify(value) !== JSON.stringify(current(path))) values[path] = value;
    }
    if (!Object.keys(values).length) { clear(outcome, okBox("Nothing to save: no preference was changed.")); return; }
    try {
      const answer = await api("/api/preferences", { method: "PATCH", body: { values, reason: reason.value || undefined } });
      for (const c of answer.changes) {
        const [cat, ...rest] = c.preference_path.split(".");
        data.preferences[cat][rest.join(".")] = c.new_value;
        show(fields.get(c.preference_path), c.new_value);  // as stored: e.g. a type in snake case
      }
      const text = `Saved ${answer.changes.length} preference${answer.changes.length === 1 ? "" : "s"}.`;
      clear(outcome, okBox(text));
      announce(text);
    } catch (error) {
      showProblems(error, fields, reason);
      clear(outcome, errorBox(error));
    }
  } },
    [...groups.values()],
    labelled("Reason (optional)", reason, "Kept in the preferences' history."),
    h("p", {}, h("button", { type: "submit" }, "Save preferences")),
    outcome,
  );
  body.append(form);
}

function showProblems(error, fields, reason) {
  let first = null;
  for (const problem of error.errors || []) {
    const f = fields.get(problem.field);
    const input = f ? f.input : problem.field === "reason" ? reason : null;
    if (!input) continue;
    if (f) {
      f.problem.textContent = problem.message;
      input.setAttribute("aria-describedby", `${input.getAttribute("aria-describedby") || ""} ${f.problem.id}`.trim());
    }
    input.setAttribute("aria-invalid", "true");
    first = first || input;
  }
  if (first) first.focus();
}

// ---- Tokens ----------------------------------------------------------------------------------

async function tokensSection(body) {
  heading(body, "API tokens");
  const me = currentUser() || { trust_level: 1 };
  const list = h("div");
  const made = h("div");
  let listed = { personal: null, spaces: [] };
  try { listed = await spaces(); } catch (error) { /* shown without names */ }
  const names = new Map(listed.spaces.map((s) => [s.space, s.name]));
  if (listed.personal) names.set(listed.personal, "Personal");
  const choices = [...(listed.personal ? [[PERSONAL, "Personal"]] : []), ...listed.spaces.map((s) => [s.space, s.name])];
  body.append(
    h("p", { class: "muted" }, "Each token lets a client (an assistant, a script, this dashboard) act for you. ",
      "Only a hash is kept: a token's secret is shown once, when it is made."),
    createForm(me, made, () => refresh(list, names), choices),
    made,
    h("h3", {}, "Your tokens"),
    list,
  );
  await refresh(list, names);
}

// The spaces a new token is limited to: a box per space; none ticked, it reaches what this session reaches.
function spaceBoxes(choices) {
  const boxes = choices.map(([value, text]) => [value, h("input", { type: "checkbox", name: "spaces", value })]);
  const node = h("fieldset", { class: "choice token-spaces" },
    h("legend", {}, "Limit to spaces"),
    boxes.map(([, box], i) => h("label", { class: "inline" }, box, " ", choices[i][1])),
    h("div", { class: "muted" }, "None ticked: every space this session reaches."));
  return { node, chosen: () => boxes.filter(([, box]) => box.checked).map(([value]) => value),
    reset: () => boxes.forEach(([, box]) => { box.checked = false; }) };
}

function createForm(me, made, done, choices) {
  const name = h("input", { type: "text", name: "name", size: 30, placeholder: "laptop" });
  const expires = h("input", { type: "text", name: "expires", size: 8, placeholder: "30d" });
  const trust = h("input", { type: "number", name: "trust_level", min: 0, max: me.trust_level, step: "any",
    value: String(me.trust_level) });
  const problems = h("div");
  const limit = spaceBoxes(choices);
  const inputs = { name, expires, trust_level: trust };
  return h("form", { class: "card", novalidate: true, onsubmit: async (event) => {
    event.preventDefault();
    clear(problems);
    clear(made);
    for (const input of Object.values(inputs)) input.removeAttribute("aria-invalid");
    try {
      const token = await api("/api/tokens", { method: "POST", body: {
        name: name.value || undefined, expires: expires.value || undefined,
        trust_level: trust.value === "" ? undefined : Number(trust.value),
        spaces: limit.chosen().length ? limit.chosen() : undefined } });
      clear(made, secretBox(token));
      name.value = ""; expires.value = ""; limit.reset();
      announce(`Token ${token.id} made: copy its secret now.`);
      await done();
    } catch (error) {
      for (const p of error.errors || []) if (inputs[p.field]) inputs[p.field].setAttribute("aria-invalid", "true");
      clear(problems, errorBox(error));
    }
  } },
    h("h3", {}, "Make a token"),
    h("div", { class: "row" },
      labelled("Name", name),
      labelled("Expires after", expires, "e.g. 90m, 12h, 30d, 2w; empty: never"),
      labelled("Trust level", trust, `0 to ${me.trust_level}: the most trusted memories it reads`)),
    limit.node,
    h("p", {}, h("button", { type: "submit" }, "Make token")),
    problems,
  );
}

function secretBox(token) {
  const secret = h("input", { type: "text", readonly: true, value: token.token, size: 70, class: "secret" });
  const copied = h("span", { class: "muted", role: "status" });
  const copy = h("button", { type: "button", class: "secondary", onclick: async () => {
    try {
      await navigator.clipboard.writeText(token.token);
      copied.textContent = "Copied.";
    } catch (e) {
      secret.select();
      copied.textContent = "Selected: press Ctrl+C (or ⌘C) to copy.";
    }
  } }, "Copy");
  return h("div", { class: "ok" },
    h("p", {}, h("strong", {}, "Copy this token now: it is not shown again.")),
    labelled(`Secret of token ${token.id}`, secret), h("p", {}, copy, " ", copied));
}

async function refresh(list, names) {
  const { tokens } = await api("/api/tokens");
  if (!tokens.length) { clear(list, h("p", { class: "muted" }, "You have no tokens.")); return; }
  const rows = tokens.map((t) => tokenRow(t, list, names));
  clear(list, stacked(h("table", {},
    h("thead", {}, h("tr", {}, ["Id", "Name", "Trust level", "Spaces", "Made", "Expires", "Last used", "State", "Action"]
      .map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows))));
}

function state(t) {
  if (t.revoked_at) return `revoked ${when(t.revoked_at)}`;
  if (t.expires_at && new Date(t.expires_at) < new Date()) return "expired";
  return "active";
}

// The spaces a token reaches, by name ("all" when it is not limited; a key when the space is gone).
function reach(t, names) {
  if (!t.spaces) return "all";
  return t.spaces.map((key) => names.get(key) || key).sort().join(", ");
}

function tokenRow(t, list, names) {
  const action = h("td");
  const revokeButton = h("button", { type: "button", class: "danger", onclick: () => confirmRevoke(t, action, list, names) },
    `Revoke ${t.name || t.id}`);
  if (!t.revoked_at) action.append(revokeButton);
  return h("tr", { dataset: { token: t.id } },
    h("td", {}, h("code", {}, t.id)), h("td", {}, t.name || "", t.current ? h("span", { class: "tag" }, "this session") : null),
    h("td", {}, String(t.trust_level)), h("td", {}, reach(t, names)), h("td", {}, when(t.created_at)), h("td", {}, when(t.expires_at) || "never"),
    h("td", {}, when(t.last_used_at) || "never"), h("td", {}, state(t)), action);
}

function confirmRevoke(t, cell, list, names) {
  const warning = t.current ? " This is the token of this session: you will be logged out." : "";
  const problems = h("div");
  const yes = h("button", { type: "button", class: "danger", onclick: async () => {
    try {
      const answer = await api(`/api/tokens/${encodeURIComponent(t.id)}`, { method: "DELETE" });
      announce(answer.logged_out ? "This session's token is revoked." : `Token ${t.id} revoked.`);
      await refresh(list, names);  // after revoking this session's own token, this request logs the browser out
    } catch (error) {
      clear(problems, errorBox(error));
    }
  } }, "Yes, revoke");
  const no = h("button", { type: "button", class: "secondary", onclick: () => refresh(list, names) }, "Cancel");
  clear(cell, h("div", { role: "group", "aria-label": `Revoke token ${t.id}` },
    h("p", {}, `Revoke ${t.name || t.id}? Clients using it are refused from their next request.${warning}`), yes, " ", no, problems));
  no.focus();
}

// ---- Import ----------------------------------------------------------------------------------

const FORMAT_NAMES = {
  "remember": "remember export (JSON Lines, restored into an empty account)",
  "server-memory": "MCP server-memory (JSON Lines graph)",
  "mcp-memory-service": "mcp-memory-service export (JSON)",
  "mem0": "mem0 export (JSON)",
  "basic-memory": "basic-memory notes (one Markdown file, or a zip of them)",
};

function mebibytes(bytes) {
  return bytes >= 1 << 20 ? `${+(bytes / (1 << 20)).toFixed(2)} MiB` : `${+(bytes / 1024).toFixed(1)} KiB`;
}

async function importSection(body) {
  heading(body, "Import");
  const limits = await api("/api/imports");
  const into = spaceSelect("space", await spaceChoices(WRITERS));
  const file = h("input", { type: "file", name: "file", required: true });
  const format = h("select", { name: "format" }, limits.formats.map((f) => h("option", { value: f }, FORMAT_NAMES[f] || f)));
  const dry = h("input", { type: "checkbox", name: "dry_run" });
  const conflict = h("select", { name: "on_conflict" }, [
    h("option", { value: "refuse" }, "refuse the import: nothing is stored"),
    h("option", { value: "skip" }, "skip them: what you have stays as it is"),
    h("option", { value: "replace" }, "replace what you have with the file's"),
  ]);
  const progress = h("div");
  const start = h("button", { type: "submit" }, "Start import");
  body.append(
    h("p", { class: "muted" }, `A file of at most ${mebibytes(limits.max_bytes)} (the server's REMEMBER_HTTP_MAX_BODY). `,
      "Larger ones: `remember import FILE` on the server. Importing the same data again stores nothing twice."),
    h("form", { novalidate: true, onsubmit: async (event) => {
      event.preventDefault();
      clear(progress);
      const chosen = file.files[0];
      if (!chosen) { clear(progress, errorBox("Choose the file to import.")); file.focus(); return; }
      if (chosen.size > limits.max_bytes) {
        clear(progress, errorBox(`${chosen.name} is ${mebibytes(chosen.size)}: this server takes at most ` +
          `${mebibytes(limits.max_bytes)} in one upload (REMEMBER_HTTP_MAX_BODY). Split it, or run ` +
          "`remember import` on the server."));
        return;
      }
      start.disabled = true;
      try {
        await runImport(chosen, { format: format.value, dryRun: dry.checked, onConflict: conflict.value,
          space: into.value }, progress);
      } finally {
        start.disabled = false;
      }
    } },
      labelled("File to import", file),
      labelled("Format", format),
      labelled("Import into", into, "Your personal space, or a shared space where you write: you are recorded as the author of what is stored there."),
      labelled("Records of a remember export you have already (same id)", conflict),
      h("div", { class: "control" }, h("label", { class: "inline" }, dry, " Dry run: read and check everything, store nothing")),
      h("p", {}, start),
    ),
    progress,
  );
}

function upload(chosen, { format, dryRun, onConflict, space }) {
  const query = { format, dry_run: dryRun ? "1" : "0", name: chosen.name };
  if (format === "remember") query.on_conflict = onConflict;
  if (space && space !== PERSONAL) query.space = space;
  return api("/api/imports", { method: "POST", query, file: chosen });
}

async function runImport(chosen, options, box) {
  const { dryRun } = options;
  const bar = h("progress", { class: "import", max: 1, value: 0, id: "import-progress" });
  const counts = h("p", { class: "muted" }, "Uploading…");
  const report = h("div");
  clear(box, h("h3", {}, dryRun ? "Dry run" : "Importing"),
    h("label", { for: "import-progress" }, `Progress of ${chosen.name}`), bar, counts, report);
  let job;
  try {
    job = await upload(chosen, options);
    let pause = POLL_MS;
    while (true) {
      showProgress(job, bar, counts);
      if (job.state !== "running") break;
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 1.25, MAX_POLL_MS);
      try {
        job = await api(`/api/imports/${encodeURIComponent(job.id)}`);
      } catch (error) {
        if (error.status !== 429 && error.status !== 503) throw error;
        pause = MAX_POLL_MS;  // rate-limited or the database is busy: ask again later
      }
    }
  } catch (error) {
    clear(report, errorBox(error));
    return;
  }
  if (job.state === "failed") {
    clear(report, errorBox(job.error));
    announce("The import failed.");
    return;
  }
  clear(report, importReport(job.report));
  const created = counted(job.report.created, "memory");
  announce(dryRun ? `Dry run done: ${created} would be stored.` : `Import done: ${created} stored.`);
}

function showProgress(job, bar, counts) {
  bar.max = Math.max(job.total, 1);
  bar.value = job.state === "running" ? job.done : bar.max;
  const stored = job.dry_run ? "would store" : "stored";
  counts.textContent = job.state === "running"
    ? `Running: ${job.done} of ${counted(job.total, "memory")} gone through; read ${job.read}, skipped ${job.skipped}.`
    : `${job.state === "done" ? "Done" : "Failed"}: read ${job.read}, ${stored} ${job.stored}, skipped ${job.skipped}.`;
}

function importReport(r) {
  const verb = r.dry_run ? "Would store" : "Stored";
  const lines = [`${verb} ${counted(r.created, "memory")} of ${r.read} read (${r.format}).`];
  if (r.already_present) lines.push(`Stored already (not stored again): ${r.already_present}.`);
  if (r.replaced) lines.push(`Stored already and replaced by the file's: ${r.replaced}.`);
  if (r.repeated_in_source) lines.push(`Repeated in the file (stored once): ${r.repeated_in_source}.`);
  for (const [why, n] of Object.entries(r.links || {})) lines.push(`Links: ${n} ${why}.`);
  for (const [what, n] of Object.entries(r.templates || {})) lines.push(`Templates: ${n} ${what}.`);
  for (const [what, n] of Object.entries(r.unmapped || {})) lines.push(`Not mapped: ${what} (${counted(n, "record")}).`);
  for (const [what, n] of Object.entries(r.left_out || {})) lines.push(`Left out: ${counted(n, what.replace(/s$/, ""))} (a shared space has none of its own).`);
  const skipped = (r.skipped || []).length
    ? h("div", {}, h("h4", {}, `Skipped ${counted(r.skipped.length, "record")}`),
      h("ul", {}, r.skipped.slice(0, 100).map((s) => h("li", {}, `${s.where}: ${s.why}`))))
    : null;
  const examples = r.dry_run && (r.examples || []).length
    ? h("div", {}, h("h4", {}, "For example"),
      h("ul", {}, r.examples.map((e) => h("li", {}, `[${e.type}] ${e.title || ""}: ${String(e.content).slice(0, 100)}`))))
    : null;
  return h("div", { class: "card", "aria-label": "Import report", role: "region" },
    lines.map((l) => h("p", {}, l)), skipped, examples);
}

// ---- Export ----------------------------------------------------------------------------------

async function exportSection(body) {
  heading(body, "Export");
  const problems = h("div");
  const from = spaceSelect("space", await spaceChoices(null));
  const save = (format) => async () => {
    clear(problems);
    try {
      await download("/api/export", from.value === PERSONAL ? { format } : { format, space: from.value });
    } catch (error) {
      clear(problems, errorBox(error));
    }
  };
  // Buttons, not links: the download is fetched with the session's header (a link would carry no credential).
  const link = (format, text, what) => h("li", {},
    h("button", { type: "button", class: "secondary", onclick: save(format) }, text), " — ", what);
  body.append(
    h("p", {}, "Download the memories of a space of yours (those your session's trust level reaches) as ", h("code", {}, "remember export"), " writes them; the file is named after the space."),
    labelled("Space to export", from, "Your personal space, or a shared space you are a member of."),
    h("ul", { class: "downloads" },
      link("jsonl", "remember export (JSON Lines)", "everything: memories with history, templates, preferences (a shared space has none); import it with `remember import`."),
      link("server-memory", "server-memory file (JSON Lines)", "the MCP reference memory server's knowledge graph."),
      link("markdown", "Markdown notes (zip)", "one note per memory with YAML frontmatter, for any editor or Obsidian."),
    ),
    problems,
  );
}
