// Server time and playing a push's events at their `at` stamps.
import { systemTimers, type Timers } from "./timers.js";
import type { RoomEvent } from "./types.js";

/**
 * The server's clock as seen from this device. Every room view carries `server_time` (epoch
 * ms); feed each one to {@link ServerClock.note}. A view that was late on the way carries an
 * old `server_time`, so each sample is (server − device) less its time on the way, never more:
 * the clock keeps the largest sample of the last `windowMs` (docs/REALTIME.md).
 */
export class ServerClock {
  private samples: { at: number; offset: number }[] = [];

  constructor(
    private readonly timers: Timers = systemTimers,
    private readonly windowMs = 30_000,
  ) {}

  note(serverTime: number): void {
    const at = this.timers.now();
    this.samples.push({ at, offset: serverTime - at });
    this.samples = this.samples.filter((s) => at - s.at <= this.windowMs);
  }

  /** server − device in ms (0 before the first sample). */
  get offset(): number {
    if (this.samples.length === 0) return 0;
    return Math.max(...this.samples.map((s) => s.offset));
  }

  /** The server's time now, in epoch ms. */
  now(): number {
    return this.timers.now() + this.offset;
  }

  /** Milliseconds until an ISO time of the server (a deadline, an event's `at`); ≤ 0 when past. */
  until(iso: string): number {
    return Date.parse(iso) - this.now();
  }
}

export interface Playback {
  /** Resolves once every event was played (or the playback was cancelled). */
  readonly done: Promise<void>;
  /** Stop: events not yet played are not played. */
  cancel(): void;
}

/**
 * Play a push's events one after another at their `at` (server time): each is handed to
 * `onEvent` when its moment comes, in order; events already past are played at once. Until
 * the last one, the view of the push is the table *after* them: show the table as of the
 * event played last (docs/REALTIME.md, "Table time").
 */
export function playEvents(
  events: readonly RoomEvent[],
  onEvent: (event: RoomEvent, index: number) => void,
  options: { clock?: ServerClock; timers?: Timers } = {},
): Playback {
  const timers = options.timers ?? systemTimers;
  const clock = options.clock ?? new ServerClock(timers);
  let cancelled = false;
  let handle: unknown = null;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const step = (index: number) => {
    while (!cancelled && index < events.length) {
      const event = events[index]!;
      const wait = clock.until(event.at);
      if (wait > 0) {
        handle = timers.setTimeout(() => step(index), wait);
        return;
      }
      onEvent(event, index);
      index += 1;
    }
    finish();
  };
  step(0);
  return {
    done,
    cancel() {
      cancelled = true;
      if (handle !== null) timers.clearTimeout(handle);
      finish();
    },
  };
}
