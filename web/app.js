// Liar's Lies web client: routing, session, realtime wiring and timers.

import { Realtime, api, getToken, noteServerTime, serverNow, setToken } from './api.js';
import { logLine, onView, setRerender } from './table.js';
import { h, mount } from './dom.js';
import { formatSeconds, hooks, sendOfflineMove, state, toast } from './core.js';
import { renderLobby, stopLobby } from './lobby.js';
import { renderRoomScreen, showRoomError, updateRoomScreen } from './room.js';
import { addChatMessage, loadChat } from './chat.js';
import { errorMessage } from './messages.js';
import { initial } from './text.js';
import { renderLeaderboard, renderProfile, renderReplay } from './records.js';
import { loadSystems } from './systems/index.js';
import { LANGUAGES, adoptLanguage, formatRating, language, loadCatalogues, onLanguageChange, setLanguage, t } from './i18n/index.js';
import { PushOrder } from './order.js';
import { disablePush, registerServiceWorker } from './push.js';
import { resetSelection } from './store.js';
import { onMatchFound } from './quickplay.js';

const main = document.getElementById('app');
const userBox = document.getElementById('header-user');
const connection = document.getElementById('connection');
const connectionLabel = document.getElementById('connection-label');

const FINAL_REVEAL_MS = 3000;

// ---- session ------------------------------------------------------------------

async function loadMe() {
  if (!getToken()) {
    state.user = null;
    state.me = null;
    return;
  }
  try {
    const me = await api('GET', '/me');
    state.me = me;
    state.user = me.user;
    // The language the user chose on any device (null: this browser's choice stands).
    adoptLanguage(me.preferences && me.preferences.language);
  } catch (err) {
    if (err.status === 401) {
      setToken(null);
      state.user = null;
      state.me = null;
    } else if (!state.user) {
      toast(errorMessage(err));
    }
  }
}

function renderHeader() {
  if (!state.user) {
    mount(userBox, h('span', { class: 'muted small' }, t('app.notSignedIn')));
    return;
  }
  const rating = state.me && state.me.rating ? state.me.rating['liars-lies'] : null;
  mount(userBox,
    h('span', { class: 'user-chip', testid: 'current-user' },
      h('span', { class: 'avatar small', 'aria-hidden': 'true' }, initial(state.user.name)),
      h('span', { class: 'user-name' }, state.user.name),
      state.user.guest ? h('span', { class: 'pill pill-muted' }, t('app.guest')) : null,
      typeof rating === 'number' ? h('span', { class: 'pill pill-rating', title: t('app.eloTitle') }, t('app.elo', { rating: formatRating(Math.round(rating)) })) : null),
    h('button', { class: 'btn btn-ghost btn-small', testid: 'sign-out', onclick: () => signOut(false) }, t('app.signOut')));
}

async function signedIn(answer) {
  setToken(answer.token);
  state.user = answer.user;
  await loadMe();
  renderHeader();
  realtime.restart();
  rerenderForNewViewer();
  toast(state.user ? t('app.signedInAs', { name: state.user.name }) : t('app.signedInGuest'), 'info');
}

function signOut(expired) {
  if (!expired) disablePush(getToken());
  setToken(null);
  state.user = null;
  state.me = null;
  renderHeader();
  realtime.restart();
  rerenderForNewViewer();
  toast(expired ? t('app.sessionEnded') : t('app.signedOut'), 'info');
}

function rerenderForNewViewer() {
  if (state.roomId) {
    // Views are per viewer: drop the old one and fetch ours.
    state.room = null;
    pushes.reset();
    renderRoomScreen(main);
    refreshRoom();
  } else {
    route();
  }
}

// ---- rooms ----------------------------------------------------------------------

/** Put a room view on the table (with the events of its push, if any; `gap`: changes were missed). */
function showRoom(room, events, gap) {
  if (!room || room.id !== state.roomId) return;
  if (state.room && typeof room.version === 'number' && room.version < state.room.version) return;
  noteServerTime(room.server_time);
  onView(room, events, gap);
  const justFinished = room.status === 'finished' && state.room && state.room.status !== 'finished';
  state.room = room;
  // Ratings change when a game ends: refresh the header's rating.
  if (justFinished && state.user) loadMe().then(renderHeader);
  updateRoomScreen(main);
}

// Pushes that skip a version wait briefly for the one before (web/order.js).
const pushes = new PushOrder({ apply: showRoom, table: () => state.room });

