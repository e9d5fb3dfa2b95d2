// Shared client state and small helpers used by every screen.

import { ApiError, api } from './api.js';
import { focusKey, h, refocus } from './dom.js';
import { room as roomPart, selection, session } from './store.js';
import { errorMessage } from './messages.js';
import { t } from './i18n/index.js';

/**
 * The screens' short names for the parts of the store (web/store.js): `state.user` is
 * `session.user`, `state.room` is `room.view`, `state.bid` is `selection.bid`, and so on. No
 * state lives here; a rule system gets its own part of the selection, never this object.
 */
export const state = Object.defineProperties({}, Object.fromEntries([
  ['user', session, 'user'], ['me', session, 'me'], ['connection', session, 'connection'],
  ['roomId', roomPart, 'id'], ['room', roomPart, 'view'], ['chat', roomPart, 'chat'],
  ['chatIds', roomPart, 'chatIds'], ['lobbyStatus', roomPart, 'lobbyStatus'], ['bid', selection, 'bid'],
].map(([name, part, key]) => [name, {
  get: () => part[key],
  set: (value) => { part[key] = value; },
  enumerable: true,
}])));

/** Hooks the app installs so screens can ask for app-level work. */
export const hooks = {
  applyRoom: () => {},
  refreshRoom: async () => {},
  signedIn: async () => {},
  signOut: () => {},
  render: () => {},
  realtime: null,
};

/** Show a short message in a toast at the bottom of the screen (one of each text, two at most). */
export function toast(message, kind = 'error') {
  const host = document.getElementById('toasts');
  for (const old of host.querySelectorAll('.toast')) {
    if (old.textContent === message) old.remove();
  }
  while (host.children.length >= 2) host.firstElementChild.remove();
  const node = h('div', { class: ['toast', `toast-${kind}`], role: kind === 'error' ? 'alert' : 'status', testid: 'toast' }, message);
  host.append(node);
  setTimeout(() => node.classList.add('leaving'), 4200);
  setTimeout(() => node.remove(), 4700);
}

/** Go to a route (hash). */
export function navigate(hash) {
  if (location.hash === hash) hooks.render();
  else location.hash = hash;
}

/**
 * Run a server call for a user action: disables the button meanwhile, shows errors in
 * words (messages.js) in a toast, or through `options.inline(text)` when the screen shows
 * them beside the form, and resyncs the room after a conflict. `options.action` names the
 * context ('login', 'join', 'chat'…) for the wording.
 */
export async function attempt(fn, button, options = {}) {
  if (button) button.disabled = true;
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ApiError)) {
      console.error(err);
      toast(t('app.somethingWrong'));
      return undefined;
    }
    if (err.code === 'network_error' && options.offline) {
      // Offline (issue 28 defect 5): the move waits and is sent again once the connection is back.
      offlineMove = options.offline;
      toast(t('error.offline_move'));
      return undefined;
    }
    const text = errorMessage(err, options.action || null, state.room);
    if (options.inline) options.inline(text, err);
    else toast(text);
    if (err.status === 401 && state.user && options.action !== 'login') hooks.signOut(true);
    if (err.status === 409 && state.roomId) {
      const fresh = err.body && err.body.room;
      if (fresh) hooks.applyRoom(fresh);
      else hooks.refreshRoom();
    }
    return undefined;
  } finally {
    if (button && button.isConnected) button.disabled = false;
  }
}

/**
 * After an action the focus stays where the player is (issue 28): the button pressed if it is
 * still there and enabled, else the next sensible control (`after`: selectors, in order), else
 * the screen's `[data-focus-fallback]` (a heading). Only when the focus was lost meanwhile (a
 * disabled or redrawn button drops it to the page): never taken from where the player moved it.
 */
export function keepFocus(button, after = []) {
  const key = focusKey(button);
  let tries = 0;
  const settle = () => {
    const active = document.activeElement;
    const lost = !active || active === document.body || !active.isConnected;
    if (!lost) return;
    const main = document.getElementById('app') || document.body;
    if (refocus(main, key, after)) return;
    if (tries++ < 20) setTimeout(settle, 50);
  };
  requestAnimationFrame(settle);
}

let offlineMove = null;

/** The connection is back: send the move made offline, if its turn is still the table's. */
export function sendOfflineMove() {
  const move = offlineMove;
  offlineMove = null;
  if (!move || !state.room || state.room.id !== move.roomId) return;
  const turn = state.room.game && state.room.game.turn;
  if (move.body && typeof move.body.turn === 'number' && (!turn || turn.number !== move.body.turn)) return;
  roomCall(move.method, move.path, move.body, null);
}

/** POST a room action and apply the returned view (a game move made offline waits for the connection). */
export async function roomCall(method, path, body, button, options = {}) {
  if (/\/actions$/.test(path) && state.room) options = { ...options, offline: { method, path, body, roomId: state.room.id } };
  const room = await attempt(() => api(method, path, body), button, options);
  if (room && room.id) hooks.applyRoom(room);
  if (button) keepFocus(button, options.focusAfter || []);
  return room;
}

/** The player record by id in the current view. */
export function playerById(room, id) {
  return (room.players || []).find((p) => p.id === id) || null;
}

export function playerName(room, id) {
  const player = playerById(room, id);
  return player ? player.name : t('common.someone');
}

/** Name of a chat message author: the contract names it "user". */
export function authorName(user) {
  if (!user) return t('common.unknown');
  if (typeof user === 'string') return user;
  return user.name || t('common.unknown');
}

/** "1:05" style countdown text. */
export function formatSeconds(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${minutes}:${String(seconds).padStart(2, '0')}`;
}

export function isRegistered() {
  return Boolean(state.user && !state.user.guest);
}
