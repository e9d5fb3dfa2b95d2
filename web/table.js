// The live table: plays each push's events at their `at` stamps.
//
// A change of the room (a human's move and the bots' replies after it) arrives as one push: the
// room view *after* all of it, and its events, each stamped with the moment it happens at the
// table (a bot's move a think time after the event before it). This module shows those moments
// one after another: until the table reaches the end of the push, the screen shows the table as
// it stands at that moment (the bid made so far, who is thinking, the previous reveal until the
// new one comes), and each move is announced on the mover's card and in the announcer line.
// Nothing keeps a list of the round's bids: each announcement replaces the one before.

import { h } from './dom.js';
import { hooks, playerName, state } from './core.js';
import { serverNow } from './api.js';
import { roomSystem, systems } from './systems/index.js';
import { t } from './i18n/index.js';
import { table } from './store.js';

const RECENT_MS = 4000;      // events this old when they arrive are still announced
const HOLD_MS = 3000;        // how long a REST view ahead of the table waits for its push
const NOTICE_MS = 6000;      // how long a timeout notice stays
const BOUNDARIES = new Set(['challenge_resolved', 'round_started', 'round_restarted', 'game_finished']);
/** The events that are a player's move: a bid, Liar!, and each system's own (its `moveEvents`). */
let moveTypes = null;
function isMove(type) {
  if (!moveTypes) moveTypes = new Set(['bid_placed', 'liar_called', ...systems().flatMap((s) => s.moveEvents)]);
  return moveTypes.has(type);
}

const live = {
  roomId: null,
  shown: null,        // the view on screen when the playback began (the table before the push)
  events: [],         // the playback's events with `t` (server ms)
  version: -1,        // the version the playback leads to
  timers: [],
  held: null,         // a REST view ahead of the table, waiting for its push's events
  heldBase: null,     // what stays on screen meanwhile
  lastShown: null,    // the view last put on screen
  holdTimer: null,
  announced: new Set(),
  announcement: null, // {event, room, playerId, kind, until, since}: words drawn at draw time
  queue: [],          // announcements waiting for the one on screen to have been seen
  notice: null,       // {event, room, until}
  clockRounds: new Set(), // `${roomId}|${round}`: rounds whose challenge the clock made
  loggedTurn: null,
  queueTimer: null,
  signalledTurn: null,
  rerender: () => {},
};

table.live = live; // the store's live-table part (web/store.js)

/** Install the function that redraws the room screen (app.js). */
export function setRerender(fn) {
  live.rerender = fn;
}

function stamp(e) {
  const ms = Date.parse(e.at);
  return Number.isNaN(ms) ? 0 : ms;
}

function clearTimers() {
  for (const id of live.timers) clearTimeout(id);
  live.timers = [];
}

function reset(roomId) {
  clearTimers();
  flush();
  clearTimeout(live.holdTimer);
  Object.assign(live, {
    roomId, shown: null, events: [], version: -1, held: null, heldBase: null, holdTimer: null, lastShown: null,
    announced: new Set(), announcement: null, queue: [], notice: null, signalledTurn: null, loggedTurn: null,
  });
}

/** When the table reaches the view's state (its turn, break or final reveal began), server ms. */
function tableClock(room) {
  const g = room && room.game;
  if (!g || room.status !== 'playing') return 0;
  const s = room.settings || {};
  if (g.phase === 'bidding' && g.turn && g.turn.deadline) return Date.parse(g.turn.deadline) - (s.turn_seconds || 0) * 1000;
  if (g.phase === 'break' && g.break && g.break.deadline) return Date.parse(g.break.deadline) - (s.break_seconds || 0) * 1000;
  return 0;
}

/**
 * A room view arrived (from a push with its events, or from REST with none). `gap`: a push
 * before it never came (web/order.js), so what is announced from before is outdated. Returns
 * nothing; the screen asks `displayRoom()` what to show.
 */
