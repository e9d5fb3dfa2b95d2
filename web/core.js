// Shared client state and small helpers used by every screen.

import { ApiError, api } from './api.js';
import { h } from './dom.js';
import { errorMessage } from './messages.js';
import { t } from './i18n/index.js';

/** The whole client state. Room views come from the server and are authoritative. */
export const state = {
  user: null,        // {id, name, guest}
  me: null,          // GET /me answer: {user, rating, preferences, invitations}
  roomId: null,
  room: null,        // latest room view (highest version wins)
  chat: [],
  chatIds: new Set(),
  connection: 'offline',
  bid: { quantity: null, face: null },
  show: null,        // a rule system's selection of dice for the current turn (its module's)
  lobbyStatus: 'waiting',
};

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

/** POST a room action and apply the returned view. */
export async function roomCall(method, path, body, button, options) {
  const room = await attempt(() => api(method, path, body), button, options);
  if (room && room.id) hooks.applyRoom(room);
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
