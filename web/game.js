// Game screen: bidding controls, player cards, metrics, round reveal, resign.

import { h, mount, panel } from './dom.js';
import { api } from './api.js';
import { attempt, hooks, keepFocus, roomCall, state } from './core.js';
import { eloPreviewCard, resultsCard } from './results.js';
import { botMark } from './settings.js';
import { initial } from './text.js';
import { actionPath, countdown, isActive, myPlayer, turnClock } from './play.js';
import { roomSystem } from './systems/index.js';
import { t, tNodes } from './i18n/index.js';
import { clockCalled } from './table.js';
import { selectionOf } from './store.js';
import { countdownBanner, inCountdown } from './quickplay.js';

// The screen is shared; what depends on the rules (the bid panel, the dice or lives on a card,
// the reveal, the words) comes from the room's system module (systems/<rules>.js).

/** A bot level in words (an unknown level as the server named it). */
function levelWords(level) {
  return ['strong', 'medium', 'easy'].includes(level) ? t(`waiting.level.${level}`) : String(level);
}

// ---- the bid slot -------------------------------------------------------------

/** Between rounds and during the final reveal: one short line, not a big empty card. */
function idleBidPanel(room, mine = myPlayer(room)) {
  const g = room.game;
  const { terms } = roomSystem(room);
  const note = g.phase === 'break'
    ? tNodes(terms.roundOver, { n: g.round, time: countdown(g.break && g.break.deadline) })
    : [t('game.finalRevealSoon')];
  const role = !mine ? t('game.youWatch') : !isActive(mine) ? t('game.youKeepWatching') : '';
  return h('section', { class: 'card bid-panel is-idle', testid: 'bid-panel', dataset: { phase: g.phase } },
    h('p', { class: 'idle-line', testid: 'bid-heading', tabindex: '-1', 'data-focus-fallback': '' }, note, role ? [' ', role] : null));
}

function bidPanel(room) {
  if (room.game.phase !== 'bidding') return idleBidPanel(room);
  const system = roomSystem(room);
  // The system receives its own part of the selection (web/store.js), nothing else of the state.
  return system.panel(room, { countdown, active: isActive(myPlayer(room)), selection: selectionOf(system.rules) });
}

// ---- player cards -----------------------------------------------------------

function playerCard(room, player) {
  const g = room.game;
  const me = room.me || {};
  const isMe = player.id === me.player_id;
  const bot = player.kind === 'bot';
  const onTurn = g.phase === 'bidding' && g.turn && g.turn.player_id === player.id;
  const agreed = g.phase === 'break' && g.break && (g.break.agreed || []).includes(player.id);
  const out = player.eliminated || player.resigned;
  const parts = roomSystem(room).card(room, player, { isMe, out });
  return h('li', {
    class: ['player-card', isMe ? 'is-me' : '', onTurn ? 'on-turn' : '', out ? 'is-out' : ''],
    testid: 'player-card', dataset: { playerId: player.id },
  },
  h('div', { class: 'player-card-head' },
    h('span', { class: ['avatar', bot ? 'avatar-bot' : ''], 'aria-hidden': 'true' }, bot ? botMark(player) : initial(player.name)),
    h('span', { class: 'player-card-name' },
      h('strong', {}, player.name),
      isMe ? h('span', { class: 'pill pill-me' }, t('game.you')) : null,
      bot ? h('span', { class: 'pill pill-muted' }, player.level ? t('game.botLevel', { level: levelWords(player.level) }) : t('game.bot')) : null),
    parts.count),
  h('div', { class: 'player-card-dice' }, parts.dice,
    // Your dice as text, for screen readers (the faces above are pictures).
    isMe && !out && Array.isArray(me.dice) && me.dice.length
      ? h('span', { class: 'sr-only', testid: 'my-dice-text' }, t('game.yourDiceLine', { list: me.dice.map(String) })) : null),
  h('div', { class: 'player-card-foot' },
    parts.bid,
    onTurn ? h('span', { class: 'turn-chip' }, isMe ? t('game.yourTurn') : t('game.thinking'), turnClock(g.turn)) : null,
    agreed ? h('span', { class: 'pill pill-ok' }, t('game.agreed')) : null,
    player.rank ? h('span', { class: 'pill pill-muted' }, t('game.rank', { n: player.rank })) : null));
}

function playersPanel(room) {
  const players = [...(room.players || [])].sort((a, b) => a.seat - b.seat);
  return h('section', { class: 'card players-panel', testid: 'player-cards' },
    h('h2', {}, t('game.players')),
    h('ul', { class: 'player-cards' }, players.map((p) => playerCard(room, p))));
}

// ---- metrics ----------------------------------------------------------------

function continueMode() {
  // The seat's mode is what this game uses; the profile's is the remembered preference.
  const fromRoom = state.room && state.room.me && state.room.me.continue_mode;
  const fromProfile = state.me && state.me.preferences && state.me.preferences.continue_mode;
  return fromRoom || fromProfile || 'auto';
}