export function onView(room, events, gap) {
  if (!room) return;
  if (live.roomId !== room.id) reset(room.id);
  if (gap) outdated();
  const previous = live.lastShown && live.lastShown.id === room.id ? live.lastShown : null;
  if (Array.isArray(events) && events.length) {
    if (room.version < live.version) return;
    const base = live.held && live.held.version === room.version ? live.heldBase : previous;
    live.held = null;
    clearTimeout(live.holdTimer);
    start(room, events, base);
    return;
  }
  if (room.version <= live.version) return;
  // A view without events whose table is still ahead (a REST answer racing its push): keep the
  // table as it was on screen for a moment, so the push's events can play. Not while the
  // socket is down: no push is coming, and the screen from before would offer a turn that is
  // gone (a move made offline, then "Too late" for the next one).
  const pushComing = !hooks.realtime || hooks.realtime.open;
  if (pushComing && tableClock(room) > serverNow() + 250 && previous && previous.version < room.version) {
    live.held = room;
    live.heldBase = previous;
    clearTimeout(live.holdTimer);
    live.holdTimer = setTimeout(() => { live.held = null; outdated(); live.rerender(); }, HOLD_MS);
  } else if (previous && previous.version < room.version) {
    outdated();
  }
}

/**
 * The table moved on without events to play (a reconnect's or a poll's view, or a push that
 * never came): the last announcement is from before it, so it goes (the screen then says
 * whose turn it is; the current bid is in the bid panel).
 */
function outdated() {
  flush();
}

/** Drop what is on the bar and what waits for it. */
function flush() {
  live.announcement = null;
  live.queue = [];
  clearTimeout(live.queueTimer);
  live.queueTimer = null;
}

/**
 * An event's identity: its push (the version it leads to) and its place in the push. Type,
 * moment and player do not tell events apart: a table that finishes at once (no human with
 * dice) stamps several rounds' events with one moment, each round with its own
 * challenge_resolved.
 */
function keyOf(room, e) {
  return `${room.version}|${e.index}|${e.type}`;
}

function start(room, events, base) {
  clearTimers();
  const now = serverNow();
  live.shown = base || null;
  live.version = room.version;
  live.events = events.map((e, index) => ({ ...e, t: stamp(e), index }));
  for (const e of live.events) {
    const key = keyOf(room, e);
    if (live.announced.has(key)) continue;
    if (e.t < now - RECENT_MS) {
      // Too late to play: not announced, and what is on screen from before it is outdated.
      live.announced.add(key);
      if (isMove(e.type) || BOUNDARIES.has(e.type)) outdated();
      noteClock(room, e);
      continue;
    }
    const fire = () => {
      if (live.announced.has(key)) return;
      live.announced.add(key);
      announce(room, e);
      live.rerender();
    };
    if (e.t <= now) fire();
    else live.timers.push(setTimeout(fire, e.t - now + 5));
  }
  const end = Math.max(0, ...live.events.map((e) => e.t));
  if (end > now) live.timers.push(setTimeout(() => live.rerender(), end - now + 20));
  live.rerender();
}

// ---- what the screen shows ------------------------------------------------------

