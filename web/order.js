// Room pushes in version order: a push that skips a version waits briefly for the one before.
//
// Every change of a room adds one to its `version` and is pushed with its events, so a push
// more than one version ahead of the table means one is late or lost. Over API Gateway two
// pushes sent by different Lambda invocations can arrive in either order (docs/REALTIME.md
// "Order and gaps"). Such a push is kept aside for GAP_HOLD_MS (as the local server does):
// when the missing one arrives, it is played first and then the held ones, so every move is
// announced in order. If the gap does not fill in time, the held pushes are played anyway (the
// table shows the newest view) and a push that comes after that is older than the table: its
// moves are not announced (the table has moved on).
//
// A view without events (a subscribe or tick answer, a GET, an action's answer) is the room as
// it is: it is applied at once and is the new baseline; held pushes it has overtaken go.

export const GAP_HOLD_MS = 500;

export class PushOrder {
  /**
   * `apply(room, events, gap)` puts a view on the table (`gap`: changes before it were missed);
   * `table()` is the view the table holds (or null).
   */
  constructor({ apply, table }) {
    this.apply = apply;
    this.table = table;
    this.held = new Map(); // version -> {room, events}
    this.timer = null;
  }

  version(roomId) {
    const room = this.table();
    return room && room.id === roomId && typeof room.version === 'number' ? room.version : null;
  }

  /** A `room` message from the socket. */
  receive(room, events) {
    if (!room || typeof room.version !== 'number') return;
    const have = this.version(room.id);
    const fresh = Array.isArray(events) && events.length > 0;
    if (have !== null && fresh && room.version > have + 1) {
      this.held.set(room.version, { room, events });
      if (!this.timer) this.timer = setTimeout(() => this.giveUp(), GAP_HOLD_MS);
      return;
    }
    this.apply(room, events, false);
    this.settle();
  }

  /** The table changed (a push played, or a baseline view): play the held pushes that now follow. */
  settle() {
    while (this.held.size) {
      const next = Math.min(...this.held.keys());
      const { room, events } = this.held.get(next);
      const have = this.version(room.id);
      if (have !== null && next > have + 1) return;
      this.held.delete(next);
      // One the table has passed (a baseline overtook it) is dropped; one it holds plays its events.
      if (have === null || next >= have) this.apply(room, events, false);
    }
    this.clear();
  }

  /** The missing push did not come in time: play what waits, in order, and go on from it. */
  giveUp() {
    this.timer = null;
    const versions = [...this.held.keys()].sort((a, b) => a - b);
    for (const v of versions) {
      const { room, events } = this.held.get(v);
      this.held.delete(v);
      const have = this.version(room.id);
      if (have !== null && v < have) continue;
      this.apply(room, events, have !== null && v > have + 1);
    }
  }

  /** Forget what waits (another room, another viewer). */
  clear() {
    clearTimeout(this.timer);
    this.timer = null;
    this.held.clear();
  }
}
