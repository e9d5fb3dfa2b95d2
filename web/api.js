// REST and WebSocket client for the Liar's Lies API (see API.md).

const TOKEN_KEY = 'liars-lies.token';

/** An error answer from the server: {"error": {"code", "message", "field"?}}. */
export class ApiError extends Error {
  constructor(status, code, message, body) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

export function getToken() {
  try { return localStorage.getItem(TOKEN_KEY); } catch { return null; }
}

export function setToken(token) {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch { /* private mode: keep the session in memory only */ }
  memoryToken = token || null;
}

let memoryToken = getToken();

// Server clock offset (server - local), estimated from the Date header; the
// server's clock is the only clock, so countdowns use it.
let clockOffset = 0;

/** Milliseconds since the epoch on the server's clock (best estimate). */
export function serverNow() {
  return Date.now() + clockOffset;
}

let preciseClock = false;

// Each `server_time` gives (server - local) less the time its message spent on the way, never
// more: the largest recent sample is the best estimate. A message that waited (the backlog a
// phone delivers when it wakes a tab, a slow network) says the server is behind: it must not
// set the clock back, or every countdown would show seconds the server does not give.
const SAMPLE_MS = 30000;
let clockSamples = []; // {offset, at} (local ms)

/** Every room view carries `server_time` (epoch ms): count down on the server's clock. */
export function noteServerTime(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return;
  const now = Date.now();
  // Old samples go (and all of them if the local clock was set back).
  clockSamples = clockSamples.filter((s) => s.at <= now && now - s.at < SAMPLE_MS);
  clockSamples.push({ offset: ms - now, at: now });
  clockOffset = Math.max(...clockSamples.map((s) => s.offset));
  preciseClock = true;
}

function noteServerDate(response) {
  if (preciseClock) return;
  const header = response.headers.get('Date');
  if (!header) return;
  const server = Date.parse(header);
  if (Number.isNaN(server)) return;
  // The header has one-second resolution: only correct clearly skewed clocks.
  const offset = server + 500 - Date.now();
  clockOffset = Math.abs(offset) > 1500 ? offset : 0;
}

/** Call the REST API; resolves with the parsed JSON body or throws ApiError. */
export async function api(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (memoryToken) headers.Authorization = `Bearer ${memoryToken}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, 'network_error', 'Cannot reach the server. Check your connection.', null);
  }
  noteServerDate(response);
  let data = null;
  const text = await response.text();
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    const message = error.message || `Request failed (${response.status})`;
    const apiError = new ApiError(response.status, error.code || 'http_error', message, data);
    apiError.field = error.field;
    throw apiError;
  }
  return data;
}

/**
 * One WebSocket connection that reconnects by itself, re-subscribes to its
 * rooms, and reports (re)connections so the app can resync over REST.
 */
export class Realtime {
  constructor({ onMessage, onStatus, onConnected }) {
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.onConnected = onConnected || (() => {});
    this.rooms = new Set();
    this.ws = null;
    this.attempt = 0;
    this.generation = 0;
    this.retryTimer = null;
    this.pingTimer = null;
  }

  get open() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  /** (Re)connect now, e.g. after signing in or out. */
  restart() {
    this.generation += 1;
    clearTimeout(this.retryTimer);
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      try { old.close(); } catch { /* already closed */ }
    }
    this.attempt = 0;
    this.connect(this.generation);
  }

  async connect(generation) {
    if (generation !== this.generation) return;
    this.onStatus('connecting');
    let ticket = null;
    if (memoryToken) {
      try {
        ticket = (await api('POST', '/realtime/tickets')).ticket;
      } catch (err) {
        if (err.status === 0) { this.scheduleRetry(generation); return; }
        ticket = null; // connect as a signed-out spectator
      }
    }
    if (generation !== this.generation) return;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const query = ticket ? `?ticket=${encodeURIComponent(ticket)}` : '';
    let ws;
    try {
      ws = new WebSocket(`${scheme}://${location.host}/ws${query}`);
    } catch {
      this.scheduleRetry(generation);
      return;
    }
    this.ws = ws;
    let openedAt = 0;
    ws.addEventListener('open', () => {
      if (generation !== this.generation) return;
      openedAt = Date.now();
      this.onStatus('online');
      for (const roomId of this.rooms) this.send({ action: 'subscribe', room_id: roomId });
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ action: 'ping' }), 25000);
      this.onConnected();
    });
    ws.addEventListener('message', (event) => {
      if (generation !== this.generation) return;
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      this.onMessage(message);
    });
    ws.addEventListener('close', () => {
      if (generation !== this.generation) return;
      // Back off again unless the connection lasted (a server that accepts then closes).
      if (openedAt && Date.now() - openedAt > 10000) this.attempt = 0;
      clearInterval(this.pingTimer);
      this.ws = null;
      this.onStatus('offline');
      this.scheduleRetry(generation);
    });
  }

  scheduleRetry(generation) {
    if (generation !== this.generation) return;
    this.onStatus('offline');
    const delay = Math.min(10000, 500 * 2 ** this.attempt) + Math.random() * 300;
    this.attempt += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(generation), delay);
  }

  send(message) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  subscribe(roomId) {
    this.rooms.add(roomId);
    this.send({ action: 'subscribe', room_id: roomId });
  }

  unsubscribe(roomId) {
    if (!this.rooms.delete(roomId)) return;
    this.send({ action: 'unsubscribe', room_id: roomId });
  }
}
