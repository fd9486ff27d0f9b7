// Where each node of the whole-memory graph goes: a force layout in a bounded number of steps, so that
// it settles in a known time at any size. The nodes start on a sunflower spiral, the most connected in
// the middle (the server sends them most connected first); then linked nodes pull together, nodes push
// apart (only neighbours within a few cells of a grid, so a step costs about the number of nodes, not
// its square), and a weak pull keeps every part near the middle. Pure: no page, so a worker can run it.

export const STEPS = 160;
const SPACING = 28;  // the distance the spiral and the push aim at
const GOLDEN = Math.PI * (3 - Math.sqrt(5));

// `count` nodes, `links` pairs of node indexes: [x0, y0, x1, y1, ...] centred on 0, 0.
export function layout(count, links, steps = STEPS) {
  const xy = new Float64Array(count * 2);
  for (let i = 0; i < count; i++) {
    const r = SPACING * Math.sqrt(i + 0.5), a = i * GOLDEN;
    xy[2 * i] = r * Math.cos(a);
    xy[2 * i + 1] = r * Math.sin(a);
  }
  if (count < 2) return Array.from(xy);
  const move = new Float64Array(count * 2);
  const degree = new Float64Array(count);
  for (const [a, b] of links) { degree[a] += 1; degree[b] += 1; }
  let heat = SPACING * 2;
  for (let step = 0; step < steps; step++) {
    move.fill(0);
    push(xy, move, count);
    pull(xy, move, links, degree);
    for (let i = 0; i < count; i++) {
      let dx = move[2 * i] - xy[2 * i] * 0.01, dy = move[2 * i + 1] - xy[2 * i + 1] * 0.01;
      const length = Math.sqrt(dx * dx + dy * dy);
      if (length > heat) { dx *= heat / length; dy *= heat / length; }
      xy[2 * i] += dx;
      xy[2 * i + 1] += dy;
    }
    heat = Math.max(1, heat * 0.97);
  }
  return Array.from(xy);
}

// Nodes closer than two spacings push each other apart; the grid finds them (its cells by number: a
// node's cell is one integer, its nodes a run of one sorted array).
function push(xy, move, count) {
  const cell = SPACING * 2, reach = cell * cell, cellOf = new Float64Array(count), order = new Uint32Array(count);
  const key = (cx, cy) => (cx + 32768) * 65536 + (cy + 32768);
  for (let i = 0; i < count; i++) {
    cellOf[i] = key(Math.floor(xy[2 * i] / cell), Math.floor(xy[2 * i + 1] / cell));
    order[i] = i;
  }
  order.sort((a, b) => cellOf[a] - cellOf[b]);
  const start = new Map();
  for (let k = 0; k < count; k++) {
    const c = cellOf[order[k]];
    if (k === 0 || c !== cellOf[order[k - 1]]) start.set(c, k);
  }
  for (let i = 0; i < count; i++) {
    const cx = Math.floor(xy[2 * i] / cell), cy = Math.floor(xy[2 * i + 1] / cell);
    for (let gx = cx - 1; gx <= cx + 1; gx++) {
      for (let gy = cy - 1; gy <= cy + 1; gy++) {
        const c = key(gx, gy), first = start.get(c);
        if (first === undefined) continue;
        for (let k = first; k < count && cellOf[order[k]] === c; k++) {
          const j = order[k];
          if (j === i) continue;
          let dx = xy[2 * i] - xy[2 * j], dy = xy[2 * i + 1] - xy[2 * j + 1];
          let square = dx * dx + dy * dy;
          if (square >= reach) continue;
          if (square === 0) { dx = ((i * 7919) % 13) - 6 || 1; dy = ((i * 104729) % 11) - 5; square = dx * dx + dy * dy; }
          const d = Math.sqrt(square);
          const force = (SPACING * SPACING) / d / 2;
          move[2 * i] += (dx / d) * force;
          move[2 * i + 1] += (dy / d) * force;
        }
      }
    }
  }
}

// Each link pulls its two ends towards a spacing apart; a node with many links is pulled less by each.
function pull(xy, move, links, degree) {
  for (const [a, b] of links) {
    const dx = xy[2 * b] - xy[2 * a], dy = xy[2 * b + 1] - xy[2 * a + 1];
    const d = Math.sqrt(dx * dx + dy * dy) || 1;
    const force = (d - SPACING) * 0.1;
    const fx = (dx / d) * force, fy = (dy / d) * force;
    move[2 * a] += fx / Math.sqrt(degree[a]);
    move[2 * a + 1] += fy / Math.sqrt(degree[a]);
    move[2 * b] -= fx / Math.sqrt(degree[b]);
    move[2 * b + 1] -= fy / Math.sqrt(degree[b]);
  }
}