/** The room as the table stands now: the latest view, or the moment its events have reached. */
export function displayRoom(room) {
  if (!room || room.id !== live.roomId) return room;
  if (live.held && live.held.version === room.version && live.heldBase) return live.heldBase;
  const now = serverNow();
  if (live.version !== room.version || !live.events.length) return remember(room);
  // an event counts as played from its stamp (or once announced: timers may fire a little early)
  const isPlayed = (e) => e.t <= now + 30 || live.announced.has(keyOf(room, e));
  const pending = live.events.filter((e) => !isPlayed(e));
  if (!pending.length || !room.game) return remember(room);
  const played = live.events.filter(isPlayed);
  const boundaryPending = pending.some((e) => BOUNDARIES.has(e.type));
  const base = boundaryPending && live.shown && live.shown.game ? live.shown : room;
  const lastBoundary = played.map((e) => BOUNDARIES.has(e.type)).lastIndexOf(true);
  const bids = played.slice(lastBoundary + 1).filter((e) => e.type === 'bid_placed');
  const game = { ...base.game };
  if (bids.length) game.current_bid = roomSystem(room).bidFromEvent(bids[bids.length - 1]);
  else if (base === room) game.current_bid = lastBoundary >= 0 ? null : (live.shown && live.shown.game ? live.shown.game.current_bid : null);
  const next = pending.find((e) => isMove(e.type) || e.type === 'turn_timed_out');
  if (base === room && !next) return remember(room);
  const lastMove = [...played].reverse().find((e) => isMove(e.type));
  const thinker = next ? next.player_id : lastMove ? lastMove.player_id : null;
  game.phase = 'bidding';
  game.break = null;
  game.turn = thinker ? { number: -1, player_id: thinker, deadline: null, thinking: true } : null;
  return remember({ ...base, game, version: room.version, pending: true });
}

function remember(shown) {
  live.lastShown = shown;
  return shown;
}

// ---- announcements ----------------------------------------------------------------

/** A move's own words ("four 3s", "Liar!"): the bubble on the mover's card. */
function moveWords(room, e) {
  if (e.type === 'liar_called') {
    const own = roomSystem(room).liarKey;
    return e.by === 'timeout' ? t('table.clockLiar') : t(own || 'table.liar');
  }
  return roomSystem(room).moveWords(e) || '';
}

/** What the game played for a player whose time ran out. */
function actionWords(room, action) {
  if (!action) return t('table.aMove');
  if (action.type === 'liar') return t(roomSystem(room).liarActionKey || 'table.liarWasCalled');
  return roomSystem(room).actionWords(action) || t('table.aMove');
}

/** Remember the rounds whose Liar! the clock called (the reveal says so; docs/RULES.md). */
function noteClock(room, e) {
  const byClock = (e.type === 'liar_called' && e.by === 'timeout')
    || (e.type === 'turn_timed_out' && e.action && e.action.type === 'liar');
  if (byClock && typeof e.round === 'number') live.clockRounds.add(`${room.id}|${e.round}`);
}

/** Whether the clock called the challenge of this room's round (seen on this page). */
export function clockCalled(room, round) {
  return Boolean(room && live.clockRounds.has(`${room.id}|${round}`));
}

/** The words of an announcement, in the language chosen now: {text, bubble}. */
function announcementWords(a) {
  const { event: e, room } = a;
  const me = room.me && room.me.player_id;
  const name = (id) => playerName(room, id);
  if (isMove(e.type)) {
    const move = moveWords(room, e);
    return { text: e.player_id === me ? t('table.moveYou', { move }) : t('table.move', { name: name(e.player_id), move }), bubble: move };
  }
  if (e.type === 'challenge_resolved') {
    const system = roomSystem(room);
    const first = system.revealWords ? system.revealWords(e) : t('table.revealCount', { count: e.count });
    const loss = t(system.terms.loss);
    let second;
    if (!e.loser_id) second = t('table.nobodyLoses', { loss });
    else second = e.loser_id === me ? t('table.youLose', { loss }) : t('table.loses', { name: name(e.loser_id), loss });
    return { text: `${first} ${second}`, bubble: null };
  }
  if (e.type === 'turn_timed_out') {
    const action = actionWords(room, e.action);
    return { text: e.player_id === me ? t('table.timeoutYou', { action }) : t('table.timeout', { name: name(e.player_id), action }), bubble: null };
  }
  if (e.type === 'player_eliminated') {
    return { text: e.player_id === me ? t('table.youOut') : t('table.out', { name: name(e.player_id) }), bubble: null };
  }
  return { text: '', bubble: null };
}

