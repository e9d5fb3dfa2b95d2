// Unit tests of the realtime client with a fake WebSocket and fake timers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RealtimeClient, type RoomUpdate } from "../src/realtime.js";
import { ServerClock, playEvents } from "../src/clock.js";
import type { RoomEvent, RoomView } from "../src/types.js";
import { FakeSocket, FakeTimers, push, settle, view } from "./fakes.js";

function setup(
  overrides: { random?: () => number; getRoom?: (id: string) => Promise<RoomView>; maxConnectionMs?: number } = {},
) {
  const timers = new FakeTimers();
  const sockets: FakeSocket[] = [];
  let tickets = 0;
  const gets: string[] = [];
  const updates: RoomUpdate[] = [];
  const client = new RealtimeClient({
    url: "ws://test/ws",
    getTicket: async () => `t${++tickets}`,
    getRoom:
      overrides.getRoom ??
      (async (id) => {
        gets.push(id);
        return view(100, id);
      }),
    webSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    timers,
    random: overrides.random ?? (() => 0.5),
    backoff: { initialMs: 1000, maxMs: 8000 },
    maxConnectionMs: overrides.maxConnectionMs ?? 60_000,
    pingIntervalMs: 25_000,
    staleAfterMs: 70_000,
    gapHoldMs: 500,
  });
  client.on("room", (u) => updates.push(u));
  return { timers, sockets, client, gets, updates, tickets: () => tickets };
}

async function connected(s: ReturnType<typeof setup>, roomId = "r1") {
  s.client.subscribe(roomId);
  s.client.start();
  await settle();
  s.sockets.at(-1)!.accept();
}

const ids = (u: RoomUpdate) => u.events.map((e) => (e as { id: string }).id);

test("connects with a fresh ticket and subscribes to every watched room", async () => {
  const s = setup();
  s.client.subscribe("r1");
  s.client.subscribe("r2");
  s.client.start();
  await settle();
  assert.equal(s.sockets.length, 1);
  assert.equal(s.sockets[0]!.url, "ws://test/ws?ticket=t1");
  s.sockets[0]!.accept();
  assert.deepEqual(s.sockets[0]!.sent, [
    { action: "subscribe", room_id: "r1" },
    { action: "subscribe", room_id: "r2" },
  ]);
  assert.equal(s.client.isOpen, true);
});

test("after a drop it reconnects with jittered exponential backoff, a new ticket each time", async () => {
  const draws = [0.5, 0.25, 0.9, 0.99, 0.99, 0.1];
  const s = setup({ random: () => draws.shift() ?? 0.5 });
  await connected(s);
  s.sockets[0]!.drop();
  // ceiling 1000 ms × 0.5
  assert.deepEqual(s.timers.pending().slice(0, 1), [500]);
  await s.timers.advance(499);
  assert.equal(s.sockets.length, 1);
  await s.timers.advance(1);
  assert.equal(s.sockets.length, 2);
  assert.equal(s.sockets[1]!.url, "ws://test/ws?ticket=t2");
  // refused handshakes: the ceiling doubles (2000, 4000, 8000) and stops at maxMs
  s.sockets[1]!.refuse();
  assert.equal(s.timers.pending()[0], 500); // 0.25 × 2000
  await s.timers.advance(500);
  s.sockets[2]!.refuse();
  assert.equal(s.timers.pending()[0], 3600); // 0.9 × 4000
  await s.timers.advance(3600);
  s.sockets[3]!.refuse();
  assert.equal(s.timers.pending()[0], 7920); // 0.99 × 8000
  await s.timers.advance(7920);
  s.sockets[4]!.refuse();
  assert.equal(s.timers.pending()[0], 7920); // capped at maxMs
  await s.timers.advance(7920);
  const last = s.sockets[5]!;
  last.accept();
  assert.deepEqual(last.actions(), ["subscribe"]);
  assert.equal(s.tickets(), 6);
  // a success resets the backoff
  last.drop();
  assert.equal(s.timers.pending()[0], 100); // 0.1 × 1000
});

