// Whole games of each rule system against the local server, through the SDK only: a guest
// plays against two bots, gets every change pushed over the realtime client, and every REST
// answer and WebSocket message is validated against docs/openapi.json and docs/asyncapi.json.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ApiError, createRestClient, ok, type RestClient } from "../src/rest.js";
import { RealtimeClient, type RoomUpdate, type WebSocketLike } from "../src/realtime.js";
import { ServerClock, playEvents } from "../src/clock.js";
import type { Action, RoomEvent, RoomView, Settings } from "../src/types.js";
import { checkRest, checkWs, validated } from "./contract.js";
import { startServer, type LocalServer } from "./server.js";

let server: LocalServer;

before(async () => {
  // Bots think 30–80 ms instead of 1–2.5 s, so a game takes seconds.
  server = await startServer({ BOT_THINK_MIN_MS: "30", BOT_THINK_MAX_MS: "80" });
});

after(async () => {
  await server?.stop();
});

/** A WebSocket that checks every message both ways against asyncapi.json. */
class CheckedSocket implements WebSocketLike {
  private readonly inner: WebSocket;
  constructor(url: string, private readonly failures: unknown[]) {
    this.inner = new WebSocket(url);
  }
  /** The network drops the connection (the client did not ask for it). */
  drop() {
    this.inner.close();
  }
  get readyState() {
    return this.inner.readyState;
  }
  send(data: string) {
    checkWs(JSON.parse(data));
    this.inner.send(data);
  }
  close(code?: number, reason?: string) {
    this.inner.close(code, reason);
  }
  set onopen(fn: ((e: unknown) => void) | null) {
    this.inner.onopen = fn;
  }
  get onopen() {
    return this.inner.onopen as ((e: unknown) => void) | null;
  }
  set onclose(fn: ((e: unknown) => void) | null) {
    this.inner.onclose = fn;
  }
  get onclose() {
    return this.inner.onclose as ((e: unknown) => void) | null;
  }
  set onerror(fn: ((e: unknown) => void) | null) {
    this.inner.onerror = fn;
  }
  get onerror() {
    return this.inner.onerror as ((e: unknown) => void) | null;
  }
  set onmessage(fn: ((e: { data: unknown }) => void) | null) {
    this.inner.onmessage = fn
      ? (event: MessageEvent) => {
          try {
            checkWs(JSON.parse(String(event.data)));
          } catch (error) {
            this.failures.push(error);
          }
          fn(event);
        }
      : null;
  }
  get onmessage() {
    return this.inner.onmessage as ((e: { data: unknown }) => void) | null;
  }
}

/** Reads fields the server sends (added after the first contract): compiles only if typed. */
function readEveryField(room: RoomView): unknown[] {
  const game = room.game;
  return [
    room.rated,
    room.recreated_from,
    room.server_time,
    room.me.continue_mode,
    room.me.invited,
    game?.deadline,
    game?.opener_id,
    game?.break?.opener_id,
    game?.last_reveal?.final,
    room.results?.elo,
    room.results?.dice_progress.map((row) => row.final),
  ];
}

function client(failures: unknown[]): RestClient {
  const rest = createRestClient({ baseUrl: server.baseUrl });
  rest.api.use({
    async onResponse({ request, response, schemaPath }) {
      try {
        checkRest(request.method, schemaPath, response.status, await response.clone().json());
      } catch (error) {
        failures.push(error);
      }
      return undefined;
    },
  });
  return rest;
}

/** The moves to try, best first, when it is my turn (the rules are in docs/RULES.md). */
function candidates(room: RoomView): Action[] {
  const game = room.game!;
  const turn = game.turn!.number;
  if (room.settings.rules === "poker") {
    const stage = game.table?.stage;
    if (stage === "respond") return [{ type: "liar", turn }];
    if (stage === "aces") return [{ type: "stop", turn }];
    return [
      { type: "claim", hand: "better", turn },
      { type: "claim", hand: { category: "pair", faces: ["A"] }, turn },
    ];
  }
  if (game.current_bid) return [{ type: "liar", turn }];
  const opening: Action = { type: "bid", quantity: 1, face: 2, turn };
  return [opening, { type: "bid", quantity: 1, face: 3, turn }];
}

