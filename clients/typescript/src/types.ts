// Friendly names for the generated types (src/generated/ is written by `npm run generate`).
import type { components as Rest, paths } from "./generated/openapi.js";
import type { components as Ws } from "./generated/asyncapi.js";

export type { paths };
export type RestSchemas = Rest["schemas"];
export type WsSchemas = Ws["schemas"];

/** The room as one viewer may see it (REST answers and pushes carry the same shape). */
export type RoomView = Rest["schemas"]["RoomView"];
/** Any move for `POST /rooms/{room_id}/actions`. */
export type Action = Rest["schemas"]["ActionBody"];
export type Settings = Rest["schemas"]["SettingsBody"];
export type ErrorBody = Rest["schemas"]["ErrorBody"];

export type RoomPush = Ws["schemas"]["RoomPush"];
export type ChatPush = Ws["schemas"]["ChatPush"];
export type ErrorPush = Ws["schemas"]["ErrorPush"];
export type PongPush = Ws["schemas"]["PongPush"];
export type RoomChangedPush = Ws["schemas"]["RoomChangedPush"];
/** Every message the server sends over the WebSocket. */
export type ServerMessage = RoomPush | ChatPush | ErrorPush | PongPush | RoomChangedPush;
/** Every message a client sends over the WebSocket. */
export type ClientMessage =
  | Ws["schemas"]["SubscribeMessage"]
  | Ws["schemas"]["UnsubscribeMessage"]
  | Ws["schemas"]["TickMessage"]
  | Ws["schemas"]["PingMessage"];
/** One event of a room push (`bid_placed`, `liar_called`, …). */
export type RoomEvent = RoomPush["events"][number];
export type RoomEventType = RoomEvent["type"];
/** The event of one `type`, e.g. `EventOf<"bid_placed">`. */
export type EventOf<T extends RoomEventType> = Extract<RoomEvent, { type: T }>;
