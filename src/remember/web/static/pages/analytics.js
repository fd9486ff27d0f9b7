// Analytics as pictures: #/analytics (the user's memories over time, by type and by template) and
// #/analytics/<template id> (a template's completion, fill rates, common values and suggestions). The
// templates to pick are those of the space chosen in the header (all of one's spaces when none is, each
// then naming its space); a template's figures are of the memories of its own space.
// Every chart has a heading, a summary as the canvas's label, and a table of the same numbers.

import { api } from "../api.js";
import { inSpace, spaceName, spaces, withSpace } from "../space.js";
import { announce, clear, counted, errorBox, h, labelled } from "../ui.js";
import { baseOptions, chartBlock, COLOURS, loadChartJs, numbersTable, percent } from "./charts.js";

const BUCKETS = [["", "Automatic"], ["day", "Day"], ["week", "Week"], ["month", "Month"], ["year", "Year"]];
const WHEN = [["created", "When it was stored"], ["occurred", "When it happened"]];

// Charts whose canvas left the page (another address, a redraw) are destroyed; only those, so a
// view still loading never touches the charts of the one shown.
function forgetCharts() {
  if (!window.Chart) return;
  for (const chart of Object.values(window.Chart.instances)) {
    if (!chart.canvas || !chart.canvas.isConnected) chart.destroy();
  }
}

export async function render(root, args) {
  forgetCharts();
  const [templateId] = args;
  const body = h("div", { id: "analytics-body" });
  const choices = (await api("/api/analytics/templates", { query: inSpace() })).templates;
  const named = choices.some((t) => t.space) ? await spaces().catch(() => null) : null;
  clear(root,
    h("h1", {}, templateId ? "Template analytics" : "Analytics"),
    templatePicker(choices, templateId, named),
    body,
  );
  if (templateId) await showTemplate(body, templateId, choices);
  else await showOverview(body);
}

function templatePicker(choices, current, named) {
  const select = h("select", { name: "template" },
    h("option", { value: "" }, "All memories (overview)"),
    choices.map((t) => h("option", { value: t.id, selected: t.id === current }, `${t.name}${t.space ? ` — ${spaceName(named, t.space)}` : ""} (${t.usage_count})`)));
  return h("form", { class: "row analytics-picker", onsubmit: (event) => {
    event.preventDefault();
    location.hash = withSpace(select.value ? `#/analytics/${encodeURIComponent(select.value)}` : "#/analytics");
  } },
    labelled("Template", select),
    h("div", { class: "control" }, h("button", { type: "submit" }, "Show")),
  );
}

function choice(label, options, value, onchange) {
  const select = h("select", { onchange: () => onchange(select.value) },
    options.map(([v, text]) => h("option", { value: v, selected: v === value }, text)));
  return labelled(label, select);
}

// ---- the overview

async function showOverview(body, state = { bucket: "", when: "created" }) {
  const redraw = (change) => showOverview(body, { ...state, ...change }).then(() => announce("Charts updated."));
  const controls = h("div", { class: "row" },
    choice("Period", BUCKETS, state.bucket, (bucket) => redraw({ bucket })),
    choice("Count memories by", WHEN, state.when, (when) => redraw({ when })));
  let figures;
  try {
    figures = await api("/api/analytics/overview", { query: inSpace(state) });
  } catch (error) {
    clear(body, controls, errorBox(error));  // the controls stay: a bucket too fine for the data is chosen again
    forgetCharts();
    return;
  }
  if (!figures.totals.memories) {
    clear(body, controls, h("p", {}, "No memories yet: what your assistant remembers will be counted here."));
    forgetCharts();
    return;
  }
  const unit = figures.bucket;
  const blocks = [
    seriesChart("by-type", `Memories per ${unit} by type`, figures.periods, figures.by_type.map((r) => ({ label: r.type, data: r.counts, total: r.total }))),
    seriesChart("by-template", `Memories per ${unit} by template`, figures.periods, figures.by_template.map((r) => ({ label: r.name, data: r.counts, total: r.total }))),
  ];
  clear(body, controls, totalsList(figures.totals), blocks.map((b) => b.block));
  await drawAll(body, blocks);
}

function totalsList(totals) {
  const item = (label, value) => h("div", {}, h("dt", {}, label), h("dd", {}, String(value)));
  return h("dl", { class: "totals", "aria-label": "Totals" },
    item("Memories", totals.memories), item("Made with a template", totals.with_template),
    item("Types", totals.types), item("Templates used", totals.templates),
    item("First", day(totals.first)), item("Last", day(totals.last)));
}

function day(iso) { return iso ? iso.slice(0, 10) : "–"; }

function seriesChart(id, title, periods, series) {
  const summary = `${title}, ${periods[0]} to ${periods[periods.length - 1]}: `
    + series.map((s) => `${s.label} ${s.total}`).join(", ") + ".";
  return chartBlock({
    id, title, summary,
    table: numbersTable(title, "Period starting", periods, series),
    draw: (Chart, canvas) => new Chart(canvas, {
      type: "bar",
      data: { labels: periods, datasets: series.map((s, i) => ({ label: s.label, data: s.data, backgroundColor: COLOURS[i % COLOURS.length] })) },
      options: baseOptions({ scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } } }),
    }),
  });
}

async function drawAll(body, blocks) {
  let Chart;
  try {
    Chart = await loadChartJs();
  } catch (error) {
    body.prepend(errorBox(error));
    return;
  }
  forgetCharts();
  if (!body.isConnected) return;  // the address changed meanwhile
  for (const block of blocks) block.draw(Chart);
}

// ---- one template

