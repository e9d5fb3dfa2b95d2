// Dice progress chart as inline SVG: each player's dice count per round.

import { h, s } from './dom.js';
import { t } from './i18n/index.js';

const DASHES = [null, '7 3', '2 3', '10 3 2 3', '4 4'];
const COLORS = ['#4f46e5', '#e11d48', '#0891b2', '#ca8a04', '#16a34a', '#9333ea', '#ea580c', '#0d9488', '#db2777', '#64748b'];

/**
 * A line chart of dice counts (or lives); progress = [{round, counts: {player_id: n}}].
 * labels: what is counted and what a step is called ({what: 'Lives', step: 'Hand'}).
 */
export function diceProgressChart(room, progress, { what = t('terms.progress'), step = t('terms.Round') } = {}) {
  const players = [...(room.players || [])].sort((a, b) => a.seat - b.seat);
  if (!progress.length || !players.length) {
    return h('p', { class: 'muted', testid: 'dice-chart' }, t('chart.none'));
  }
  // Drawn at about the size it is shown, so axis labels stay readable on a phone.
  const shown = typeof window !== 'undefined' ? window.innerWidth - 56 : 640;
  const width = Math.round(Math.min(640, Math.max(280, shown)));
  const height = width < 480 ? 220 : 260;
  const pad = { left: 36, right: 16, top: 14, bottom: 34 };
  const maxCount = Math.max(1, ...progress.flatMap((p) => Object.values(p.counts || {})));
  const innerW = width - pad.left - pad.right;
  const innerH = height - pad.top - pad.bottom;
  const x = (i) => pad.left + (progress.length === 1 ? innerW / 2 : (innerW * i) / (progress.length - 1));
  const y = (v) => pad.top + innerH - (innerH * v) / maxCount;

  const grid = [];
  const yStep = Math.max(1, Math.ceil(maxCount / 6));
  for (let v = 0; v <= maxCount; v += yStep) {
    grid.push(s('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: 'grid' }));
    grid.push(s('text', { x: pad.left - 8, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, String(v)));
  }
  const xEvery = Math.max(1, Math.ceil(progress.length / Math.max(4, Math.floor(innerW / 40))));
  progress.forEach((point, i) => {
    if (i % xEvery === 0 || i === progress.length - 1) {
      const label = point.final && i > 0 ? t('chart.end') : String(point.round ?? i + 1);
      grid.push(s('text', { x: x(i), y: height - pad.bottom + 16, 'text-anchor': 'middle', class: 'axis' }, label));
    }
  });
  grid.push(s('text', { x: pad.left + innerW / 2, y: height - 4, 'text-anchor': 'middle', class: 'axis-title' }, step));

  // Equal counts would draw lines on top of each other: each player's line is nudged a little
  // up or down (less than a step) and drawn with its own dash, so every player stays visible.
  const nudge = Math.min(3, (innerH / maxCount) / (players.length + 1));
  const series = players.map((player, index) => {
    const color = COLORS[index % COLORS.length];
    const offset = (index - (players.length - 1) / 2) * nudge;
    const points = progress.map((p, i) => [x(i), y((p.counts || {})[player.id] ?? 0) + offset]);
    return s('g', { class: 'series', 'data-player-id': player.id },
      s('title', {}, player.name),
      s('polyline', {
        points: points.map(([px, py]) => `${px},${py}`).join(' '), fill: 'none', stroke: color, 'stroke-width': 2.5, 'stroke-linejoin': 'round',
        'stroke-dasharray': DASHES[index % DASHES.length],
      }),
      // Markers only while they stay apart; a long game is read from its lines.
      innerW / progress.length >= 8 ? points.map(([px, py]) => s('circle', { cx: px, cy: py, r: 3.5, fill: color })) : null);
  });

  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': t('chart.label', { what, step: step.toLowerCase() }) }, grid, series);
  // Each player's line as text (the picture is not read): "ana: 5, 4, 4, 2".
  const legend = h('ul', { class: 'legend' }, players.map((player, index) => h('li', {},
    h('span', { class: 'swatch', style: { background: COLORS[index % COLORS.length] }, 'aria-hidden': 'true' }), player.name,
    h('span', { class: 'sr-only' }, ': ', progress.map((p) => String((p.counts || {})[player.id] ?? 0)).join(', ')))));
  return h('figure', { class: 'chart-figure', testid: 'dice-chart' }, svg, legend);
}