// ---- the log: every move, reveal and turn change, for screen readers -------------------

const LOG_KEEP = 3; // lines kept: the log announces, it does not list the round's bids

/** Say a line in the live region (role="log"): screen readers read each new line once. */
export function logLine(text) {
  const log = document.getElementById('live-log');
  if (!log || !text) return;
  log.append(h('p', {}, text));
  while (log.children.length > LOG_KEEP) log.firstElementChild.remove();
}

const MIN_SHOW_MS = 1500;  // an announcement stays on the bar at least this long (defect 6 of issue 28)
const MAX_QUEUE = 12;      // the bar lags the table by at most this many announcements

function show(a) {
  a.since = Date.now();
  a.until = a.since + 60000;
  live.announcement = a;
  live.rerender();
  schedule(MIN_SHOW_MS);
}

/** Put the next waiting announcement up once the one on screen has had its time. */
function schedule(ms) {
  if (live.queueTimer || !live.queue.length) return;
  live.queueTimer = setTimeout(() => {
    live.queueTimer = null;
    const a = live.queue.shift();
    if (a && live.roomId === a.room.id) show(a);
  }, Math.max(0, ms));
}

function announce(room, e) {
  const now = Date.now();
  noteClock(room, e);
  if (isMove(e.type) || e.type === 'challenge_resolved') {
    const a = { event: e, room, playerId: isMove(e.type) ? e.player_id : e.loser_id, kind: e.type, until: now + 60000 };
    logLine(announcementWords(a).text);
    const current = live.announcement;
    // A game's last moves play at once (a bots-only finish into the final reveal): the last
    // one stays, and every one is in the log.
    if (room.status !== 'playing' || (room.game && room.game.phase === 'final_reveal')) { flush(); show(a); return; }
    // The one on screen has not been up long enough to be read: this one waits its turn.
    if (live.queue.length || (current && current.since && now - current.since < MIN_SHOW_MS)) {
      live.queue.push(a);
      if (live.queue.length > MAX_QUEUE) live.queue.shift();
      schedule(current && current.since ? current.since + MIN_SHOW_MS - now : 0);
      return;
    }
    show(a);
  } else if (e.type === 'turn_timed_out' || e.type === 'player_eliminated') {
    live.notice = { event: e, room, until: now + NOTICE_MS };
    logLine(announcementWords(live.notice).text);
  }
}

// ---- sound and title ----------------------------------------------------------------

const SOUND_KEY = 'liars.sound';

function soundOn() {
  try { return localStorage.getItem(SOUND_KEY) !== 'off'; } catch { return true; }
}

function beep() {
  if (!soundOn()) return;
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    const ctx = new Ctx();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.08, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + 0.25);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.26);
    osc.onended = () => ctx.close();
  } catch { /* sound is a nicety */ }
}

/** Signal the viewer's turn (title, optional sound) once per turn. */
function signalTurn(shown) {
  const g = shown && shown.game;
  const me = shown && shown.me && shown.me.player_id;
  const mine = Boolean(g && shown.status === 'playing' && g.phase === 'bidding' && g.turn && !g.turn.thinking && g.turn.player_id === me);
  document.title = mine ? t('app.yourTurnTitle', { app: t('app.name') }) : t('app.name');
  if (!mine) return;
  const key = `${shown.id}|${g.turn.number}`;
  if (live.signalledTurn === key) return;
  live.signalledTurn = key;
  beep();
}

/** Say whose turn it is in the log, once per change of the player on turn. */
function logTurn(shown) {
  const g = shown && shown.game;
  const turn = g && shown.status === 'playing' && g.phase === 'bidding' && g.turn;
  const key = turn && turn.player_id ? `${shown.id}|${g.round}|${turn.player_id}` : null;
  if (!key || live.loggedTurn === key) return;
  live.loggedTurn = key;
  const me = shown.me && shown.me.player_id;
  logLine(turn.player_id === me ? t('table.turnYou') : t('table.turnOf', { name: playerName(shown, turn.player_id) }));
}