test("before the connection limit a new connection replaces the old one, subscribed first", async () => {
  const s = setup();
  await connected(s);
  const old = s.sockets[0]!;
  await s.timers.advance(60_000);
  assert.equal(s.sockets.length, 2, "a second connection opens at maxConnectionMs");
  assert.equal(old.closedByClient, false, "the old one stays until the new one is open");
  s.sockets[1]!.accept();
  assert.deepEqual(s.sockets[1]!.actions(), ["subscribe"]);
  assert.equal(old.closedByClient, true);
  // the old one's close is not a drop: no reconnect is scheduled beyond the new one's timers
  await s.timers.advance(24_000);
  assert.equal(s.sockets.length, 2);
});

test("pings while open, and takes a silent connection as dropped", async () => {
  const s = setup({ maxConnectionMs: 10 * 3600_000 });
  await connected(s);
  const socket = s.sockets[0]!;
  await s.timers.advance(25_000);
  assert.deepEqual(socket.actions(), ["subscribe", "ping"]);
  socket.push({ type: "pong" });
  await s.timers.advance(25_000);
  assert.deepEqual(socket.actions(), ["subscribe", "ping", "ping"]);
  // no pong for > 70 s
  await s.timers.advance(50_000);
  assert.equal(socket.closedByClient, true);
  await s.timers.advance(1000);
  assert.equal(s.sockets.length, 2);
});

test("events are handed on once by id, whichever connection carries them", async () => {
  const s = setup();
  await connected(s);
  const a = s.sockets[0]!;
  a.push(push(5, 0)); // the subscribe answer
  a.push(push(6, 2));
  a.push(push(6, 2)); // the same push again
  // replacement: the new connection delivers the same push once more, plus a new one
  await s.timers.advance(60_000);
  const b = s.sockets[1]!;
  b.accept();
  b.push(push(6, 2));
  b.push(push(7, 1));
  assert.deepEqual(
    s.updates.map((u) => [u.room.version, u.reason, ids(u)]),
    [
      [5, "snapshot", []],
      [6, "push", ["6.0", "6.1"]],
      [7, "push", ["7.0"]],
    ],
  );
});

test("without ids, version and index identify events", async () => {
  const s = setup();
  await connected(s);
  const bare = [{ type: "game_started", at: "2026-01-01T00:00:00.000Z" }];
  s.sockets[0]!.push(push(1, bare));
  s.sockets[0]!.push(push(1, bare));
  s.sockets[0]!.push(push(2, bare));
  assert.deepEqual(
    s.updates.map((u) => [u.room.version, u.events.length]),
    [
      [1, 1],
      [2, 1],
    ],
  );
});

test("a version gap waits for the missing push and plays both in order", async () => {
  const s = setup();
  await connected(s);
  const socket = s.sockets[0]!;
  socket.push(push(5, 0));
  socket.push(push(7, 1));
  assert.equal(s.updates.length, 1, "version 7 is held");
  await s.timers.advance(200);
  socket.push(push(6, 1));
  assert.deepEqual(
    s.updates.map((u) => [u.room.version, ids(u)]),
    [
      [5, []],
      [6, ["6.0"]],
      [7, ["7.0"]],
    ],
  );
  await s.timers.advance(1000);
  assert.deepEqual(s.gets, [], "no resync when the gap was filled");
});

test("a gap not filled in time: held pushes are applied, then the room is resynced by GET", async () => {
  const s = setup();
  await connected(s);
  const socket = s.sockets[0]!;
  socket.push(push(5, 0));
  socket.push(push(8, 1));
  socket.push(push(7, 1));
  await s.timers.advance(499);
  assert.deepEqual(s.gets, []);
  await s.timers.advance(1);
  assert.deepEqual(s.gets, ["r1"]);
  assert.deepEqual(
    s.updates.map((u) => [u.room.version, u.reason, ids(u)]),
    [
      [5, "snapshot", []],
      [7, "gap", ["7.0"]],
      [8, "gap", ["8.0"]],
      [100, "resync", []],
    ],
  );
  // the missing push arriving late is older than the table: dropped
  socket.push(push(6, 1));
  assert.equal(s.updates.length, 4);
});

