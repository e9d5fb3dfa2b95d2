// The example of docs/SDK.md, compiled with the package (test/docs.test.ts keeps the two equal).
import { createRestClient, ok, playEvents, RealtimeClient, ServerClock } from "../src/index.js";

export async function example(API: string, WS: string): Promise<RealtimeClient> {
  // --- docs/SDK.md example ---
  const rest = createRestClient({ baseUrl: API }); // e.g. http://localhost:8000
  await rest.signInAsGuest("Ada");
  const room = await ok(rest.api.POST("/rooms", { body: { settings: { rules: "classic" } } }));
  const path = { params: { path: { room_id: room.id } } };
  await ok(rest.api.POST("/rooms/{room_id}/bots", { ...path, body: { level: "easy" } }));
  await ok(rest.api.POST("/rooms/{room_id}/start", path));

  const clock = new ServerClock();
  const live = new RealtimeClient({
    url: WS, // e.g. ws://localhost:8000/ws
    getTicket: () => rest.ticket(), // a fresh ticket for every (re)connect
    getRoom: (id) => rest.getRoom(id), // resync after a gap
  });
  live.on("room", async ({ room, events }) => {
    clock.note(room.server_time);
    await playEvents(events, (e) => console.log(e.type, e.at), { clock }).done;
    const game = room.game;
    if (game?.phase !== "bidding" || game.turn?.player_id !== room.me.player_id) return;
    const quantity = (game.current_bid?.quantity ?? 0) + 1;
    const bid = { type: "bid" as const, quantity, face: 6 as const, turn: game.turn.number };
    await ok(rest.api.POST("/rooms/{room_id}/actions", { ...path, body: bid }));
  });
  live.subscribe(room.id);
  live.start();
  // --- end ---
  return live;
}
