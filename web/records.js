// Game records: the replay of a finished game (from its hand history), the leaderboard and
// player profiles. Pages of their own (#/rooms/<id>/replay, #/leaderboard, #/users/<name>).

import { h, mount } from './dom.js';
import { api } from './api.js';
import { capitalize } from './play.js';
import { systemOf } from './systems/index.js';

const enc = encodeURIComponent;

function ordinal(n) {
  const rest = n % 100;
  if (rest >= 11 && rest <= 13) return `${n}th`;
  return `${n}${{ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] || 'th'}`;
}

function rating(value) {
  return typeof value === 'number' ? String(Math.round(value * 10) / 10) : '—';
}

function signed(value) {
  const v = Math.round(value * 10) / 10;
  return v > 0 ? `+${v}` : v < 0 ? `−${Math.abs(v)}` : '±0';
}

/** A bid (or claim) of a game with these rules, in words. */
function claimWords(system, bid) {
  if (!bid) return '';
  return system.replay.bidWords(bid);
}

function page(main, title, ...children) {
  mount(main, h('section', { class: 'card records-page' }, h('h2', {}, title), children));
}

function loading(main, title) {
  page(main, title, h('p', { class: 'muted' }, 'Loading…'));
}

function failed(main, title, err) {
  page(main, title, h('p', { class: 'muted', testid: 'records-error' }, err.status === 404 ? 'Not found.' : err.message),
    h('a', { class: 'btn btn-ghost', href: '#/' }, 'Back to lobby'));
}

/** The link to a room's replay (results card, dice progress chart, profiles). */
export function replayLink(roomId, label = 'Replay round by round', testid = 'replay-link') {
  return h('a', { class: 'btn btn-secondary', href: `#/rooms/${enc(roomId)}/replay`, testid }, label);
}

/** A link that downloads a room's hand history as JSON. */
export function downloadLink(history) {
  const blob = new Blob([JSON.stringify(history, null, 2)], { type: 'application/json' });
  return h('a', {
    class: 'btn btn-ghost', testid: 'download-history',
    href: URL.createObjectURL(blob), download: `liars-lies-${history.room_id}.json`,
  }, 'Download hand history (JSON)');
}

function roundPanel(history, record) {
  const names = Object.fromEntries(history.players.map((p) => [p.id, p.name]));
  const name = (id) => names[id] || '?';
  const reveal = record.reveal;
  const system = systemOf(history.rules);
  const { round, pieces, bids: bidsWord } = system.terms;
  const counts = history.players.filter((p) => (record.dice_counts[p.id] || 0) > 0)
    .map((p) => h('li', { testid: 'replay-count', dataset: { playerId: p.id } },
      `${p.name}: ${record.dice_counts[p.id]} ${pieces}`));
  const bids = record.bids.map((b) => h('li', { testid: 'replay-bid', dataset: { playerId: b.player_id } },
    `${name(b.player_id)}: ${claimWords(system, b)}`));
  const hands = system.replay.hands(history, record);
  const outcome = reveal.loser_id
    ? `${name(reveal.loser_id)} loses ${system.replay.loss(reveal)}` +
      (reveal.eliminated.length ? `; out: ${reveal.eliminated.map(name).join(', ')}` : '')
    : 'Nobody loses';
  return h('div', { class: 'replay-round', testid: 'replay-round', dataset: { round: String(record.round) } },
    h('h3', {}, `${capitalize(round)} ${record.round}`),
    h('p', { class: 'muted small' }, 'At the start:'), h('ul', { class: 'replay-counts' }, counts),
    h('p', { class: 'muted small' }, `${capitalize(bidsWord)} in order:`), h('ol', { class: 'replay-bids' }, bids),
    h('p', { testid: 'replay-call' }, `${name(reveal.challenger_id)} called Liar! on ${name(reveal.bid.player_id)}'s ${claimWords(system, reveal.bid)}.`),
    hands,
    h('p', { testid: 'replay-outcome' }, `${system.replay.verdict(reveal)}. ${outcome}.`));
}

