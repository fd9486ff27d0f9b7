// The whole-memory graph's layout, worked out off the page's thread (a same-origin module worker, which
// the dashboard's CSP allows): the page stays responsive while a large graph settles.

import { layout } from "./graph-layout.js";

self.addEventListener("message", (event) => {
  const { id, count, links } = event.data;
  self.postMessage({ id, xy: layout(count, links) });
});