interface GameLog {
  updates: RoomUpdate[];
  events: RoomEvent[];
  actions: string[];
  played: number;
  sockets: number;
  statuses: string[];
}

async function playWholeGame(rules: "classic" | "wild-stars" | "poker" | "perudo"): Promise<{ room: RoomView; log: GameLog }> {
  const failures: unknown[] = [];
  const rest = client(failures);
  const { user } = await rest.signInAsGuest(`SDK ${rules}`);
  assert.equal(user.guest, true);
  if (rules === "classic" || rules === "poker") {
    // Manual continue: the guest agrees in each break itself (the `agree` action).
    await ok(rest.api.PATCH("/me/preferences", { body: { continue_mode: "manual" } }));
  }
  const settings: Settings =
    rules === "poker"
      ? { rules, lives: 2, turn_seconds: 60, break_seconds: 30 }
      : { rules, starting_dice: 2, turn_seconds: 60, break_seconds: 30 };
  let room = await ok(rest.api.POST("/rooms", { body: { settings } }));
  for (let i = 0; i < 2; i++) {
    room = await ok(
      rest.api.POST("/rooms/{room_id}/bots", {
        params: { path: { room_id: room.id } },
        body: { level: "easy" },
      }),
    );
  }
  const roomId = room.id;
  const clock = new ServerClock();
  const log: GameLog = { updates: [], events: [], actions: [], played: 0, sockets: 0, statuses: [] };
  const sockets: CheckedSocket[] = [];
  let latest = room;
  let wake: () => void = () => {};
  const realtime = new RealtimeClient({
    url: server.wsUrl,
    getTicket: () => rest.ticket(),
    getRoom: (id) => rest.getRoom(id),
    webSocket: (url) => {
      const socket = new CheckedSocket(url, failures);
      sockets.push(socket);
      log.sockets += 1;
      return socket;
    },
    backoff: { initialMs: 200, maxMs: 2000 },
  });
  realtime.on("status", (status) => log.statuses.push(status));
  realtime.on("error", (e) => failures.push(e));
  realtime.on("room", (update) => {
    log.updates.push(update);
    log.events.push(...update.events);
    clock.note(update.room.server_time);
    if (update.room.version >= latest.version) latest = update.room;
    // Play the events at their stamps, as a screen would.
    void playEvents(update.events, () => (log.played += 1), { clock }).done;
    wake();
  });
  const changed = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  realtime.subscribe(roomId);
  realtime.start();
  try {
    while (log.updates.length === 0) await changed(5000);
    latest = await ok(rest.api.POST("/rooms/{room_id}/start", { params: { path: { room_id: roomId } } }));
    const deadline = Date.now() + 120_000;
    let dropped = false;
    while (latest.status !== "finished") {
      assert.ok(Date.now() < deadline, `the ${rules} game did not finish in 120 s`);
      assert.deepEqual(failures, []);
      const view = latest;
      const game = view.game;
      const me = view.me.player_id;
      let acted = false;
      if (game && game.phase === "break" && game.break && me && !game.break.agreed.includes(me)) {
        const mine = view.players.find((p) => p.id === me);
        if (mine && !mine.eliminated) {
          acted = await act(rest, roomId, [{ type: "agree" }], log);
        }
      } else if (game?.turn && game.turn.player_id === me && game.phase === "bidding") {
        acted = await act(rest, roomId, candidates(view), log);
        if (acted && !dropped) {
          // The connection drops mid-game: the client reconnects with a new ticket,
          // subscribes again and the game goes on over the new connection.
          dropped = true;
          const opens = log.statuses.filter((x) => x === "open").length;
          sockets.at(-1)!.drop();
          const until = Date.now() + 10_000;
          while (log.statuses.filter((x) => x === "open").length === opens) {
            assert.ok(Date.now() < until, "reconnected within 10 s of the drop");
            await new Promise((r) => setTimeout(r, 50));
          }
        }
      } else if (game?.deadline && clock.until(game.deadline) <= 0) {
        realtime.tick(roomId); // the countdown ended (a final reveal, a break)
      }
      if (!acted) await changed(1000);
    }
    // The pushes caught up with the finished room.
    const until = Date.now() + 10_000;
    while (realtime.versionOf(roomId)! < latest.version && Date.now() < until) await changed(500);
    const history = await ok(rest.api.GET("/rooms/{room_id}/history", { params: { path: { room_id: roomId } } }));
    assert.ok(history.rounds.length >= 1);
    await ok(rest.api.GET("/me"));
    await ok(rest.api.GET("/rooms", { params: { query: { status: "finished" } } }));
    assert.deepEqual(failures, [], "every REST answer and WebSocket message matches the documents");
    readEveryField(latest);
    return { room: latest, log };
  } finally {
    realtime.close();
  }
}