/** #/rooms/<id>/replay: step through a finished game round by round. */
export async function renderReplay(main, roomId) {
  loading(main, 'Replay');
  let history;
  try {
    history = await api('GET', `/rooms/${enc(roomId)}/history`);
  } catch (err) {
    failed(main, 'Replay', err);
    return;
  }
  if (!history.complete) {
    page(main, 'Replay', h('p', { testid: 'replay-unfinished' }, 'The replay is available once the game has finished.'),
      h('a', { class: 'btn btn-primary', href: `#/rooms/${enc(roomId)}` }, 'Back to the game'));
    return;
  }
  const rounds = history.rounds;
  const wanted = Number(new URLSearchParams(location.hash.split('?')[1] || '').get('round'));
  let index = Math.max(0, rounds.findIndex((r) => r.round === wanted));
  const slot = h('div', {});
  const position = h('span', { class: 'muted', testid: 'replay-position' });
  const prev = h('button', { class: 'btn btn-ghost', testid: 'replay-prev', onclick: () => show(index - 1) }, '← Previous');
  const next = h('button', { class: 'btn btn-secondary', testid: 'replay-next', onclick: () => show(index + 1) }, 'Next →');
  function show(i) {
    if (!rounds.length) return;
    index = Math.min(rounds.length - 1, Math.max(0, i));
    prev.disabled = index === 0;
    next.disabled = index === rounds.length - 1;
    position.textContent = `${index + 1} of ${rounds.length}`;
    mount(slot, roundPanel(history, rounds[index]));
  }
  const ranking = [...((history.results || {}).ranking || [])].sort((a, b) => a.rank - b.rank);
  const names = Object.fromEntries(history.players.map((p) => [p.id, p.name]));
  page(main, 'Replay',
    h('p', { class: 'muted small' }, `${history.rules} · ${history.players.length} players · ${rounds.length} ${systemOf(history.rules).terms.round}s`),
    rounds.length ? h('div', { class: 'button-row' }, prev, position, next) : h('p', { class: 'muted' }, 'No round was played to a reveal.'),
    slot,
    h('h3', {}, 'Result'),
    h('ol', { testid: 'replay-ranking' }, ranking.map((r) => h('li', {}, `${names[r.player_id] || '?'}`))),
    h('div', { class: 'button-row' }, downloadLink(history),
      h('a', { class: 'btn btn-ghost', href: `#/rooms/${enc(roomId)}` }, 'Back to the results')));
  show(index);
}

/** #/leaderboard: the top registered players. */
export async function renderLeaderboard(main) {
  loading(main, 'Leaderboard');
  let board;
  try {
    board = await api('GET', '/leaderboard?limit=50');
  } catch (err) {
    failed(main, 'Leaderboard', err);
    return;
  }
  const rows = board.players.map((p) => h('tr', { testid: 'leaderboard-row' },
    h('td', { class: 'rank' }, String(p.rank)),
    h('td', {}, h('a', { href: `#/users/${enc(p.name)}`, testid: 'leaderboard-name' }, p.name)),
    h('td', { class: 'num' }, rating(p.rating)),
    h('td', { class: 'num' }, String(p.games))));
  page(main, 'Leaderboard',
    h('p', { class: 'muted small' }, `Registered players with at least ${board.min_games} rated games.`),
    rows.length
      ? h('div', { class: 'table-wrap' }, h('table', { class: 'ranking-table', testid: 'leaderboard' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Rank'), h('th', {}, 'Player'), h('th', { class: 'num' }, 'ELO'), h('th', { class: 'num' }, 'Games'))),
        h('tbody', {}, rows)))
      : h('p', { class: 'muted', testid: 'leaderboard-empty' }, 'Nobody is listed yet.'),
    h('a', { class: 'btn btn-ghost', href: '#/' }, 'Back to lobby'));
}

/** #/users/<name>: a registered player's profile. */
export async function renderProfile(main, username) {
  loading(main, username);
  let profile;
  try {
    profile = await api('GET', `/users/${enc(username)}`);
  } catch (err) {
    failed(main, username, err);
    return;
  }
  const stats = [
    ['ELO', rating(profile.rating)], ['Rated games', String(profile.rated_games)],
    ['Wins', String(profile.wins)], ['Best finish', profile.best_finish ? ordinal(profile.best_finish) : '—'],
  ].map(([k, v]) => h('div', { class: 'stat', testid: 'profile-stat', dataset: { stat: k } }, h('span', { class: 'muted small' }, k), h('strong', {}, v)));
  const games = profile.recent.map((g) => h('tr', { testid: 'profile-game' },
    h('td', {}, (g.finished_at || '').slice(0, 16).replace('T', ' ')),
    h('td', {}, `${ordinal(g.rank)} of ${g.players}`),
    h('td', { class: 'num' }, rating(g.rating_before)),
    h('td', { class: 'num' }, signed(g.delta)),
    h('td', { class: 'num' }, rating(g.rating_after)),
    h('td', {}, h('a', { href: `#/rooms/${enc(g.room_id)}/replay`, testid: 'profile-replay' }, 'Replay'))));
  page(main, profile.name,
    h('div', { class: 'profile-stats', testid: 'profile-stats' }, stats),
    profile.listed ? h('p', {}, h('a', { href: '#/leaderboard' }, 'On the leaderboard')) : h('p', { class: 'muted small' }, 'Listed on the leaderboard from the fifth rated game.'),
    h('h3', {}, 'Latest rating changes'),
    games.length
      ? h('div', { class: 'table-wrap' }, h('table', { class: 'ranking-table', testid: 'profile-games' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Finished (UTC)'), h('th', {}, 'Place'), h('th', { class: 'num' }, 'Before'), h('th', { class: 'num' }, 'Change'), h('th', { class: 'num' }, 'After'), h('th', {}, ''))),
        h('tbody', {}, games)))
      : h('p', { class: 'muted' }, 'No rated game yet.'),
    h('a', { class: 'btn btn-ghost', href: '#/leaderboard' }, 'Leaderboard'));
}
