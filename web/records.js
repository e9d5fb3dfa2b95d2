// Game records: the replay of a finished game (from its hand history), the leaderboard and
// player profiles. Pages of their own (#/rooms/<id>/replay, #/leaderboard, #/users/<name>).

import { h, mount } from './dom.js';
import { api } from './api.js';
import { errorMessage } from './messages.js';
import { systemLabel, systemOf } from './systems/index.js';
import { formatDate, formatNumber, formatRating, ordinal, t } from './i18n/index.js';

const enc = encodeURIComponent;

function rating(value) {
  return typeof value === 'number' ? formatRating(Math.round(value * 10) / 10) : '—';
}

function signed(value) {
  const v = Math.round(value * 10) / 10;
  return v > 0 ? `+${formatRating(v)}` : v < 0 ? `−${formatRating(Math.abs(v))}` : '±0';
}

/** A bid (or claim) of a game with these rules, in words. */
function claimWords(system, bid) {
  if (!bid) return '';
  return system.replay.bidWords(bid);
}

function page(main, title, ...children) {
  mount(main, h('section', { class: 'card records-page' }, h('h1', { class: 'page-title' }, title), children));
}

function loading(main, title) {
  page(main, title, h('p', { class: 'muted', role: 'status' }, t('records.loading')));
}

function failed(main, title, err) {
  page(main, title, h('p', { class: 'muted', testid: 'records-error' }, err.status === 404 ? t('records.notFound') : errorMessage(err)),
    h('a', { class: 'btn btn-ghost', href: '#/' }, t('common.backToLobby')));
}

/** The link to a room's replay (results card, dice progress chart, profiles). */
export function replayLink(roomId, label = t('records.replayLink'), testid = 'replay-link') {
  return h('a', { class: 'btn btn-secondary', href: `#/rooms/${enc(roomId)}/replay`, testid }, label);
}

/** A link that downloads a room's hand history as JSON. */
export function downloadLink(history) {
  const blob = new Blob([JSON.stringify(history, null, 2)], { type: 'application/json' });
  return h('a', {
    class: 'btn btn-ghost', testid: 'download-history',
    href: URL.createObjectURL(blob), download: `liars-lies-${history.room_id}.json`,
  }, t('records.download'));
}

function roundPanel(history, record) {
  const names = Object.fromEntries(history.players.map((p) => [p.id, p.name]));
  const name = (id) => names[id] || '?';
  const reveal = record.reveal;
  const system = systemOf(history.rules);
  const { terms } = system;
  const counts = history.players.filter((p) => (record.dice_counts[p.id] || 0) > 0)
    .map((p) => h('li', { testid: 'replay-count', dataset: { playerId: p.id } },
      t('records.count', { name: p.name, pieces: t(terms.pieces, { count: record.dice_counts[p.id] }) })));
  const bids = record.bids.map((b) => h('li', { testid: 'replay-bid', dataset: { playerId: b.player_id } },
    t('records.bid', { name: name(b.player_id), bid: claimWords(system, b) })));
  const head = [
    h('h3', {}, t(terms.roundN, { n: record.round })),
    h('p', { class: 'muted small' }, t('records.atStart')), h('ul', { class: 'replay-counts' }, counts),
    h('p', { class: 'muted small' }, t(terms.bidsInOrder)), h('ol', { class: 'replay-bids' }, bids),
  ];
  if (!reveal) {
    // A round a resignation ended before any challenge: its bids, and who left (issue 28 defect 9).
    return h('div', { class: 'replay-round', testid: 'replay-round', dataset: { round: String(record.round) } }, head,
      h('p', { testid: 'replay-outcome' }, t('records.resigned', { name: name(record.resigned_id) })));
  }
  const hands = system.replay.hands(history, record);
  const loss = reveal.loser_id ? system.replay.loss(reveal) : '';
  const outcome = !reveal.loser_id ? t('records.nobody')
    : reveal.eliminated.length ? t('records.losesOut', { name: name(reveal.loser_id), loss, out: reveal.eliminated.map(name) })
      : t('records.loses', { name: name(reveal.loser_id), loss });
  return h('div', { class: 'replay-round', testid: 'replay-round', dataset: { round: String(record.round) } }, head,
    h('p', { testid: 'replay-call' }, t('records.call', { challenger: name(reveal.challenger_id), bidder: name(reveal.bid.player_id), bid: claimWords(system, reveal.bid) })),
    hands,
    h('p', { testid: 'replay-outcome' }, t('records.outcome', { verdict: system.replay.verdict(reveal), outcome })));
}