async function setContinueMode(mode, button) {
  // Naming the room applies the switch there at once (switching to Auto during a break agrees).
  const body = { continue_mode: mode };
  if (state.room && state.room.me && state.room.me.player_id) body.room_id = state.room.id;
  const answer = await attempt(() => api('PATCH', '/me/preferences', body), button);
  if (answer && answer.preferences && state.me) {
    state.me.preferences = answer.preferences;
    hooks.render();
    if (body.room_id) hooks.refreshRoom();
  }
  keepFocus(button);
}

function resignControl(room) {
  const g = room.game;
  const box = h('div', { class: 'resign-box' });
  const ask = h('button', {
    class: 'btn btn-ghost btn-small', testid: 'resign',
    onclick: () => {
      const confirm = h('button', {
        class: 'btn btn-danger btn-small', testid: 'resign-confirm',
        onclick: (event) => roomCall('POST', actionPath(room), { type: 'resign' }, event.currentTarget),
      }, t('game.yesResign'));
      const cancel = h('button', {
        class: 'btn btn-ghost btn-small', testid: 'resign-cancel',
        onclick: () => { mount(box, ask); ask.focus(); },
      }, t('common.cancel'));
      mount(box, h('span', { class: 'small' }, t('game.resignQ'), ' '), confirm, cancel);
      // Focus moves to the question's safe answer.
      cancel.focus();
    },
  }, t('game.resign'));
  void g;
  return mount(box, ask);
}

function metricsPanel(room) {
  const g = room.game;
  const mine = myPlayer(room);
  let timeLabel = t('game.time');
  let deadline = null;
  if (g.phase === 'bidding' && g.turn) { timeLabel = t('game.turnTime'); deadline = g.turn.deadline; }
  if (g.phase === 'break' && g.break) { timeLabel = t('game.break'); deadline = g.break.deadline; }
  const metric = (label, value, testid) => h('div', { class: 'metric', testid },
    h('span', { class: 'metric-label' }, label), h('span', { class: 'metric-value' }, value));
  const terms = roomSystem(room).terms;
  const parts = [
    metric(t(terms.Round), String(g.round), 'metric-round'),
    metric(timeLabel, g.phase === 'final_reveal' ? t('game.finalReveal') : countdown(deadline, 'big'), 'metric-time'),
    metric(t(terms.piecesInPlay), String(g.total_dice), 'metric-dice'),
  ];
  if (mine && state.user) {
    const mode = continueMode();
    const seg = (value, label) => h('button', {
      type: 'button', class: 'seg', testid: `continue-${value}`, 'aria-pressed': String(mode === value),
      onclick: (event) => { if (mode !== value) setContinueMode(value, event.currentTarget); },
    }, label);
    const agreed = g.break && (g.break.agreed || []).includes(mine.id);
    let agree = null;
    if (g.phase === 'break' && isActive(mine)) {
      agree = agreed
        ? h('span', { class: 'pill pill-ok', testid: 'agreed' }, t('game.agreed'))
        : h('button', {
          class: 'btn btn-primary btn-small', testid: 'agree',
          onclick: (event) => roomCall('POST', actionPath(room), { type: 'agree' }, event.currentTarget, { focusAfter: ["[data-testid='continue-manual']"] }),
        }, t('game.agree'));
    }
    parts.push(h('div', { class: 'metric metric-continue', testid: 'metric-continue' },
      h('span', { class: 'metric-label' }, t('game.continue')),
      h('div', { class: 'segmented', role: 'group', 'aria-label': t('game.continueMode') }, seg('auto', t('game.auto')), seg('manual', t('game.manual'))),
      agree));
  }
  if (mine && isActive(mine) && room.status === 'playing') parts.push(resignControl(room));
  return h('section', { class: 'card metrics-panel', testid: 'metrics' }, h('div', { class: 'metrics' }, parts));
}

// ---- round reveal -----------------------------------------------------------

function revealPanel(room) {
  const g = room.game;
  const reveal = g && g.last_reveal;
  const system = roomSystem(room);
  if (!reveal) {
    return h('section', { class: 'card reveal-panel', testid: 'reveal' }, h('h2', {}, t(system.terms.revealTitle)),
      h('p', { class: 'muted' }, t(system.terms.revealHint)));
  }
  const previous = g.phase === 'bidding' && reveal.round < g.round;
  return system.reveal(room, reveal, { previous, byClock: clockCalled(room, reveal.round) });
}

// ---- screen -----------------------------------------------------------------

// ---- the round that put you out (issue 28 defect 1) -------------------------------------
//
// Lose your last die while others play on: the rest of the game (bots only) can be over in the
// same push, and the view's reveal is the last round's. The round that put you out then gets
// its moment before the results: its reveal (from the hand history), until OUT_MS pass or the
// player goes on.

const OUT_MS = 8000;
const out = { roomId: null, sawPlay: false, asked: false, reveal: null, until: 0 };