/** A view from a GET or a tick: the room as it is now, the baseline for the pushes after it. */
function applyRoom(room) {
  showRoom(room);
  pushes.baseline(room);
}

/** An action's answer: shown at once; the pushes up to it still bring its events. */
function applyAnswer(room) {
  showRoom(room);
  pushes.settle();
}

async function refreshRoom() {
  const roomId = state.roomId;
  if (!roomId) return;
  try {
    const room = await api('GET', `/rooms/${encodeURIComponent(roomId)}`);
    applyRoom(room);
  } catch (err) {
    if (state.roomId !== roomId) return;
    if (!state.room) showRoomError(main, err.status === 404 ? t('app.roomMissing') : errorMessage(err));
  }
}

function enterRoom(roomId) {
  leaveRoom();
  stopLobby();
  state.roomId = roomId;
  state.room = null;
  pushes.reset();
  state.chat = [];
  state.chatIds = new Set();
  resetSelection();
  renderRoomScreen(main);
  realtime.subscribe(roomId);
  refreshRoom();
  loadChat(roomId);
}

function leaveRoom() {
  if (!state.roomId) return;
  realtime.unsubscribe(state.roomId);
  document.title = t('app.name');
  state.roomId = null;
  state.room = null;
  pushes.reset();
}

// ---- routing ----------------------------------------------------------------------