/** #/rooms/<id>/replay: step through a finished game round by round. */
export async function renderReplay(main, roomId) {
  loading(main, t('records.replay'));
  let history;
  try {
    history = await api('GET', `/rooms/${enc(roomId)}/history`);
  } catch (err) {
    failed(main, t('records.replay'), err);
    return;
  }
  if (!history.complete) {
    page(main, t('records.replay'), h('p', { testid: 'replay-unfinished' }, t('records.unfinished')),
      h('a', { class: 'btn btn-primary', href: `#/rooms/${enc(roomId)}` }, t('records.backGame')));
    return;
  }
  const rounds = history.rounds;
  const wanted = Number(new URLSearchParams(location.hash.split('?')[1] || '').get('round'));
  let index = Math.max(0, rounds.findIndex((r) => r.round === wanted));
  const slot = h('div', {});
  const position = h('span', { class: 'muted', testid: 'replay-position' });
  const prev = h('button', { class: 'btn btn-ghost', testid: 'replay-prev', onclick: () => show(index - 1, prev) }, t('records.previous'));
  const next = h('button', { class: 'btn btn-secondary', testid: 'replay-next', onclick: () => show(index + 1, next) }, t('records.next'));
  function show(i, from = null) {
    if (!rounds.length) return;
    index = Math.min(rounds.length - 1, Math.max(0, i));
    prev.disabled = index === 0;
    next.disabled = index === rounds.length - 1;
    position.textContent = t('records.position', { n: index + 1, total: rounds.length });
    mount(slot, roundPanel(history, rounds[index]));
    // The button pressed stays focused; at either end, focus goes to the one still enabled.
    if (from && from.disabled) (from === prev ? next : prev).focus();
  }
  const ranking = [...((history.results || {}).ranking || [])].sort((a, b) => a.rank - b.rank);
  const names = Object.fromEntries(history.players.map((p) => [p.id, p.name]));
  const system = systemOf(history.rules);
  page(main, t('records.replay'),
    h('p', { class: 'muted small' }, t('records.summary', {
      rules: systemLabel(system), players: t('records.players', { count: history.players.length }),
      rounds: `${formatNumber(rounds.length)} ${t(system.terms.rounds, { count: rounds.length })}`,
    })),
    rounds.length ? h('div', { class: 'button-row' }, prev, position, next) : h('p', { class: 'muted' }, t('records.noRound')),
    slot,
    h('h2', {}, t('records.result')),
    h('ol', { testid: 'replay-ranking' }, ranking.map((r) => h('li', {}, `${names[r.player_id] || '?'}`))),
    h('div', { class: 'button-row' }, downloadLink(history),
      h('a', { class: 'btn btn-ghost', href: `#/rooms/${enc(roomId)}` }, t('records.backResults'))));
  show(index);
}

/** #/leaderboard: the top registered players. */
export async function renderLeaderboard(main) {
  loading(main, t('records.leaderboard'));
  let board;
  try {
    board = await api('GET', '/leaderboard?limit=50');
  } catch (err) {
    failed(main, t('records.leaderboard'), err);
    return;
  }
  const rows = board.players.map((p) => h('tr', { testid: 'leaderboard-row' },
    h('td', { class: 'rank' }, String(p.rank)),
    h('td', {}, h('a', { href: `#/users/${enc(p.name)}`, testid: 'leaderboard-name' }, p.name)),
    h('td', { class: 'num' }, rating(p.rating)),
    h('td', { class: 'num' }, String(p.games))));
  page(main, t('records.leaderboard'),
    h('p', { class: 'muted small' }, t('records.minGames', { n: board.min_games })),
    rows.length
      ? h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('records.leaderboard') }, h('table', { class: 'ranking-table', testid: 'leaderboard' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('records.rank')), h('th', { scope: 'col' }, t('records.player')), h('th', { class: 'num', scope: 'col' }, t('records.elo')), h('th', { class: 'num', scope: 'col' }, t('records.games')))),
        h('tbody', {}, rows)))
      : h('p', { class: 'muted', testid: 'leaderboard-empty' }, t('records.nobodyListed')),
    h('a', { class: 'btn btn-ghost', href: '#/' }, t('common.backToLobby')));
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
    ['elo', t('records.elo'), rating(profile.rating)], ['rated', t('records.ratedGames'), String(profile.rated_games)],
    ['wins', t('records.wins'), String(profile.wins)], ['best', t('records.bestFinish'), profile.best_finish ? ordinal(profile.best_finish) : '—'],
  ].map(([id, k, v]) => h('div', { class: 'stat', testid: 'profile-stat', dataset: { stat: id } }, h('span', { class: 'muted small' }, k), h('strong', {}, v)));
  const games = profile.recent.map((g) => {
    const when = formatDate(g.finished_at);
    return h('tr', { testid: 'profile-game' },
      h('td', {}, h('time', { datetime: g.finished_at || '' }, when)),
      h('td', {}, t('records.placeOf', { place: ordinal(g.rank), n: g.players })),
      h('td', { class: 'num' }, rating(g.rating_before)),
      h('td', { class: 'num' }, signed(g.delta)),
      h('td', { class: 'num' }, rating(g.rating_after)),
      h('td', {}, h('a', { href: `#/rooms/${enc(g.room_id)}/replay`, testid: 'profile-replay', 'aria-label': t('records.replayOf', { when }) }, t('records.replayShort'))));
  });
  page(main, profile.name,
    h('div', { class: 'profile-stats', testid: 'profile-stats' }, stats),
    profile.listed ? h('p', {}, h('a', { href: '#/leaderboard' }, t('records.onBoard'))) : h('p', { class: 'muted small' }, t('records.listedFrom')),
    h('h2', {}, t('records.latest')),
    games.length
      ? h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('records.latest') }, h('table', { class: 'ranking-table', testid: 'profile-games' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('records.finished')), h('th', { scope: 'col' }, t('records.place')), h('th', { class: 'num', scope: 'col' }, t('records.before')),
          h('th', { class: 'num', scope: 'col' }, t('records.change')), h('th', { class: 'num', scope: 'col' }, t('records.after')), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, t('records.links'))))),
        h('tbody', {}, games)))
      : h('p', { class: 'muted' }, t('records.noRated')),
    h('a', { class: 'btn btn-ghost', href: '#/leaderboard' }, t('records.leaderboard')));
}
