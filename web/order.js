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
// A view without events from a subscribe or tick answer or a GET is the room as it is: it is
// applied at once and is the new baseline; held pushes it has overtaken go (their moves are
// older than the table). An action's answer is applied at once too, but the pushes up to it are
// still awaited: they carry the events (the mover's own move among them) the answer has not.

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
    this.last = null; // {roomId, version}: the last push played, or the last baseline
  }

  /** The version the next push follows on (null: none known yet). */
  edge(roomId) {
    if (this.last && this.last.roomId === roomId) return this.last.version;
    const room = this.table();
    return room && room.id === roomId && typeof room.version === 'number' ? room.version : null;
  }

  play(room, events, gap) {
    this.last = { roomId: room.id, version: Math.max(room.version, this.edge(room.id) ?? room.version) };
    this.apply(room, events, gap);
  }

  /** A `room` message from the socket. */
  receive(room, events) {
    if (!room || typeof room.version !== 'number') return;
    if (!Array.isArray(events) || !events.length) {
      this.apply(room, events, false);
      this.baseline(room);
      return;
    }
    const edge = this.edge(room.id);
    if (edge !== null && room.version > edge + 1) {
      this.held.set(room.version, { room, events });
      if (!this.timer) this.timer = setTimeout(() => this.giveUp(), GAP_HOLD_MS);
      return;
    }
    this.play(room, events, false);
    this.settle();
  }

  /** A view that is the room as it is (a GET, a subscribe or tick answer), already applied. */
  baseline(room) {
    if (!room || typeof room.version !== 'number') return;
    const last = this.last;
    if (!last || last.roomId !== room.id || room.version > last.version) this.last = { roomId: room.id, version: room.version };
    this.settle();
  }

  /** Play the held pushes that now follow on, in order. */
  settle() {
    while (this.held.size) {
      const next = Math.min(...this.held.keys());
      const { room, events } = this.held.get(next);
      const edge = this.edge(room.id);
      if (edge !== null && next > edge + 1) return;
      this.held.delete(next);
      // One a baseline has passed is dropped; one at the baseline still plays its events.
      if (edge === null || next >= edge) this.play(room, events, false);
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
      const edge = this.edge(room.id);
      if (edge !== null && v < edge) continue;
      this.play(room, events, edge !== null && v > edge + 1);
    }
  }

  /** Forget what waits and where the pushes stand (another room, another viewer). */
  clear() {
    clearTimeout(this.timer);
    this.timer = null;
    this.held.clear();
  }

  reset() {
    this.clear();
    this.last = null;
  }
}