function parseRoute() {
  const path = (location.hash.replace(/^#/, '') || '/').split('?')[0];
  const replay = path.match(/^\/rooms\/([^/?#]+)\/replay$/);
  if (replay) return { name: 'replay', roomId: decodeURIComponent(replay[1]) };
  if (path === '/leaderboard') return { name: 'leaderboard' };
  const user = path.match(/^\/users\/([^/?#]+)$/);
  if (user) return { name: 'profile', username: decodeURIComponent(user[1]) };
  const match = path.match(/^\/rooms\/([^/?#]+)/);
  if (match) return { name: 'room', roomId: decodeURIComponent(match[1]) };
  return { name: 'lobby' };
}

function route() {
  const current = parseRoute();
  if (current.name === 'replay' || current.name === 'leaderboard' || current.name === 'profile') {
    leaveRoom();
    stopLobby();
    if (current.name === 'replay') renderReplay(main, current.roomId);
    else if (current.name === 'leaderboard') renderLeaderboard(main);
    else renderProfile(main, current.username);
  } else if (current.name === 'room') {
    if (state.roomId !== current.roomId) enterRoom(current.roomId);
    else updateRoomScreen(main);
  } else {
    leaveRoom();
    renderLobby(main);
    // Fresh invitations and rating whenever the lobby opens.
    if (state.user) {
      loadMe().then(() => {
        renderHeader();
        if (!state.roomId && state.me && (state.me.invitations || []).length) renderLobby(main);
      });
    }
  }
  window.scrollTo(0, 0);
}

// ---- realtime ---------------------------------------------------------------------

let lastWsError = { text: '', at: 0 };
// A server without WebSockets accepts each retry and refuses it with `websocket_unavailable`:
// said once per outage, and again only once a connection has stayed up and is lost again.
const wsRefusal = { said: false, timer: null };
const WS_UP_MS = 5000;

function onMessage(message) {
  switch (message.type) {
    case 'room':
      pushes.receive(message.room, message.events);
      break;
    case 'room_changed':
      // Too large to push: fetch the room (its view is the new baseline).
      if (message.room_id === state.roomId && state.room && message.version > state.room.version) refreshRoom();
      break;
    case 'chat':
      if (message.room_id === state.roomId) addChatMessage(message.message);
      break;
    case 'match_found':
      onMatchFound(message);
      break;
    case 'error': {
      const error = message.error || {};
      console.warn('websocket error', error);
      // Timer races are routine; an unknown room is already said on the room screen.
      if (['stale_turn', 'not_due', 'unknown_room', 'unknown_connection'].includes(error.code)) break;
      if (error.code === 'websocket_unavailable') {
        if (!wsRefusal.said) toast(errorMessage({ code: error.code, status: 0, message: error.message }));
        wsRefusal.said = true;
        break;
      }
      const text = errorMessage({ code: error.code, status: 0, message: error.message });
      if (text !== lastWsError.text || Date.now() - lastWsError.at > 10000) {
        lastWsError = { text, at: Date.now() };
        toast(text);
      }
      break;
    }
    default:
      break;
  }
}

const realtime = new Realtime({
  onMessage,
  onStatus: (status) => {
    if (status === 'online') {
      // This connection counts as up once it has stayed open a while (a refusal closes it).
      const ws = realtime.ws;
      clearTimeout(wsRefusal.timer);
      wsRefusal.timer = setTimeout(() => {
        if (realtime.ws === ws && realtime.open) wsRefusal.said = false;
      }, WS_UP_MS);
    }
    state.connection = status;
    connection.dataset.status = status;
    showConnection();
  },
  onConnected: () => {
    // Anything may have happened while we were away: resync over REST.
    if (state.roomId) {
      // a move made offline goes once the table is fresh (its push then comes over this socket)
      refreshRoom().then(sendOfflineMove);
      loadChat(state.roomId);
    }
  },
});

/** The header's connection light and words, in the chosen language. */
function showConnection() {
  const status = state.connection;
  connection.dataset.status = status;
  const label = t({ online: 'app.live', connecting: 'app.connecting', offline: 'app.offline' }[status] || 'app.connecting');
  connection.title = label;
  connectionLabel.textContent = label;
  connectionLabel.dataset.status = status;
}

// ---- language ---------------------------------------------------------------------

/** The static words of index.html (header links, names), in the chosen language. */
function staticWords() {
  document.title = t('app.name');
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll('[data-i18n-label]')) node.setAttribute('aria-label', t(node.dataset.i18nLabel));
  showConnection();
}

/** A language picked: shown at once, and remembered on the server for a signed-in user. */
function pickLanguage(code) {
  setLanguage(code);
  if (!getToken() || !state.user) return;
  api('PATCH', '/me/preferences', { language: language() }).then((answer) => {
    if (state.me) state.me.preferences = answer.preferences;
  }).catch((err) => toast(errorMessage(err)));
}

/** The language picker in the header. */
function languagePicker() {
  const box = document.getElementById('language-box');
  if (!box) return;
  const select = h('select', {
    id: 'language', class: 'language-select', testid: 'language',
    value: language(),
    onchange: (event) => pickLanguage(event.target.value),
  }, LANGUAGES.map(([code, name]) => h('option', { value: code, lang: code }, name)));
  mount(box, select);
}

// ---- keyboard shortcuts (How to play lists them) ------------------------------------------
//
// B bids (or claims: the button with aria-keyshortcuts="B"), L calls Liar! (the one with "L"),
// + and − change the quantity, 1–6 choose the face. Never while typing (chat, a name, a passcode) or with a modifier key held, and only
// when the button is there and enabled (it is your turn).

function typing(target) {
  if (!target || !(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  return tag === 'INPUT' && !['button', 'checkbox', 'radio', 'submit', 'number'].includes(target.type);
}

function press(...selectors) {
  for (const selector of selectors) {
    const found = selector.startsWith('[') ? selector : `[data-testid='${selector}']`;
    for (const button of document.querySelectorAll(found)) {
      if (!button.disabled && button.getClientRects().length) {
        button.click();
        return true;
      }
    }
  }
  return false;
}

document.addEventListener('keydown', (event) => {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
  if (document.querySelector('dialog[open]')) return;
  const key = event.key.toLowerCase();
  const quantity = document.querySelector("[data-testid='bid-quantity']");
  // In the quantity field only B and L are shortcuts (digits are typed there).
  if (event.target === quantity && !['b', 'l'].includes(key)) return;
  let done = false;
  if (key === 'b') done = press("[aria-keyshortcuts='B']");
  else if (key === 'l') done = press("[aria-keyshortcuts='L']");
  else if (key === '+' || key === '=') done = press('bid-quantity-up');
  else if (key === '-' || key === '−') done = press('bid-quantity-down');
  else if (/^[1-6]$/.test(key)) done = press(key === '1' && !document.querySelector("[data-testid='bid-face-1']") ? 'bid-face-star' : `bid-face-${key}`);
  if (done) event.preventDefault();
});

// ---- timers -------------------------------------------------------------------------

const tickState = { key: null, sent: 0, nextAt: 0 };
const finalSeen = { version: null, at: 0 };

function activeDeadline(room) {
  const g = room && room.game;
  if (!g || room.status !== 'playing') return null;
  if (g.phase === 'bidding' && g.turn && g.turn.deadline) return Date.parse(g.turn.deadline);
  if (g.phase === 'break' && g.break && g.break.deadline) return Date.parse(g.break.deadline);
  if (g.phase === 'final_reveal') {
    if (g.deadline) return Date.parse(g.deadline);
    // The view carries no deadline for the fixed final reveal: count from when we saw it.
    if (finalSeen.version !== room.version) {
      finalSeen.version = room.version;
      finalSeen.at = serverNow();
    }
    return finalSeen.at + FINAL_REVEAL_MS;
  }
  return null;
}

function sendTick(room, viaRest) {
  if (!viaRest && realtime.send({ action: 'tick', room_id: room.id })) return;
  api('POST', `/rooms/${encodeURIComponent(room.id)}/tick`).then(applyRoom).catch(() => {});
}

/** Warn once per turn when 10 s are left on your own turn (the countdown itself is not read out). */
const warned = { key: null };
function warnTenSeconds(room, now) {
  const g = room && room.game;
  const me = room && room.me && room.me.player_id;
  if (!g || room.status !== 'playing' || g.phase !== 'bidding' || !g.turn || g.turn.player_id !== me || !g.turn.deadline) return;
  const left = Date.parse(g.turn.deadline) - now;
  const key = `${room.id}|${g.round}|${g.turn.number}`;
  if (left > 0 && left <= 10000 && warned.key !== key) {
    warned.key = key;
    logLine(t('game.tenSeconds'));
    document.querySelector("[data-testid='bid-panel']")?.classList.add('is-hurried');
  }
}

function timerLoop() {
  const now = serverNow();
  warnTenSeconds(state.room, now);
  for (const node of document.querySelectorAll('[data-deadline]')) {
    const left = Date.parse(node.dataset.deadline) - now;
    const text = Number.isNaN(left) ? '—' : formatSeconds(left);
    if (node.textContent !== text) node.textContent = text;
    node.classList.toggle('urgent', left < 5000);
  }
  // When our countdown ends, ask the server to apply the deadline (its clock decides).
  const room = state.room;
  const deadline = activeDeadline(room);
  if (deadline === null || Number.isNaN(deadline) || now < deadline) return;
  const key = `${room.id}|${room.version}|${deadline}`;
  if (tickState.key !== key) {
    tickState.key = key;
    tickState.sent = 0;
    tickState.nextAt = 0;
  }
  if (tickState.sent < 6 && now >= tickState.nextAt) {
    sendTick(room, tickState.sent > 0);
    tickState.sent += 1;
    tickState.nextAt = now + 1000 * tickState.sent;
  }
}

setInterval(timerLoop, 250);

// The browser knows first when the network is gone: say so at once (the socket would take up to
// ~10 s to notice), and reconnect as soon as it is back, then send a move made meanwhile.
window.addEventListener('offline', () => {
  state.connection = 'offline';
  showConnection();
});
window.addEventListener('online', () => realtime.restart());

// Without a live connection, poll the room so play goes on.
setInterval(() => {
  if (state.roomId && !realtime.open && !document.hidden) refreshRoom();
}, 3000);

// ---- start ----------------------------------------------------------------------------

hooks.applyRoom = applyAnswer;
// The live table redraws as each event's moment comes.
setRerender(() => {
  if (state.roomId && state.room) updateRoomScreen(main);
});
hooks.refreshRoom = refreshRoom;
hooks.signedIn = signedIn;
hooks.signOut = signOut;
hooks.render = () => {
  if (state.roomId) updateRoomScreen(main);
  else route();
};
hooks.realtime = realtime;

(async function start() {
  // The rule systems' modules (systems/<rules>.js) come first: every screen asks them.
  await Promise.all([loadCatalogues(), loadSystems(), loadMe()]);
  adoptLanguage(state.me && state.me.preferences && state.me.preferences.language);
  staticWords();
  languagePicker();
  onLanguageChange((code, picked) => {
    // Every screen draws its words when drawn: redraw all of it in the new language.
    staticWords();
    languagePicker();
    renderHeader();
    if (state.roomId) { renderRoomScreen(main); updateRoomScreen(main); } else route();
    // The picker keeps focus; a language adopted from the server (sign-in) moves none.
    if (picked) document.getElementById('language')?.focus();
  });
  window.addEventListener('hashchange', route);
  renderHeader();
  realtime.restart();
  route();
  registerServiceWorker(); // notifications and "you are offline"; asks nothing of the player
}());
