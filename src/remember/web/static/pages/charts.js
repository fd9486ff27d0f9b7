// Charts for the dashboard: the vendored Chart.js, loaded on first use, and a chart block that
// always carries its text alternative (an aria-label summary on the canvas and a table of the numbers).

import { h } from "../ui.js";

const LIBRARY = "/static/vendor/chart.umd.min.js";
// Distinguishable on white and for the common colour blindnesses (Okabe-Ito, darkened where needed).
export const COLOURS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000",
  "#8f7b00", "#7f3c8d", "#11a579", "#a5aa99", "#e73f74"];

let loading = null;
export function loadChartJs() {
  if (window.Chart) return Promise.resolve(window.Chart);
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      const script = h("script", { src: LIBRARY });
      script.addEventListener("load", () => resolve(window.Chart));
      script.addEventListener("error", () => {
        loading = null;
        script.remove();
        reject(new Error("The chart library (/static/vendor/chart.umd.min.js) could not be loaded: reload the page."));
      });
      document.head.append(script);
    });
  }
  return loading;
}

// A table of the numbers a chart draws: one row per label, one column per series.
export function numbersTable(caption, rowHeader, labels, series, format = String) {
  return h("table", { class: "numbers" },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, rowHeader), series.map((s) => h("th", { scope: "col" }, s.label)))),
    h("tbody", {}, labels.map((label, i) => h("tr", {},
      h("th", { scope: "row" }, label),
      series.map((s) => h("td", {}, format(s.data[i])))))),
  );
}

// A chart under its heading: the canvas (role img, `summary` as its label) and the numbers in a
// disclosure below it. `draw(Chart, canvas)` makes the Chart.js instance once the library is there.
// `height` (pixels) overrides the stylesheet's, for charts whose size follows their number of bars.
export function chartBlock({ id, title, summary, table, draw, height }) {
  const canvas = h("canvas", { id: `${id}-chart`, role: "img", "aria-label": summary });
  const box = h("div", { class: "chart-box" }, canvas);
  if (height) box.style.height = `${height}px`;
  const block = h("section", { class: "chart-block", "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title` }, title),
    box,
    h("details", { class: "chart-numbers" }, h("summary", {}, `${title}: the numbers`), table),
  );
  return { block, canvas, draw: (Chart) => draw(Chart, canvas) };
}

export function baseOptions(extra = {}) {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    plugins: { legend: { position: "bottom" } },
    ...extra,
  };
}

export function percent(value) {
  return value === null || value === undefined ? "–" : `${Math.round(value * 1000) / 10}%`;
}
