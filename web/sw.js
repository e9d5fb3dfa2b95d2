// The service worker: shows the server's notifications, opens the room they name, and says
// "you are offline" when a page cannot load (nothing else is cached: the game is online only).
//
// A push message is the JSON of docs/API.md ("Notifications"):
// {"type", "room_id", "rules", "title", "body"}. It never carries dice.

// The offline page in the three languages of web/i18n/ (a worker cannot load the catalogues
// without the network it is standing in for, so its few words live here).
const OFFLINE_WORDS = {
  en: ['You are offline', 'Liar\'s Lies needs a connection. It will load again when you are back online.'],
  es: ['No tienes conexión', 'Liar\'s Lies necesita conexión. Se cargará de nuevo cuando vuelvas a estar en línea.'],
  'pt-BR': ['Você está sem conexão', 'Liar\'s Lies precisa de conexão. Ele carrega de novo quando você voltar a ficar on-line.'],
};

function offlineHtml() {
  const tag = String((self.navigator && self.navigator.language) || 'en').toLowerCase();
  const lang = tag.startsWith('pt') ? 'pt-BR' : tag.startsWith('es') ? 'es' : 'en';
  const [title, text] = OFFLINE_WORDS[lang];
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8">`
    + '<meta name="viewport" content="width=device-width, initial-scale=1">'
    + '<title>Liar\'s Lies</title></head><body style="font-family:system-ui,sans-serif;'
    + 'background:#1e1b4b;color:#fff;display:grid;place-items:center;min-height:100vh;margin:0">'
    + `<main data-testid="offline"><h1>${title}</h1><p>${text}</p></main></body></html>`;
}

self.addEventListener('install', (event) => { event.waitUntil(self.skipWaiting()); });
self.addEventListener('activate', (event) => { event.waitUntil(self.clients.claim()); });

/** The client URL of a room: the app's own route, inside this worker's scope. */
function roomUrl(roomId) {
  return new URL(`./#/rooms/${encodeURIComponent(roomId)}`, self.registration.scope).href;
}

/** What a push shows: its title and body, tagged by room (a newer one replaces it). */
function notificationOf(message) {
  const m = message && typeof message === 'object' ? message : {};
  const roomId = typeof m.room_id === 'string' ? m.room_id : '';
  return {
    title: typeof m.title === 'string' && m.title ? m.title : 'Liar\'s Lies',
    options: {
      body: typeof m.body === 'string' ? m.body : '',
      tag: roomId ? `room-${roomId}` : 'liars-lies',
      renotify: true,
      icon: new URL('./icons/icon-192.png', self.registration.scope).href,
      data: { url: roomId ? roomUrl(roomId) : self.registration.scope, room_id: roomId, type: m.type || '' },
    },
  };
}

async function showPush(event) {
  let message = {};
  try { message = event.data ? event.data.json() : {}; } catch { message = {}; }
  const { title, options } = notificationOf(message);
  await self.registration.showNotification(title, options);
}

self.addEventListener('push', (event) => { event.waitUntil(showPush(event)); });

/** Focus a window of the app and bring it to the room, or open one on the room. */
async function openRoom(url) {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const client = windows.find((c) => new URL(c.url).origin === self.location.origin);
  if (!client) return self.clients.openWindow(url);
  try { await client.focus(); } catch { /* only a click may focus; go on without */ }
  if (client.url !== url && 'navigate' in client) {
    try { return await client.navigate(url); } catch { /* not controlled yet: ask the page */ }
  }
  client.postMessage({ type: 'open_room', url });
  return client;
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || self.registration.scope;
  event.waitUntil(openRoom(url));
});

self.addEventListener('fetch', (event) => {
  if (event.request.mode !== 'navigate') return; // the API and assets go to the network as ever
  event.respondWith(fetch(event.request).catch(() => new Response(offlineHtml(), {
    status: 503, headers: { 'Content-Type': 'text/html; charset=utf-8' },
  })));
});

// For tests and debugging from DevTools: what a message would show, and where a click goes.
self.liarsLies = { roomUrl, notificationOf, openRoom };
