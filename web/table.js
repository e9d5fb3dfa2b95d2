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
  announcement: null, // {text, playerId, kind, until}
  notice: null,       // {text, until}
  signalledTurn: null,
  rerender: () => {},
};

/** Install the function that redraws the room screen (app.js). */
export function setRerender(fn) {
  live.rerender = fn;
}

function stamp(e) {
  const t = Date.parse(e.at);
  return Number.isNaN(t) ? 0 : t;
}

function clearTimers() {
  for (const id of live.timers) clearTimeout(id);
  live.timers = [];
}

function reset(roomId) {
  clearTimers();
  clearTimeout(live.holdTimer);
  Object.assign(live, {
    roomId, shown: null, events: [], version: -1, held: null, heldBase: null, holdTimer: null, lastShown: null,
    announced: new Set(), announcement: null, notice: null, signalledTurn: null,
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
  live.announcement = null;
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
      if (isMove(e.type) || BOUNDARIES.has(e.type)) live.announcement = null;
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

function moveWords(room, e) {
  if (e.type === 'liar_called') return 'Liar!';
  return roomSystem(room).moveWords(e) || '';
}

/** What the game played for a player whose time ran out. */
function actionWords(room, action) {
  if (!action) return 'a move was played';
  if (action.type === 'liar') return 'Liar! was called';
  return roomSystem(room).actionWords(action) || 'a move was played';
}

function announce(room, e) {
  const me = room.me && room.me.player_id;
  const who = e.player_id === me ? 'You' : playerName(room, e.player_id);
  const now = Date.now();
  if (isMove(e.type)) {
    live.announcement = { text: `${who}: ${moveWords(room, e)}`, playerId: e.player_id, kind: e.type, until: now + 60000 };
  } else if (e.type === 'turn_timed_out') {
    const text = e.player_id === me
      ? `Time ran out: ${actionWords(room, e.action)} for you`
      : `Time ran out for ${playerName(room, e.player_id)}: ${actionWords(room, e.action)}`;
    live.notice = { text, until: now + NOTICE_MS };
  } else if (e.type === 'challenge_resolved') {
    const loser = e.loser_id ? (e.loser_id === me ? 'You lose' : `${playerName(room, e.loser_id)} loses`) : 'Nobody loses';
    const what = roomSystem(room).terms.loss;
    live.announcement = { text: `Reveal: ${e.count} counted. ${loser} ${what}.`, playerId: e.loser_id, kind: e.type, until: now + 60000 };
  } else if (e.type === 'player_eliminated') {
    live.notice = { text: `${e.player_id === me ? 'You are' : `${playerName(room, e.player_id)} is`} out of the game.`, until: now + NOTICE_MS };
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

const BASE_TITLE = "Liar's Lies";

/** Signal the viewer's turn (title, optional sound) once per turn. */
function signalTurn(shown) {
  const g = shown && shown.game;
  const me = shown && shown.me && shown.me.player_id;
  const mine = Boolean(g && shown.status === 'playing' && g.phase === 'bidding' && g.turn && !g.turn.thinking && g.turn.player_id === me);
  document.title = mine ? `● Your turn · ${BASE_TITLE}` : BASE_TITLE;
  if (!mine) return;
  const key = `${shown.id}|${g.turn.number}`;
  if (live.signalledTurn === key) return;
  live.signalledTurn = key;
  beep();
}

// ---- the announcer bar and the card bubbles ---------------------------------------------

function soundToggle() {
  const on = soundOn();
  return h('button', {
    type: 'button', class: 'btn btn-ghost btn-small sound-toggle', testid: 'sound-toggle',
    'aria-pressed': String(on), title: on ? 'Mute the your-turn sound' : 'Play a sound when it is your turn',
    onclick: () => {
      try { localStorage.setItem(SOUND_KEY, on ? 'off' : 'on'); } catch { /* private mode */ }
      live.rerender();
    },
  }, on ? '🔔 Sound on' : '🔕 Sound off');
}

function idleWords(shown) {
  const g = shown && shown.game;
  const turn = g && g.phase === 'bidding' && g.turn;
  if (!turn || !turn.player_id) return '';
  if (turn.player_id === (shown.me && shown.me.player_id) && !turn.thinking) return 'Your turn.';
  return `${playerName(shown, turn.player_id)} ${turn.thinking ? 'is thinking…' : 'to act.'}`;
}

/** Draw the announcer line and the bubble on the mover's card into the game screen. */
export function decorate(container, shown) {
  const screen = container && container.querySelector("[data-testid='game-screen']");
  if (!screen) { document.title = BASE_TITLE; return; }
  signalTurn(shown);
  const now = Date.now();
  let bar = screen.querySelector("[data-testid='announcer']");
  if (!bar) {
    bar = h('div', { class: 'announcer', testid: 'announcer', role: 'status', 'aria-live': 'polite' });
    screen.prepend(bar);
  }
  const a = live.announcement && live.announcement.until > now ? live.announcement : null;
  const n = live.notice && live.notice.until > now ? live.notice : null;
  const parts = [];
  if (n) parts.push(h('span', { class: 'timeout-notice', testid: 'timeout-notice' }, n.text));
  parts.push(h('span', { class: ['announcement', a ? `is-${a.kind}` : 'muted'], testid: 'announcement' },
    a ? a.text : idleWords(shown)));
  parts.push(soundToggle());
  bar.replaceChildren(...parts);
  if (n) setTimeout(() => live.rerender(), n.until - now + 20);
  // the bubble: the latest move, on its mover's card
  for (const old of screen.querySelectorAll("[data-testid='card-say']")) old.remove();
  if (a && a.playerId && isMove(a.kind)) {
    const card = screen.querySelector(`[data-testid='player-card'][data-player-id='${CSS.escape(a.playerId)}']`);
    if (card) {
      const words = a.text.slice(a.text.indexOf(':') + 2);
      card.append(h('span', { class: ['card-say', `is-${a.kind}`], testid: 'card-say' }, words));
    }
  }
  for (const card of screen.querySelectorAll("[data-testid='player-card']")) {
    const thinking = shown && shown.game && shown.game.turn && shown.game.turn.thinking && shown.game.turn.player_id === card.dataset.playerId;
    card.classList.toggle('is-thinking', Boolean(thinking));
  }
  const reveal = screen.querySelector("[data-testid='reveal']");
  if (reveal) reveal.classList.toggle('is-fresh', Boolean(a && a.kind === 'challenge_resolved'));
  void state;
}