function outReveal(room) {
  if (out.roomId !== room.id) Object.assign(out, { roomId: room.id, sawPlay: false, asked: false, reveal: null, until: 0 });
  if (room.status === 'playing') out.sawPlay = true;
  const mine = myPlayer(room);
  if (room.status !== 'finished' || !out.sawPlay || !mine || !mine.eliminated) return null;
  const last = room.game && room.game.last_reveal;
  if (last && (last.eliminated || []).includes(mine.id)) return null; // the last reveal is that round
  if (!out.asked) {
    out.asked = true;
    out.until = Date.now() + OUT_MS;
    api('GET', `/rooms/${encodeURIComponent(room.id)}/history`).then((history) => {
      const record = (history.rounds || []).find((r) => r.reveal && (r.reveal.eliminated || []).includes(mine.id));
      if (record && out.roomId === room.id) {
        out.reveal = record.reveal;
        out.until = Date.now() + OUT_MS;
        hooks.render();
        setTimeout(() => hooks.render(), OUT_MS + 50);
      } else {
        out.until = 0;
        hooks.render();
      }
    }).catch(() => { out.until = 0; hooks.render(); });
  }
  if (Date.now() >= out.until) return null;
  return out.reveal || 'pending';
}

function outPanel(room, reveal) {
  const go = h('button', {
    class: 'btn btn-primary', type: 'button', testid: 'see-results',
    onclick: () => { out.until = 0; hooks.render(); document.querySelector("[data-testid='final-results'] h2")?.focus(); },
  }, t('game.seeResults'));
  queueMicrotask(() => { if (go.isConnected) go.focus(); });
  return h('section', { class: 'card out-round', testid: 'out-reveal', dataset: { round: String(reveal.round) } },
    h('h2', {}, t('game.outTitle')),
    h('p', { class: 'muted' }, t('game.outNote')),
    roomSystem(room).reveal(room, reveal, { previous: false }),
    h('div', { class: 'button-row' }, go));
}

function bannerPanel(room) {
  const g = room.game;
  const mineOut = outReveal(room);
  if (mineOut === 'pending') {
    return h('section', { class: 'card banner', testid: 'final-reveal', role: 'status' }, h('strong', {}, t('game.finalBanner')));
  }
  if (mineOut) return outPanel(room, mineOut);
  if (room.status === 'finished') return resultsCard(room);
  if (inCountdown(room)) return countdownBanner(room);
  if (g && g.phase === 'final_reveal') {
    return h('section', { class: 'card banner', testid: 'final-reveal', role: 'status' }, h('strong', {}, t('game.finalBanner')));
  }
  return null;
}

/** Render (or update) the game screen into container. */
export function renderGame(container, room) {
  if (container.dataset.kind !== 'game') {
    container.dataset.kind = 'game';
    mount(container, h('div', { class: 'game', testid: 'game-screen' },
      h('div', { dataset: { slot: 'banner' } }),
      h('div', { class: 'game-row', dataset: { slot: 'row' } },
        h('div', { class: 'slot-bid', dataset: { slot: 'bid' } }),
        h('div', { class: 'slot-players', dataset: { slot: 'players' } }),
        h('div', { class: 'slot-metrics', dataset: { slot: 'metrics' } })),
      h('div', { dataset: { slot: 'reveal' } }),
      h('div', { dataset: { slot: 'extras' } })));
  }
  const slot = (name) => container.querySelector(`[data-slot="${name}"]`);
  // Tests and tools wait on this to know a new view was rendered.
  container.firstElementChild.dataset.version = String(room.version);
  const g = room.game;
  const me = room.me || {};
  const finished = room.status === 'finished' || !g;
  const outKey = outReveal(room);
  panel(slot('banner'), JSON.stringify([room.status, g && g.phase, room.results, room.players, room.recreated_as, me.player_id, outKey, inCountdown(room)]), () => bannerPanel(room));
  slot('row').hidden = finished;
  if (!finished) {
    const turn = g.turn || {};
    const rules = room.settings && room.settings.rules;
    panel(slot('bid'), JSON.stringify([g.round, g.phase, turn.number, turn.player_id, g.current_bid, g.total_dice, me, myPlayer(room), rules, g.table || null]), () => bidPanel(room));
    panel(slot('players'), JSON.stringify([room.players, g.phase, turn, g.current_bid, me.dice, g.break, g.table || null]), () => playersPanel(room));
    panel(slot('metrics'), JSON.stringify([g.round, g.phase, turn.deadline, g.break, g.total_dice, me.player_id, myPlayer(room), continueMode(), Boolean(state.user)]), () => metricsPanel(room));
  }
  panel(slot('reveal'), JSON.stringify([g && g.last_reveal, g && g.round, g && g.phase, room.players, room.settings && room.settings.rules]), () => (g ? revealPanel(room) : null));
  panel(slot('extras'), JSON.stringify([room.status, me.player_id, room.players]),
    // No preview of rating changes in a game that changes no rating (issue 28 defect 8).
    () => (!finished && me.player_id && room.rated !== false ? eloPreviewCard(room, { collapsible: true }) : null));
}
