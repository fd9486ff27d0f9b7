// Pan and zoom of an SVG drawing: drag (mouse, pen or one finger), the mouse wheel, two fingers pinching,
// the arrow keys and + / - on the focused drawing, and buttons for those who use none of these. The view
// is a transform attribute on one group (not a style: the CSP allows no inline styles).

import { h } from "../ui.js";

const MIN = 0.05, MAX = 8, STEP = 1.25, NUDGE = 60;  // NUDGE: screen pixels an arrow key moves
const FIT = 2;  // a small graph is fitted no larger than this many screen pixels per unit of the drawing

// Call `fit()` once the drawing is on the page. `onScale(k)`: told the screen pixels per unit of the drawing after each change (labels keep their size).
export function panZoom(svg, group, bounds, onScale = () => {}) {
  let scale = 1, x = 0, y = 0, moved = 0;
  const pointers = new Map();
  let pinch = null;
  const apply = () => {
    group.setAttribute("transform", `translate(${x.toFixed(2)} ${y.toFixed(2)}) scale(${scale.toFixed(4)})`);
    onScale(scale / units());
  };
  // Screen pixels to the drawing's own units (its viewBox).
  const units = () => { const box = svg.viewBox.baseVal, rect = svg.getBoundingClientRect(); return rect.width ? box.width / rect.width : 1; };
  const toView = (clientX, clientY) => {
    const rect = svg.getBoundingClientRect(), box = svg.viewBox.baseVal, k = units();
    return [box.x + (clientX - rect.left) * k, box.y + (clientY - rect.top) * k];
  };
  const zoomAt = (factor, vx, vy) => {
    const next = Math.min(MAX, Math.max(MIN, scale * factor));
    x = vx - ((vx - x) * next) / scale;
    y = vy - ((vy - y) * next) / scale;
    scale = next;
    apply();
  };
  const middle = () => { const box = svg.viewBox.baseVal; return [box.x + box.width / 2, box.y + box.height / 2]; };
  const fit = () => {
    const box = svg.viewBox.baseVal;
    const [minX, minY, maxX, maxY] = bounds;
    const w = Math.max(maxX - minX, 1), hgt = Math.max(maxY - minY, 1);
    scale = Math.min(FIT * units(), Math.max(MIN, 0.92 * Math.min(box.width / w, box.height / hgt)));
    x = box.x + box.width / 2 - scale * (minX + maxX) / 2;
    y = box.y + box.height / 2 - scale * (minY + maxY) / 2;
    apply();
  };
  const pan = (dx, dy) => { x += dx * units(); y += dy * units(); apply(); };

  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    zoomAt(event.deltaY < 0 ? 1.1 : 1 / 1.1, ...toView(event.clientX, event.clientY));
  }, { passive: false });
  svg.addEventListener("pointerdown", (event) => {
    pointers.set(event.pointerId, [event.clientX, event.clientY]);
    if (pointers.size === 1) moved = 0;
    if (pointers.size === 2) pinch = spread(pointers);
  });
  svg.addEventListener("pointermove", (event) => {
    const last = pointers.get(event.pointerId);
    if (!last) return;
    if (pointers.size === 1) {
      pan(event.clientX - last[0], event.clientY - last[1]);
      moved += Math.abs(event.clientX - last[0]) + Math.abs(event.clientY - last[1]);
      if (moved > 4 && !svg.hasPointerCapture(event.pointerId)) svg.setPointerCapture(event.pointerId);
    }
    pointers.set(event.pointerId, [event.clientX, event.clientY]);
    if (pointers.size === 2 && pinch) {
      const now = spread(pointers);
      moved += 10;
      zoomAt(now.distance / pinch.distance, ...toView(now.cx, now.cy));
      pinch = now;
    }
  });
  const up = (event) => { pointers.delete(event.pointerId); if (pointers.size < 2) pinch = null; };
  svg.addEventListener("pointerup", up);
  svg.addEventListener("pointercancel", up);
  // A drag that ends on a node is a drag, not a click that opens the memory.
  svg.addEventListener("click", (event) => { if (moved > 4) { event.preventDefault(); moved = 0; } }, true);
  svg.addEventListener("keydown", (event) => {
    const keys = { ArrowLeft: [NUDGE, 0], ArrowRight: [-NUDGE, 0], ArrowUp: [0, NUDGE], ArrowDown: [0, -NUDGE] };
    if (keys[event.key]) { pan(...keys[event.key]); event.preventDefault(); }
    else if (event.key === "+" || event.key === "=") { zoomAt(STEP, ...middle()); event.preventDefault(); }
    else if (event.key === "-") { zoomAt(1 / STEP, ...middle()); event.preventDefault(); }
  });

  const button = (text, label, onclick) => h("button", { type: "button", class: "secondary", "aria-label": label, onclick }, text);
  const controls = h("div", { class: "graph-controls", role: "group", "aria-label": "Move the graph" },
    button("+", "Zoom in", () => zoomAt(STEP, ...middle())),
    button("−", "Zoom out", () => zoomAt(1 / STEP, ...middle())),
    button("Fit", "Fit the graph in view", fit),
    button("←", "Move left", () => pan(NUDGE, 0)), button("→", "Move right", () => pan(-NUDGE, 0)),
    button("↑", "Move up", () => pan(0, NUDGE)), button("↓", "Move down", () => pan(0, -NUDGE)));
  return { controls, fit, scale: () => scale };
}

function spread(pointers) {
  const [[ax, ay], [bx, by]] = [...pointers.values()];
  return { distance: Math.hypot(bx - ax, by - ay) || 1, cx: (ax + bx) / 2, cy: (ay + by) / 2 };
}