test("events_dropped and room_changed resync the room", async () => {
  const s = setup();
  await connected(s);
  const socket = s.sockets[0]!;
  socket.push(push(5, 0));
  socket.push(push(6, 2, { events_dropped: true }));
  await settle();
  assert.deepEqual(s.gets, ["r1"]);
  assert.equal(s.updates[1]!.eventsDropped, true);
  assert.deepEqual(
    s.updates.map((u) => [u.room.version, u.reason]),
    [
      [5, "snapshot"],
      [6, "push"],
      [100, "resync"],
    ],
  );
  socket.push({ type: "room_changed", room_id: "r1", version: 101 });
  await settle();
  assert.deepEqual(s.gets, ["r1", "r1"]);
});

test("close stops for good: no reconnect", async () => {
  const s = setup();
  await connected(s);
  s.client.close();
  await s.timers.advance(120_000);
  assert.equal(s.sockets.length, 1);
  assert.equal(s.sockets[0]!.closedByClient, true);
});

test("playEvents plays each event at its `at` by the server's clock", async () => {
  const timers = new FakeTimers();
  const clock = new ServerClock(timers);
  // the server is 5 s ahead of this device; a late sample (smaller) does not lower it
  clock.note(timers.now() + 5000);
  clock.note(timers.now() + 4000);
  assert.equal(clock.offset, 5000);
  const serverNow = timers.now() + 5000;
  const at = (ms: number) => new Date(serverNow + ms).toISOString();
  const events = [
    { type: "bid_placed", at: at(-100) },
    { type: "bid_placed", at: at(1500) },
    { type: "liar_called", at: at(3000) },
  ] as unknown as RoomEvent[];
  const played: [string, number][] = [];
  const playback = playEvents(events, (e) => played.push([e.type, timers.now()]), {
    clock,
    timers,
  });
  const start = timers.now();
  assert.deepEqual(played, [["bid_placed", start]]);
  await timers.advance(1499);
  assert.equal(played.length, 1);
  await timers.advance(1);
  assert.deepEqual(played[1], ["bid_placed", start + 1500]);
  await timers.advance(1500);
  assert.deepEqual(played[2], ["liar_called", start + 3000]);
  await playback.done;
});

test("a cancelled playback plays nothing more", async () => {
  const timers = new FakeTimers();
  const clock = new ServerClock(timers);
  const at = new Date(timers.now() + 1000).toISOString();
  const played: string[] = [];
  const playback = playEvents([{ type: "game_started", at }] as unknown as RoomEvent[], (e) => played.push(e.type), {
    clock,
    timers,
  });
  playback.cancel();
  await timers.advance(5000);
  await playback.done;
  assert.deepEqual(played, []);
});

test("a failing async listener is reported to the error listeners, not left unhandled", async () => {
  const s = setup();
  const errors: unknown[] = [];
  s.client.on("error", (e) => errors.push(e));
  s.client.on("room", async () => {
    throw new Error("move refused");
  });
  await connected(s);
  s.sockets[0]!.push(push(5, 0));
  await settle();
  assert.equal(errors.length, 1);
  assert.match(String((errors[0] as { error: Error }).error), /move refused/);
});

test("a handshake that hangs is given up and retried with the backoff", async () => {
  const s = setup();
  s.client.subscribe("r1");
  s.client.start();
  await settle();
  assert.equal(s.sockets.length, 1);
  await s.timers.advance(15_000); // never accepted nor refused
  assert.equal(s.sockets[0]!.closedByClient, true);
  await s.timers.advance(500); // 0.5 × 1000
  assert.equal(s.sockets.length, 2);
  s.sockets[1]!.accept();
  assert.equal(s.client.isOpen, true);
  assert.deepEqual(s.sockets[1]!.actions(), ["subscribe"]);
});

test("a refused replacement keeps the old connection and tries again", async () => {
  const s = setup();
  await connected(s);
  const old = s.sockets[0]!;
  await s.timers.advance(60_000);
  s.sockets[1]!.refuse();
  assert.equal(old.closedByClient, false);
  assert.equal(s.client.isOpen, true, "still served by the old connection");
  await s.timers.advance(500);
  assert.equal(s.sockets.length, 3);
  s.sockets[2]!.accept();
  assert.equal(old.closedByClient, true);
  assert.deepEqual(s.sockets[2]!.actions(), ["subscribe"]);
});
