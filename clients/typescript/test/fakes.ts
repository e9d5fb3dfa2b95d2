// Test doubles: a WebSocket the test drives by hand and timers the test advances.
import type { Timers } from "../src/timers.js";
import type { WebSocketLike } from "../src/realtime.js";
import type { RoomPush, RoomView } from "../src/types.js";

export class FakeTimers implements Timers {
  private time = 1_000_000;
  private seq = 0;
  private queue = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.queue.set(id, { at: this.time + Math.max(0, ms), fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.queue.delete(handle as number);
  }
  /** Pending delays from now, soonest first. */
  pending(): number[] {
    return [...this.queue.values()].map((t) => t.at - this.time).sort((a, b) => a - b);
  }
  /** Move time on, running every timer that comes due (in order), and settle promises. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | null = null;
      for (const entry of this.queue) {
        if (entry[1].at <= end && (next === null || entry[1].at < next[1].at)) next = entry;
      }
      if (next === null) break;
      this.queue.delete(next[0]);
      this.time = next[1].at;
      next[1].fn();
      await settle();
    }
    this.time = end;
    await settle();
  }
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export class FakeSocket implements WebSocketLike {
  readyState = 0;
  sent: unknown[] = [];
  closedByClient = false;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;

  constructor(readonly url: string) {}

  send(data: string): void {
    if (this.readyState !== 1) throw new Error("send on a socket that is not open");
    this.sent.push(JSON.parse(data));
  }
  close(): void {
    if (this.readyState === 3) return;
    this.closedByClient = true;
    this.readyState = 3;
    this.onclose?.({ code: 1000 });
  }
  // -- the server's side --
  accept(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  refuse(): void {
    this.readyState = 3;
    this.onerror?.({});
    this.onclose?.({ code: 1006 });
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({ code: 1006 });
  }
  push(message: unknown): void {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  actions(): string[] {
    return this.sent.map((m) => (m as { action: string }).action);
  }
}

/** A minimal room view of a version (only what the client reads: id and version). */
export function view(version: number, roomId = "r1"): RoomView {
  return { id: roomId, version } as unknown as RoomView;
}

export function push(version: number, events: number | object[], extra: object = {}): RoomPush {
  const list =
    typeof events === "number"
      ? Array.from({ length: events }, (_, i) => ({
          type: "agreed",
          id: `${version}.${i}`,
          at: "2026-01-01T00:00:00.000Z",
          player_id: "p1",
          by: "player",
          round: 1,
        }))
      : events;
  return { type: "room", room: view(version), events: list, ...extra } as unknown as RoomPush;
}