async function showTemplate(body, templateId, choices, state = { bucket: "" }) {
  const redraw = (change) => showTemplate(body, templateId, choices, { ...state, ...change }).then(() => announce("Charts updated."));
  let figures;
  try {
    figures = await api(`/api/analytics/templates/${encodeURIComponent(templateId)}`, { query: state });
  } catch (error) {
    const period = error.status === 422 ? h("div", { class: "row" }, choice("Suggestion period", BUCKETS, state.bucket, (bucket) => redraw({ bucket }))) : null;
    clear(body, period, errorBox(error), h("p", {}, h("a", { href: "#/analytics" }, "Back to the overview")));
    forgetCharts();
    return;
  }
  const heading = h("h2", { class: "template-name" }, `${figures.name} `, h("span", { class: "muted" }, `(${figures.template_id}, version ${figures.version})`));
  const values = valueCharts(figures);
  const blocks = [completionChart(figures), fillChart(figures), ...values, acceptanceChart(figures.acceptance_over_time)];
  clear(body,
    heading,
    templateTotals(figures),
    figures.memory_count ? null : h("p", {}, "No memories made with this template yet."),
    blocks.slice(0, 2).map((b) => b.block),
    values.length ? h("div", { class: "grid2 value-charts" }, values.map((b) => b.block)) : null,
    h("div", { class: "row" }, choice("Suggestion period", BUCKETS, state.bucket, (bucket) => redraw({ bucket }))),
    blocks[blocks.length - 1].block,
  );
  await drawAll(body, blocks);
}

function templateTotals(f) {
  const item = (label, value) => h("div", {}, h("dt", {}, label), h("dd", {}, String(value)));
  return h("dl", { class: "totals", "aria-label": "Totals" },
    item("Memories", f.memory_count), item("Average completion", percent(f.average_completion_rate)),
    item("Compliant", percent(f.compliance_rate)), item("Suggested", f.suggested),
    item("Applied after a suggestion", f.applied_after_suggestion), item("Acceptance", percent(f.acceptance_rate)));
}

function completionChart(f) {
  const bands = f.completion_distribution;
  const labels = bands.map((b) => b.band);
  const data = bands.map((b) => b.count);
  const title = "Completion";
  const summary = `How complete its ${counted(f.memory_count, "memory")} ${f.memory_count === 1 ? "is" : "are"}: ` + bands.map((b) => `${b.band} ${b.count}`).join(", ") + ".";
  return chartBlock({
    id: "completion", title, summary,
    table: numbersTable(title, "Fields filled", labels, [{ label: "Memories", data }]),
    draw: (Chart, canvas) => new Chart(canvas, {
      type: "bar",
      data: { labels, datasets: [{ label: "Memories", data, backgroundColor: COLOURS[0] }] },
      options: baseOptions({ plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } }),
    }),
  });
}

function fillChart(f) {
  const fields = Object.entries(f.field_usage_statistics);
  const labels = fields.map(([name]) => name);
  const rates = fields.map(([, s]) => Math.round(s.fill_rate * 1000) / 10);
  const title = "Fill rate per field";
  const summary = `Share of its ${counted(f.memory_count, "memory")} that fill each field: ` + fields.map(([name, s]) => `${name} ${percent(s.fill_rate)}`).join(", ") + ".";
  const table = h("table", { class: "numbers" },
    h("caption", {}, title),
    h("thead", {}, h("tr", {}, ["Field", "Filled", "Fill rate"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, fields.map(([name, s]) => h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, String(s.filled)), h("td", {}, percent(s.fill_rate))))));
  return chartBlock({
    id: "fill", title, summary, table, height: 60 + 36 * Math.max(1, fields.length),
    draw: (Chart, canvas) => new Chart(canvas, {
      type: "bar",
      data: { labels, datasets: [{ label: "Fill rate (%)", data: rates, backgroundColor: COLOURS[2] }] },
      options: baseOptions({ indexAxis: "y", plugins: { legend: { display: false } }, scales: { x: { min: 0, max: 100, ticks: { callback: (v) => `${v}%` } } } }),
    }),
  });
}

function valueCharts(f) {
  const charts = Object.entries(f.most_common_values || {}).map(([field, values], n) => {
    const labels = values.map((v) => String(v.value));
    const data = values.map((v) => v.count);
    const title = `Common values of ${field}`;
    const summary = `${title}: ` + values.map((v) => `${String(v.value)} ${v.count}`).join(", ") + ".";
    return chartBlock({
      id: `values-${n}`, title, summary, height: 60 + 36 * values.length,
      table: numbersTable(title, "Value", labels, [{ label: "Memories", data }]),
      draw: (Chart, canvas) => new Chart(canvas, {
        type: "bar",
        data: { labels, datasets: [{ label: "Memories", data, backgroundColor: COLOURS[(n + 3) % COLOURS.length] }] },
        options: baseOptions({ indexAxis: "y", plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } }),
      }),
    });
  });
  return charts;
}

function acceptanceChart(a) {
  const title = `Suggestions per ${a.bucket}: shown and applied`;
  const series = [{ label: "Shown", data: a.shown }, { label: "Applied", data: a.applied }];
  const sum = (xs) => xs.reduce((x, y) => x + y, 0);
  const summary = a.periods.length
    ? `${title}, ${a.periods[0]} to ${a.periods[a.periods.length - 1]}: shown ${sum(a.shown)}, applied ${sum(a.applied)}.`
    : `${title}: never suggested yet.`;
  return chartBlock({
    id: "acceptance", title, summary,
    table: numbersTable(title, "Period starting", a.periods, series),
    draw: (Chart, canvas) => new Chart(canvas, {
      type: "bar",
      data: { labels: a.periods, datasets: series.map((s, i) => ({ label: s.label, data: s.data, backgroundColor: COLOURS[i] })) },
      options: baseOptions({ scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } }),
    }),
  });
}
