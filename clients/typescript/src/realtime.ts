// The realtime client: one WebSocket to the API, rooms watched over it, kept alive.
//
// What it does for you (docs/API.md "WebSocket", docs/REALTIME.md):
// - gets a fresh single-use ticket for every connect (signed out: connects without one);
// - subscribes to every watched room again after each (re)connect;
// - pings every 25 s; a connection silent for too long is taken as dropped;
// - reconnects after a drop with exponential backoff and full jitter;
// - replaces the connection before API Gateway's 2-hour limit (make before break: the new
//   one is open and subscribed before the old one is closed);
// - keeps each room's pushes in version order: a push more than one version ahead is held
//   briefly for the missing one, then the room is resynced by `GET /rooms/{id}`; so is a push
//   with `events_dropped: true` and a `room_changed` message;
// - hands each event on once, by its `id` ("<version>.<index>"), whichever connection or
//   push carried it.
import { systemTimers, type Timers } from "./timers.js";
import type {
  ChatPush,
  ClientMessage,
  ErrorPush,
  RoomEvent,
  RoomPush,
  RoomView,
  ServerMessage,
} from "./types.js";

/** What the client needs of a WebSocket (the browser's and React Native's fit). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type WebSocketFactory = (url: string) => WebSocketLike;

export interface RealtimeOptions {
  /** The WebSocket URL (local server: `ws://HOST:PORT/ws`; AWS: the WebSocket stage). */
  url: string;
  /** A fresh ticket for each connect (`POST /realtime/tickets`); null connects signed out. */
  getTicket?: () => Promise<string | null>;
  /** `GET /rooms/{room_id}`, for resyncs. */
  getRoom: (roomId: string) => Promise<RoomView>;
  /** Defaults to the platform's `WebSocket` (browsers, Node 22+, React Native). */
  webSocket?: WebSocketFactory;
  timers?: Timers;
  /** In [0, 1): the jitter's source (Math.random). */
  random?: () => number;
  /** Backoff after a drop: a delay drawn in [0, min(maxMs, initialMs × 2^attempt)). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Replace the connection after this long (API Gateway closes it at 2 h). */
  maxConnectionMs?: number;
  pingIntervalMs?: number;
  /** No message at all for this long (pongs included): the connection is taken as dropped. */
  staleAfterMs?: number;
  /** How long a push that skipped a version waits for the missing one before a resync. */
  gapHoldMs?: number;
  /** A handshake not finished in this long is given up (and retried with the backoff). */
  connectTimeoutMs?: number;
}

/** Why a room update was handed on. */
export type UpdateReason =
  /** a push in version order */
  | "push"
  /** a subscribe or tick answer, or another view with no events: the room as it is */
  | "snapshot"
  /** a held push released after its gap was not filled in time (a resync follows) */
  | "gap"
  /** the view from `GET /rooms/{id}` after a gap, `events_dropped` or `room_changed` */
  | "resync";

export interface RoomUpdate {
  roomId: string;
  /** The newest view of the room (keep it: its `version` never goes back). */
  room: RoomView;
  /** The events not handed on before, in order (play them at their `at`: `playEvents`). */
  events: RoomEvent[];
  reason: UpdateReason;
  /** The push said some of its events did not fit; a resync follows. */
  eventsDropped: boolean;
}

export type ConnectionStatus = "connecting" | "open" | "reconnecting" | "closed";

/** Listeners may be async: a rejection is reported to the `error` listeners (else logged). */
interface Listeners {
  room: (update: RoomUpdate) => unknown;
  chat: (push: ChatPush) => unknown;
  error: (push: ErrorPush | { type: "client_error"; error: unknown }) => void;
  status: (status: ConnectionStatus) => void;
}

interface Connection {
  ws: WebSocketLike;
  open: boolean;
  /** closed on purpose: its close is not a drop */
  retired: boolean;
  lastMessageAt: number;
  timers: unknown[];
}

interface RoomState {
  version: number | null;
  held: Map<number, RoomPush>;
  gapTimer: unknown;
  seen: Map<string, number>;
  resyncing: boolean;
}

const OPEN = 1;

/** An event's identity: its `id`, else "<version>.<index>" (what `id` is made of). */
export function eventKey(event: RoomEvent, version: number, index: number): string {
  const id = (event as { id?: unknown }).id;
  return typeof id === "string" ? id : `${version}.${index}`;
}