/** Try the moves in order: a refusal by the rules (400) tries the next; a stale view waits. */
async function act(rest: RestClient, roomId: string, moves: Action[], log: GameLog): Promise<boolean> {
  for (const move of moves) {
    try {
      await ok(rest.api.POST("/rooms/{room_id}/actions", { params: { path: { room_id: roomId } }, body: move }));
      log.actions.push(move.type);
      return true;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 400) continue;
      if (error.status === 409 || error.status === 403) return false; // the table moved on
      throw error;
    }
  }
  throw new Error(`no move accepted of ${JSON.stringify(moves)}`);
}

function checkGame(room: RoomView, log: GameLog) {
  assert.equal(room.status, "finished");
  assert.ok(room.results, "a finished room has results");
  assert.equal(room.results.ranking.length, 3);
  const types = new Set(log.events.map((e) => e.type));
  for (const t of ["game_started", "round_started", "liar_called", "challenge_resolved", "game_finished"]) {
    assert.ok(types.has(t as RoomEvent["type"]), `a ${t} event was pushed (got ${[...types].join(", ")})`);
  }
  const ids = log.events.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length, "each event handed on once");
  // Updates come in version order, and events carry the version of their push.
  let last = 0;
  for (const update of log.updates) {
    assert.ok(update.room.version >= last, "versions never go back");
    last = update.room.version;
    for (const event of update.events) assert.match(event.id, new RegExp(`^${update.room.version}\\.\\d+$`));
  }
  assert.ok(log.actions.length >= 1, "the guest made moves");
  assert.ok(log.sockets >= 2, "a new connection after the drop");
  assert.ok(log.statuses.includes("reconnecting"), `statuses: ${log.statuses.join(" ")}`);
  assert.equal(log.statuses.at(-1), "closed");
}

for (const rules of ["classic", "wild-stars", "poker", "perudo"] as const) {
  test(`a whole ${rules} game through the SDK, every message matching the documents`, async () => {
    const { room, log } = await playWholeGame(rules);
    checkGame(room, log);
    console.log(
      `# ${rules}: ${log.updates.length} room updates, ${log.events.length} events (${log.played} played), moves: ${log.actions.join(" ")}, connections: ${log.sockets}, event types: ${[...new Set(log.events.map((e) => e.type))].join(" ")}`,
    );
  });
}

test("every message was validated", () => {
  console.log(`# validated: ${validated.rest} REST answers, ${validated.ws} WebSocket messages, ${validated.events} events`);
  assert.ok(validated.rest > 20);
  assert.ok(validated.ws > 20);
});

test("docs/SDK.md's example places a bid on the guest's turn", async () => {
  const { example } = await import("./example.js");
  const log = console.log;
  console.log = () => {}; // the example prints every event
  const live = await example(server.baseUrl, server.wsUrl);
  live.on("error", () => {}); // a move answered after close (the table moved on) is no failure here
  try {
    const bid = await new Promise<RoomEvent | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), 30_000);
      live.on("room", ({ room, events }) => {
        const mine = room.players.find((p) => p.id === room.me.player_id);
        const placed = events.find((e) => e.type === "bid_placed" && e.player_id === mine?.id);
        if (placed) {
          clearTimeout(timer);
          resolve(placed);
        }
      });
    });
    assert.ok(bid, "the example's guest placed a bid");
    assert.equal(bid.type === "bid_placed" && bid.face, 6);
  } finally {
    live.close();
    await new Promise((r) => setTimeout(r, 500)); // the example's last listener call ends
    console.log = log;
  }
});
