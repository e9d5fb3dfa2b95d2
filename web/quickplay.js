// Quick play: "Play now" in the lobby (system choice, the wait, cancel, who is waiting), the
// table's countdown, and "Play again" with the same people (docs/API.md, "Quick play").

import { api, serverNow } from './api.js';
import { h, mount } from './dom.js';
import { attempt, formatSeconds, navigate, state } from './core.js';
import { countdown } from './play.js';
import { systemLabel, systems } from './systems/index.js';
import { t } from './i18n/index.js';

const POLL_MS = 2000;
const ANY = 'any';

// What the lobby card shows: the caller's ticket, who waits, the chosen system.
const qp = { ticket: null, waiting: {}, rules: ANY, timer: null, ticker: null, followed: new Set() };

function roomHash(roomId) {
  return `#/rooms/${encodeURIComponent(roomId)}`;
}

/** Go to a matched ticket's table, once per ticket (coming back to the lobby stays there). */
function follow(ticket) {
  if (!ticket || ticket.status !== 'matched' || !ticket.room_id || qp.followed.has(ticket.id)) return;
  qp.followed.add(ticket.id);
  navigate(roomHash(ticket.room_id));
}

/** A `match_found` push (to every signed-in connection of the user). */
export function onMatchFound(message) {
  if (!message || !message.room_id) return;
  follow({ id: message.ticket_id, status: 'matched', room_id: message.room_id });
}

function rulesName(rules) {
  if (rules === ANY) return t('quickplay.anySystem');
  const system = systems().find((s) => s.rules === rules);
  return system ? systemLabel(system) : rules;
}

function totalWaiting() {
  return Object.values(qp.waiting || {}).reduce((sum, n) => sum + (Number(n) || 0), 0);
}

async function refresh(card) {
  try {
    const answer = await api('GET', '/quickplay');
    qp.ticket = (answer && answer.ticket) || null;
    qp.waiting = (answer && answer.waiting) || {};
  } catch {
    return; // the next poll tries again; the card keeps what it showed
  }
  follow(qp.ticket);
  if (card.isConnected) draw(card);
}

function stopTimers() {
  clearInterval(qp.timer);
  clearInterval(qp.ticker);
  qp.timer = null;
  qp.ticker = null;
}

function waitedText(ticket) {
  const since = Date.parse(ticket.since);
  const waited = Number.isNaN(since) ? 0 : Math.max(0, serverNow() - since);
  return t('quickplay.waited', { time: formatSeconds(waited) });
}

function countsLine() {
  const rows = [ANY, ...systems().map((s) => s.rules)]
    .filter((rules) => (qp.waiting[rules] || 0) > 0)
    .map((rules) => h('li', { testid: 'quickplay-count', dataset: { rules } },
      t('quickplay.waitingFor', { count: qp.waiting[rules], system: rulesName(rules) })));
  return [
    h('p', { class: 'muted small', testid: 'quickplay-total', role: 'status' },
      t('quickplay.peopleWaiting', { count: totalWaiting() })),
    rows.length ? h('ul', { class: 'plain-list small muted' }, rows) : null,
  ];
}

function idleBody(card) {
  const choice = h('select', {
    testid: 'quickplay-rules',
    'aria-label': t('quickplay.system'),
    onchange: (event) => { qp.rules = event.target.value; },
  }, [ANY, ...systems().map((s) => s.rules)].map((rules) => h('option', { value: rules, selected: rules === qp.rules }, rulesName(rules))));
  const button = h('button', {
    class: 'btn btn-primary btn-block',
    testid: 'play-now',
    onclick: async () => {
      const answer = await attempt(() => api('POST', '/quickplay', { rules: qp.rules }), button);
      if (!answer || !answer.ticket) return;
      qp.ticket = answer.ticket;
      follow(qp.ticket);
      if (card.isConnected) draw(card);
    },
  }, t('quickplay.playNow'));
  return [
    h('label', { class: 'field' }, h('span', { class: 'field-label' }, t('quickplay.system')), choice),
    button,
    ...countsLine(),
  ];
}

