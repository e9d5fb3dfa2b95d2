// Final results: ranking, rating changes, ELO preview and the dice progress chart.

import { h, mount } from './dom.js';
import { api } from './api.js';
import { attempt, navigate, playerById } from './core.js';
import { diceProgressChart } from './chart.js';
import { replayLink } from './records.js';
import { roomSystem } from './systems/index.js';
import { formatRating, ordinal, t } from './i18n/index.js';
import { playAgainButton } from './quickplay.js';

function roomPath(room, suffix) {
  return `/rooms/${encodeURIComponent(room.id)}${suffix}`;
}

function delta(before, after) {
  if (typeof before !== 'number' || typeof after !== 'number') return h('span', { class: 'muted' }, '—');
  const change = Math.round((after - before) * 10) / 10;
  const sign = change > 0 ? '+' : change < 0 ? '−' : '±';
  return h('span', { class: ['delta', change > 0 ? 'up' : change < 0 ? 'down' : ''] }, `${sign}${formatRating(Math.abs(change))}`);
}

function rating(value) {
  return typeof value === 'number' ? formatRating(Math.round(value * 10) / 10) : '—';
}

/** The final results card of a finished room. */
export function resultsCard(room) {
  const results = room.results || { ranking: [], dice_progress: [] };
  const ranking = [...(results.ranking || [])].sort((a, b) => a.rank - b.rank);
  const winner = ranking.length ? playerById(room, ranking[0].player_id) : null;
  const rated = typeof room.rated === 'boolean' ? room.rated : ranking.some((r) => typeof r.rating_before === 'number');
  const me = room.me || {};
  // "Final dice" or "Final lives", "Dice progress" by round or "Lives progress" by hand: the system's words.
  const { terms } = roomSystem(room);
  const final = t(terms.finalPieces);
  const rows = ranking.map((r) => {
    const player = playerById(room, r.player_id) || { name: '?', dice_count: 0 };
    return h('tr', { class: r.player_id === me.player_id ? 'is-me' : '', testid: 'ranking-row', dataset: { playerId: r.player_id } },
      h('td', { class: 'rank', dataset: { label: t('results.rank') } }, ordinal(r.rank)),
      h('td', { class: 'ranking-name', dataset: { label: t('results.player') } }, h('span', { class: 'name-text' }, player.name), player.kind === 'bot' ? h('span', { class: 'pill pill-muted' }, t('results.bot')) : null,
        player.resigned ? h('span', { class: 'pill pill-muted' }, t('results.resigned')) : null),
      h('td', { class: 'num', dataset: { label: final } }, String(player.dice_count ?? 0)),
      rated ? [
        h('td', { class: 'num', dataset: { label: t('results.eloBefore') } }, rating(r.rating_before)),
        h('td', { class: 'num', dataset: { label: t('results.eloAfter') } }, rating(r.rating_after)),
        h('td', { class: 'num', dataset: { label: t('results.change') } }, delta(r.rating_before, r.rating_after)),
      ] : null);
  });
  const follow = [];
  if (room.recreated_as) {
    follow.push(h('a', { class: 'btn btn-primary', href: `#/rooms/${encodeURIComponent(room.recreated_as)}`, testid: 'follow-recreated' }, t('results.goNew')));
  } else if (me.player_id && room.quickplay) {
    follow.push(playAgainButton(room));
  } else if (me.player_id) {
    const button = h('button', {
      class: 'btn btn-primary', testid: 'recreate-room',
      onclick: async () => {
        const fresh = await attempt(() => api('POST', roomPath(room, '/recreate')), button);
        if (fresh && fresh.id) navigate(`#/rooms/${encodeURIComponent(fresh.id)}`);
      },
    }, t('results.playAgain'));
    follow.push(button);
  }
  follow.push(h('a', { class: 'btn btn-ghost', href: '#/leaderboard', testid: 'results-leaderboard' }, t('results.leaderboard')));
  follow.push(h('a', { class: 'btn btn-ghost', href: '#/' }, t('common.backToLobby')));
  return h('section', { class: 'card results', testid: 'final-results' },
    h('div', { class: 'results-head' },
      h('h2', { tabindex: '-1', 'data-focus-fallback': '', testid: 'results-heading' }, t('results.gameOver')),
      winner ? h('p', { class: 'winner-line', testid: 'winner' }, t('results.wins', { name: winner.name })) : null),
    h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('results.finalRanking') },
      h('table', { class: ['ranking-table', rated ? '' : 'is-unrated'], testid: 'ranking-table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('results.rank')), h('th', { scope: 'col' }, t('results.player')), h('th', { class: 'num', scope: 'col' }, final),
          rated ? [h('th', { class: 'num', scope: 'col' }, t('results.eloBefore')), h('th', { class: 'num', scope: 'col' }, t('results.eloAfter')),
            h('th', { class: 'num', scope: 'col' }, t('results.change'))] : null)),
        h('tbody', {}, rows))),
    rated ? null : h('p', { class: 'muted small' }, t('results.unrated')),
    h('h3', {}, t(terms.progress)),
    diceProgressChart(room, results.dice_progress || [], { what: t(terms.progress), step: t(terms.Round) }),
    // One replay link (issue 28 defect 8: there were two).
    h('p', { class: 'small' }, replayLink(room.id, t(terms.replayRounds))),
    me.player_id && rated ? eloPreviewCard(room, { collapsible: true }) : null,
    h('div', { class: 'button-row' }, follow));
}

