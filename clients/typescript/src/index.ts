// @liars-lies/client: a typed REST and realtime client for the Liar's Lies API.
export * from "./types.js";
export { ApiError, createRestClient, localWebSocketUrl, ok } from "./rest.js";
export type { Api, FetchLike, RestClient, RestOptions } from "./rest.js";
export { RealtimeClient, eventKey } from "./realtime.js";
export type {
  ConnectionStatus,
  RealtimeOptions,
  RoomUpdate,
  UpdateReason,
  WebSocketFactory,
  WebSocketLike,
} from "./realtime.js";
export { ServerClock, playEvents } from "./clock.js";
export type { Playback } from "./clock.js";
export { systemTimers } from "./timers.js";
export type { Timers } from "./timers.js";