function waitingBody(card, ticket) {
  const waited = h('strong', { testid: 'quickplay-waited' }, waitedText(ticket));
  clearInterval(qp.ticker);
  qp.ticker = setInterval(() => {
    if (!waited.isConnected) { clearInterval(qp.ticker); return; }
    waited.textContent = waitedText(ticket);
  }, 1000);
  const cancel = h('button', {
    class: 'btn btn-secondary btn-block',
    testid: 'quickplay-cancel',
    onclick: async () => {
      const done = await attempt(() => api('DELETE', '/quickplay'), cancel);
      if (done === undefined) return; // refused: the toast said why (already matched: the poll follows)
      qp.ticket = null;
      if (card.isConnected) draw(card);
    },
  }, t('quickplay.cancel'));
  const again = ticket.play_again ? h('p', { class: 'muted small' }, t('quickplay.waitingForTable')) : null;
  return [
    h('p', { testid: 'quickplay-waiting', role: 'status' },
      t('quickplay.looking', { system: rulesName(ticket.rules) }), ' ', waited),
    again,
    cancel,
    ...countsLine(),
  ];
}

function draw(card) {
  const ticket = qp.ticket;
  const signedIn = Boolean(state.user);
  let body;
  if (!signedIn) {
    body = [h('p', { class: 'muted small' }, t('quickplay.signInFirst')), ...countsLine()];
  } else if (ticket && ticket.status === 'waiting') {
    body = waitingBody(card, ticket);
  } else if (ticket && ticket.status === 'matched' && ticket.room_id) {
    body = [
      h('p', { role: 'status' }, t('quickplay.found')),
      h('a', { class: 'btn btn-primary btn-block', href: roomHash(ticket.room_id), testid: 'quickplay-go' }, t('quickplay.goToTable')),
      ...countsLine(),
    ];
  } else {
    body = idleBody(card);
  }
  mount(card, h('h2', {}, t('quickplay.title')), ...body);
}

/** The lobby's "Play now" card; it polls the ticket and the waiting figures while shown. */
export function quickplayCard() {
  stopTimers();
  const card = h('section', { class: 'card quickplay-card', testid: 'quickplay' });
  draw(card);
  refresh(card);
  qp.timer = setInterval(() => {
    if (!card.isConnected) { stopTimers(); return; }
    if (!document.hidden) refresh(card);
  }, POLL_MS);
  return card;
}

/** Whether the quick-play table is still counting down to its first round. */
export function inCountdown(room) {
  const startsAt = room && room.quickplay && room.game && room.game.starts_at;
  return Boolean(startsAt && Date.parse(startsAt) > serverNow());
}

/** The table's countdown banner (with "Leave": a bot takes the seat), or null. */
export function countdownBanner(room) {
  if (!inCountdown(room)) return null;
  const me = room.me || {};
  const leave = me.player_id ? h('button', {
    class: 'btn btn-ghost',
    testid: 'quickplay-leave',
    onclick: async () => {
      const done = await attempt(() => api('POST', `/rooms/${encodeURIComponent(room.id)}/leave`), leave);
      if (done) navigate('#/');
    },
  }, t('quickplay.leave')) : null;
  return h('section', { class: 'card banner', testid: 'quickplay-countdown', role: 'status' },
    h('strong', {}, t('quickplay.startsIn')), ' ', countdown(room.game.starts_at), ' ', leave);
}

/** "Play again" at a finished quick-play table: the same people, back in the queue together. */
export function playAgainButton(room) {
  const button = h('button', {
    class: 'btn btn-primary', testid: 'quickplay-again',
    onclick: async () => {
      const rules = (room.settings && room.settings.rules) || ANY;
      const answer = await attempt(() => api('POST', '/quickplay', { rules, play_again: room.id }), button);
      if (!answer || !answer.ticket) return;
      qp.ticket = answer.ticket;
      if (answer.ticket.status === 'matched') follow(answer.ticket);
      else navigate('#/');
    },
  }, t('quickplay.playAgain'));
  return button;
}