/**
 * ELO changes preview: the participant orders players (ranks already fixed stay
 * put) and asks the server what that finishing order would change.
 */
export function eloPreviewCard(room, { collapsible = false } = {}) {
  const players = [...(room.players || [])];
  const size = players.length;
  const fixed = new Map(players.filter((p) => p.rank).map((p) => [p.rank, p]));
  const free = players.filter((p) => !p.rank).sort((a, b) => b.dice_count - a.dice_count || a.seat - b.seat);
  // order[i] is the player at finishing position i + 1.
  const order = [];
  let next = 0;
  for (let position = 1; position <= size; position += 1) {
    order.push(fixed.get(position) || free[next++] || null);
  }
  const list = h('ol', { class: 'elo-order', testid: 'elo-order' });
  const output = h('div', { class: 'elo-output', testid: 'elo-output' });

  function move(index, step, way) {
    let target = index + step;
    while (target >= 0 && target < order.length && order[target] && order[target].rank) target += step;
    if (target < 0 || target >= order.length) return;
    [order[index], order[target]] = [order[target], order[index]];
    draw();
    // Focus follows the moved player's same button.
    const item = list.children[target];
    const again = item && item.querySelector(`[data-testid='elo-${way}']`);
    if (again) again.focus();
  }

  function draw() {
    mount(list, order.map((player, index) => {
      if (!player) return null;
      const locked = Boolean(player.rank);
      return h('li', { class: ['elo-item', locked ? 'is-locked' : ''] },
        h('span', { class: 'elo-pos' }, ordinal(index + 1)),
        h('span', { class: 'elo-name' }, player.name),
        locked ? h('span', { class: 'muted small', title: t('results.rankFinal') }, t('results.final')) : h('span', { class: 'button-row' },
          h('button', { type: 'button', class: 'btn btn-ghost btn-small', testid: 'elo-up', 'aria-label': t('results.moveUp', { name: player.name }), onclick: () => move(index, -1, 'up') }, '↑'),
          h('button', { type: 'button', class: 'btn btn-ghost btn-small', testid: 'elo-down', 'aria-label': t('results.moveDown', { name: player.name }), onclick: () => move(index, 1, 'down') }, '↓')));
    }));
  }
  draw();

  const button = h('button', {
    class: 'btn btn-secondary', testid: 'elo-preview-submit',
    onclick: async () => {
      const body = { order: order.filter(Boolean).map((p) => p.id) };
      const answer = await attempt(() => api('POST', roomPath(room, '/elo-preview'), body), button);
      if (!answer) return;
      const changes = answer.changes || [];
      mount(output, changes.length === 0
        ? h('p', { class: 'muted' }, t('results.noChange'))
        : h('table', { class: 'elo-table', testid: 'elo-table' },
          h('thead', {}, h('tr', {}, h('th', {}, t('results.player')), h('th', { class: 'num' }, t('results.now')), h('th', { class: 'num' }, t('results.change')), h('th', { class: 'num' }, t('results.after')))),
          h('tbody', {}, changes.map((c) => h('tr', {},
          h('td', { class: 'elo-table-name' }, (playerById(room, c.player_id) || { name: '?' }).name),
          h('td', { class: 'num' }, rating(c.before)),
          h('td', { class: 'num' }, delta(c.before, c.after)),
          h('td', { class: 'num' }, rating(c.after)))))));
    },
  }, t('results.previewElo'));

  const content = room.rated === false
    ? [h('p', { class: 'muted small', testid: 'elo-unrated' }, t('results.unratedPreview'))]
    : [h('p', { class: 'muted small' }, t('results.arrange')),
      list, button, output];
  if (collapsible) {
    return h('details', { class: 'card elo-card', testid: 'elo-preview' }, h('summary', {}, t('results.eloPreview')), content);
  }
  return h('section', { class: 'card elo-card', testid: 'elo-preview' }, h('h3', {}, t('results.eloPreview')), content);
}