// ---- the announcer bar and the card bubbles ---------------------------------------------

function soundToggle() {
  const on = soundOn();
  return h('button', {
    type: 'button', class: 'btn btn-ghost btn-small sound-toggle', testid: 'sound-toggle',
    'aria-pressed': String(on), title: on ? t('table.muteTitle') : t('table.soundTitle'),
    onclick: () => {
      try { localStorage.setItem(SOUND_KEY, on ? 'off' : 'on'); } catch { /* private mode */ }
      live.rerender();
      // The redraw replaced the button: keep the focus on it.
      document.querySelector("[data-testid='sound-toggle']")?.focus();
    },
  }, on ? t('table.soundOn') : t('table.soundOff'));
}

function idleWords(shown) {
  const g = shown && shown.game;
  const turn = g && g.phase === 'bidding' && g.turn;
  if (!turn || !turn.player_id) return '';
  if (turn.player_id === (shown.me && shown.me.player_id) && !turn.thinking) return t('table.turnYou');
  const name = playerName(shown, turn.player_id);
  return turn.thinking ? t('table.thinking', { name }) : t('table.toAct', { name });
}

/**
 * Draw the announcer line and the bubble on the mover's card into the game screen. Words are
 * made here, from the announcement's event, in the language chosen now.
 */
export function decorate(container, shown) {
  const screen = container && container.querySelector("[data-testid='game-screen']");
  if (!screen) { document.title = t('app.name'); return; }
  signalTurn(shown);
  logTurn(shown);
  const now = Date.now();
  let bar = screen.querySelector("[data-testid='announcer']");
  if (!bar) {
    // Not a live region: the log (#live-log) says each move once; this bar is for the eyes.
    bar = h('div', { class: 'announcer', testid: 'announcer' });
    screen.prepend(bar);
  }
  const a = live.announcement && live.announcement.until > now ? live.announcement : null;
  const n = live.notice && live.notice.until > now ? live.notice : null;
  const words = a ? announcementWords(a) : null;
  const parts = [];
  if (n) parts.push(h('span', { class: 'timeout-notice', testid: 'timeout-notice' }, announcementWords(n).text));
  parts.push(h('span', { class: ['announcement', a ? `is-${a.kind}` : 'muted'], testid: 'announcement' },
    words ? words.text : idleWords(shown)));
  const focused = document.activeElement && document.activeElement.dataset && document.activeElement.dataset.testid === 'sound-toggle';
  parts.push(soundToggle());
  bar.replaceChildren(...parts);
  bar.dataset.queued = String(live.queue.length); // tests wait for the bar to catch up
  if (focused) bar.querySelector("[data-testid='sound-toggle']").focus();
  if (n) setTimeout(() => live.rerender(), n.until - now + 20);
  // the bubble: the latest move's own words, on its mover's card
  for (const old of screen.querySelectorAll("[data-testid='card-say']")) old.remove();
  if (a && a.playerId && isMove(a.kind) && words.bubble) {
    const card = screen.querySelector(`[data-testid='player-card'][data-player-id='${CSS.escape(a.playerId)}']`);
    if (card) card.append(h('span', { class: ['card-say', `is-${a.kind}`], testid: 'card-say', 'aria-hidden': 'true' }, words.bubble));
  }
  for (const card of screen.querySelectorAll("[data-testid='player-card']")) {
    const thinking = shown && shown.game && shown.game.turn && shown.game.turn.thinking && shown.game.turn.player_id === card.dataset.playerId;
    card.classList.toggle('is-thinking', Boolean(thinking));
  }
  const reveal = screen.querySelector("[data-testid='reveal']");
  if (reveal) reveal.classList.toggle('is-fresh', Boolean(a && a.kind === 'challenge_resolved'));
  void state;
}