export class RealtimeClient {
  private readonly timers: Timers;
  private readonly random: () => number;
  private readonly makeSocket: WebSocketFactory;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly maxConnectionMs: number;
  private readonly pingIntervalMs: number;
  private readonly staleAfterMs: number;
  private readonly gapHoldMs: number;
  private readonly connectTimeoutMs: number;

  private readonly rooms = new Map<string, RoomState>();
  private readonly listeners: { [K in keyof Listeners]: Set<Listeners[K]> } = {
    room: new Set(),
    chat: new Set(),
    error: new Set(),
    status: new Set(),
  };
  private current: Connection | null = null;
  private connecting = false;
  private reconnectTimer: unknown = null;
  private attempt = 0;
  private stopped = true;

  constructor(private readonly options: RealtimeOptions) {
    this.timers = options.timers ?? systemTimers;
    this.random = options.random ?? Math.random;
    this.initialMs = options.backoff?.initialMs ?? 500;
    this.maxMs = options.backoff?.maxMs ?? 30_000;
    this.maxConnectionMs = options.maxConnectionMs ?? 115 * 60_000;
    this.pingIntervalMs = options.pingIntervalMs ?? 25_000;
    this.staleAfterMs = options.staleAfterMs ?? 70_000;
    this.gapHoldMs = options.gapHoldMs ?? 500;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
    this.makeSocket =
      options.webSocket ??
      ((url: string) => {
        const Ctor = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
        if (!Ctor) throw new Error("no WebSocket on this platform: pass options.webSocket");
        return new Ctor(url);
      });
  }

  on<K extends keyof Listeners>(type: K, listener: Listeners[K]): () => void {
    this.listeners[type].add(listener);
    return () => this.listeners[type].delete(listener);
  }

  /** Connect (and keep connected until {@link close}). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.setStatus("connecting");
    void this.connect();
  }

  /** Close the connection for good (no reconnect). */
  close(): void {
    this.stopped = true;
    if (this.reconnectTimer !== null) this.timers.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    if (this.current) this.retire(this.current);
    this.current = null;
    for (const state of this.rooms.values()) this.clearGap(state);
    this.setStatus("closed");
  }

  /** Watch a room: its current view comes at once, then every change. */
  subscribe(roomId: string): void {
    if (!this.rooms.has(roomId)) {
      this.rooms.set(roomId, {
        version: null,
        held: new Map(),
        gapTimer: null,
        seen: new Map(),
        resyncing: false,
      });
    }
    this.send({ action: "subscribe", room_id: roomId });
  }

  unsubscribe(roomId: string): void {
    const state = this.rooms.get(roomId);
    if (state) this.clearGap(state);
    this.rooms.delete(roomId);
    this.send({ action: "unsubscribe", room_id: roomId });
  }

  /** Ask the server to apply every deadline that has passed (send it when a countdown ends). */
  tick(roomId: string): void {
    this.send({ action: "tick", room_id: roomId });
  }

  /** The newest version handed on for a room (null before its first view). */
  versionOf(roomId: string): number | null {
    return this.rooms.get(roomId)?.version ?? null;
  }

  get isOpen(): boolean {
    return this.current?.open === true;
  }

  // -- the connection ------------------------------------------------------------------------

