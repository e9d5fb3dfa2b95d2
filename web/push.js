// Notifications in the browser: the service worker, and the opt-in to Web Push.
//
// The service worker is registered at load (that asks nothing of the player); the permission
// prompt appears only when the player presses "Turn on notifications". The subscription is
// sent to the server (POST /me/push-subscriptions) and removed on "Turn off" and sign-out.

import { api, getToken } from './api.js';
import { h } from './dom.js';
import { state, toast } from './core.js';
import { errorMessage } from './messages.js';
import { language, t } from './i18n/index.js';


let registration = null;

export function pushSupported() {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

/** Register the service worker (no prompt); resolves to its registration, or null. */
export async function registerServiceWorker() {
  if (!('serviceWorker' in navigator)) return null;
  try {
    registration = await navigator.serviceWorker.register('sw.js', { scope: './' });
    navigator.serviceWorker.addEventListener('message', (event) => {
      const data = event.data || {};
      if (data.type === 'open_room' && typeof data.url === 'string') {
        const target = new URL(data.url, location.href);
        if (target.origin === location.origin) location.hash = target.hash;
      }
    });
  } catch {
    registration = null;
  }
  return registration;
}

function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (base64url.length % 4)) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

async function currentSubscription() {
  const reg = registration || (await navigator.serviceWorker.ready);
  return reg.pushManager.getSubscription();
}

/** Ask permission (the player pressed the button), subscribe, and tell the server. */
export async function enablePush() {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new Error(t('push.blocked'));
  const { key } = await api('GET', '/push/vapid-public-key');
  const reg = registration || (await navigator.serviceWorker.ready);
  const subscription = (await reg.pushManager.getSubscription())
    || (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) }));
  await api('POST', '/me/push-subscriptions', subscription.toJSON());
  // Notifications are written in the language the user chose on the server; one who never
  // picked one gets them in the language this page speaks, which is remembered for them.
  const prefs = state.me && state.me.preferences;
  if (prefs && !prefs.language) {
    const answer = await api('PATCH', '/me/preferences', { language: language() }).catch(() => null);
    if (answer && answer.preferences) state.me.preferences = answer.preferences;
  }
  return subscription;
}

/**
 * Unsubscribe this browser and tell the server. Sign-out calls it before forgetting the
 * token, so the token is taken now: the next player on this browser gets nothing of ours.
 */
export async function disablePush(token = getToken()) {
  if (!pushSupported()) return;
  const subscription = await currentSubscription().catch(() => null);
  if (!subscription) return;
  try {
    await fetch('/me/push-subscriptions', {
      method: 'DELETE',
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ endpoint: subscription.endpoint }),
    });
  } catch { /* offline: the subscription below still goes */ }
  await subscription.unsubscribe().catch(() => {});
}

/** The opt-in card of the lobby: for registered players on browsers that can. */
export function pushCard() {
  if (!pushSupported() || !state.user || state.user.guest) return null;
  const status = h('p', { class: 'muted small', testid: 'push-status' }, t('push.hint'));
  const button = h('button', { class: 'btn btn-secondary btn-block', type: 'button', testid: 'push-toggle' }, t('push.on'));
  let on = false;
  function show(value) {
    on = value;
    button.textContent = on ? t('push.off') : t('push.on');
    button.setAttribute('aria-pressed', String(on));
  }
  if (Notification.permission === 'granted') {
    currentSubscription().then((s) => show(Boolean(s))).catch(() => {});
  } else if (Notification.permission === 'denied') {
    status.textContent = t('push.blocked');
  }
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      if (on) { await disablePush(); show(false); toast(t('push.disabled')); }
      else { await enablePush(); show(true); toast(t('push.enabled')); }
    } catch (err) {
      status.textContent = err && err.code ? errorMessage(err) : (err && err.message) || t('push.blocked');
    } finally {
      button.disabled = false;
    }
  });
  return h('section', { class: 'card', testid: 'push-card' }, h('h2', {}, t('push.title')), status, button);
}