  private send(message: ClientMessage, connection = this.current): boolean {
    if (!connection || !connection.open || connection.ws.readyState !== OPEN) return false;
    connection.ws.send(JSON.stringify(message));
    return true;
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.connecting) return;
    this.connecting = true;
    let ticket: string | null = null;
    try {
      ticket = this.options.getTicket ? await this.options.getTicket() : null;
    } catch (error) {
      this.connecting = false;
      this.emit("error", { type: "client_error", error });
      this.scheduleReconnect();
      return;
    }
    if (this.stopped) {
      this.connecting = false;
      return;
    }
    const url = ticket
      ? `${this.options.url}${this.options.url.includes("?") ? "&" : "?"}ticket=${encodeURIComponent(ticket)}`
      : this.options.url;
    let ws: WebSocketLike;
    try {
      ws = this.makeSocket(url);
    } catch (error) {
      this.connecting = false;
      this.emit("error", { type: "client_error", error });
      this.scheduleReconnect();
      return;
    }
    const connection: Connection = {
      ws,
      open: false,
      retired: false,
      lastMessageAt: this.timers.now(),
      timers: [],
    };
    ws.onopen = () => this.opened(connection);
    ws.onmessage = (event) => {
      connection.lastMessageAt = this.timers.now();
      this.receive(event.data);
    };
    ws.onclose = () => this.closed(connection);
    ws.onerror = () => {
      // A refused handshake or a network error: the close that follows is handled.
    };
    connection.timers.push(
      this.timers.setTimeout(() => {
        if (connection.open || connection.retired) return;
        // The handshake hangs: give it up as failed.
        this.connecting = false;
        this.retire(connection);
        this.dropped(connection);
      }, this.connectTimeoutMs),
    );
  }

  private opened(connection: Connection): void {
    this.connecting = false;
    if (this.stopped || connection.retired) {
      this.retire(connection);
      return;
    }
    connection.open = true;
    for (const handle of connection.timers) this.timers.clearTimeout(handle);
    connection.timers = [];
    connection.lastMessageAt = this.timers.now();
    this.attempt = 0;
    for (const roomId of this.rooms.keys()) {
      this.send({ action: "subscribe", room_id: roomId }, connection);
    }
    const previous = this.current;
    this.current = connection;
    // The old connection (a replacement before the 2-hour limit) goes only now: the new one
    // is subscribed, so nothing falls between; events both carry are handed on once.
    if (previous && previous !== connection) this.retire(previous);
    connection.timers.push(
      this.timers.setTimeout(() => this.replace(connection), this.maxConnectionMs),
    );
    this.schedulePing(connection);
    this.setStatus("open");
  }

  private schedulePing(connection: Connection): void {
    connection.timers.push(
      this.timers.setTimeout(() => {
        if (connection.retired || !connection.open) return;
        if (this.timers.now() - connection.lastMessageAt > this.staleAfterMs) {
          // Silent too long (a phone asleep, a dead network): drop it and reconnect.
          this.retire(connection);
          this.dropped(connection);
          return;
        }
        this.send({ action: "ping" }, connection);
        this.schedulePing(connection);
      }, this.pingIntervalMs),
    );
  }

  /** Before API Gateway's 2-hour limit: open a new connection; it replaces this one. */
  private replace(connection: Connection): void {
    if (connection !== this.current || this.stopped) return;
    void this.connect();
  }

  private retire(connection: Connection): void {
    connection.retired = true;
    for (const handle of connection.timers) this.timers.clearTimeout(handle);
    connection.timers = [];
    try {
      connection.ws.close(1000, "done");
    } catch {
      // already closed
    }
  }

  private closed(connection: Connection): void {
    for (const handle of connection.timers) this.timers.clearTimeout(handle);
    connection.timers = [];
    if (!connection.open) this.connecting = false;
    if (connection.retired) return;
    connection.retired = true;
    this.dropped(connection);
  }

  private dropped(connection: Connection): void {
    if (this.current === connection) this.current = null;
    if (this.stopped) return;
    if (this.current === null) this.setStatus("reconnecting");
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer !== null) return;
    const ceiling = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    const delay = Math.floor(this.random() * ceiling);
    this.attempt += 1;
    this.reconnectTimer = this.timers.setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect();
    }, delay);
  }

  /** The delay ceiling of the next reconnect (for a "reconnecting in …" display and tests). */
  get nextBackoffCeilingMs(): number {
    return Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
  }

  // -- messages --------------------------------------------------------------------------

  private receive(data: unknown): void {
    let message: ServerMessage;
    try {
      message = JSON.parse(String(data)) as ServerMessage;
    } catch (error) {
      this.emit("error", { type: "client_error", error });
      return;
    }
    switch (message.type) {
      case "room":
        this.onRoomPush(message);
        break;
      case "room_changed":
        if (this.rooms.has(message.room_id)) void this.resync(message.room_id);
        break;
      case "chat":
        this.emit("chat", message);
        break;
      case "error":
        this.emit("error", message);
        break;
      case "pong":
        break;
    }
  }

  private onRoomPush(push: RoomPush): void {
    const roomId = push.room.id;
    const state = this.rooms.get(roomId);
    if (!state) return; // unsubscribed meanwhile
    const version = push.room.version;
    const snapshot = push.events.length === 0 && !push.events_dropped;
    if (state.version !== null && version <= state.version) {
      // Older than what we hold, or the same state again (e.g. a subscribe answer that beat
      // the push of its own version): only events never handed on are news.
      if (version === state.version) {
        const fresh = this.fresh(state, push);
        if (fresh.length > 0) this.emitRoom(state, push.room, fresh, "push", false);
      }
      return;
    }
    if (snapshot || state.version === null || version === state.version + 1) {
      this.apply(state, push, snapshot ? "snapshot" : "push");
      this.drain(state);
      return;
    }
    // A version was skipped: keep this push aside briefly for the missing one.
    state.held.set(version, push);
    if (state.gapTimer === null) {
      state.gapTimer = this.timers.setTimeout(() => this.gapExpired(roomId), this.gapHoldMs);
    }
  }

  private apply(state: RoomState, push: RoomPush, reason: UpdateReason): void {
    state.version = push.room.version;
    for (const v of state.held.keys()) if (v <= state.version) state.held.delete(v);
    const dropped = push.events_dropped === true;
    this.emitRoom(state, push.room, this.fresh(state, push), reason, dropped);
    if (dropped) void this.resync(push.room.id);
  }

  private drain(state: RoomState): void {
    while (state.version !== null && state.held.has(state.version + 1)) {
      const next = state.held.get(state.version + 1)!;
      this.apply(state, next, "push");
    }
    if (state.held.size === 0) this.clearGap(state);
  }

  private gapExpired(roomId: string): void {
    const state = this.rooms.get(roomId);
    if (!state) return;
    state.gapTimer = null;
    if (state.held.size === 0) return;
    const versions = [...state.held.keys()].sort((a, b) => a - b);
    for (const v of versions) {
      const push = state.held.get(v);
      if (push && (state.version === null || v > state.version)) this.apply(state, push, "gap");
    }
    state.held.clear();
    void this.resync(roomId);
  }

  /** Fetch the room with `GET /rooms/{id}` and hand it on if it is not older than ours. */
  async resync(roomId: string): Promise<void> {
    const state = this.rooms.get(roomId);
    if (!state || state.resyncing) return;
    state.resyncing = true;
    try {
      const view = await this.options.getRoom(roomId);
      if (this.rooms.get(roomId) !== state) return;
      if (state.version === null || view.version >= state.version) {
        state.version = view.version;
        for (const v of state.held.keys()) if (v <= view.version) state.held.delete(v);
        if (state.held.size === 0) this.clearGap(state);
        this.emitRoom(state, view, [], "resync", false);
      }
    } catch (error) {
      this.emit("error", { type: "client_error", error });
    } finally {
      state.resyncing = false;
    }
  }

  private fresh(state: RoomState, push: RoomPush): RoomEvent[] {
    const version = push.room.version;
    const out: RoomEvent[] = [];
    push.events.forEach((event, index) => {
      const key = eventKey(event, version, index);
      if (state.seen.has(key)) return;
      state.seen.set(key, version);
      out.push(event);
    });
    if (state.seen.size > 2000) {
      const floor = version - 200;
      for (const [key, v] of state.seen) if (v < floor) state.seen.delete(key);
    }
    return out;
  }

  private clearGap(state: RoomState): void {
    if (state.gapTimer !== null) this.timers.clearTimeout(state.gapTimer);
    state.gapTimer = null;
  }

  private emitRoom(
    _state: RoomState,
    room: RoomView,
    events: RoomEvent[],
    reason: UpdateReason,
    eventsDropped: boolean,
  ): void {
    this.emit("room", { roomId: room.id, room, events, reason, eventsDropped });
  }

  private setStatus(status: ConnectionStatus): void {
    this.emit("status", status);
  }

  private emit<K extends keyof Listeners>(type: K, value: Parameters<Listeners[K]>[0]): void {
    for (const listener of this.listeners[type]) {
      try {
        const result = (listener as (v: typeof value) => unknown)(value);
        // An async listener's failure (e.g. a move refused) is reported, never left unhandled.
        if (result instanceof Promise) result.catch((error: unknown) => this.failed(type, error));
      } catch (error) {
        this.failed(type, error);
      }
    }
  }

  private failed(type: keyof Listeners, error: unknown): void {
    if (type !== "error" && this.listeners.error.size > 0) {
      this.emit("error", { type: "client_error", error });
    } else {
      console.error("RealtimeClient: a listener failed", error);
    }
  }
}
