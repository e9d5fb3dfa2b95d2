// The REST client: openapi-fetch over the generated `paths`, with the session's bearer token.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./generated/openapi.js";
import type { ErrorBody, RoomView } from "./types.js";

/** A `fetch` as openapi-fetch calls it (the platform's `fetch` fits; inject one in tests). */
export type FetchLike = (input: Request) => Promise<Response>;

export interface RestOptions {
  /** The API's base URL: `http://localhost:8000` locally, the REST stage's URL on AWS. */
  baseUrl: string;
  /** Defaults to the platform's `fetch` (browsers, Node 20+, React Native). */
  fetch?: FetchLike;
  /** A token kept from an earlier session (e.g. in secure storage on a phone). */
  token?: string | null;
  /** Called whenever the token changes (sign-in, sign-out, a 401 that ended the session). */
  onToken?: (token: string | null) => void;
}

/**
 * A refused request: the API's error body (`code` is stable, `field` names the input at
 * fault), the HTTP status, `Retry-After` in seconds on a 429/503 that has one, and the
 * caller's current room view on a lost race (409 `conflict`).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | null;
  readonly retryAfter: number | null;
  readonly room: RoomView | null;

  constructor(status: number, body: unknown, retryAfter: string | null) {
    const detail = (body as Partial<ErrorBody> | undefined)?.error;
    super(detail?.message ?? `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.code = detail?.code ?? "unknown";
    this.field = detail?.field ?? null;
    const seconds = retryAfter === null ? NaN : Number(retryAfter);
    this.retryAfter = Number.isFinite(seconds) ? seconds : null;
    this.room = ((body as { room?: RoomView } | undefined)?.room ?? null) as RoomView | null;
  }
}

export type Api = Client<paths>;

/** The typed REST client and the session it signs requests with. */
export interface RestClient {
  /** openapi-fetch's client: `api.GET("/rooms/{room_id}", { params: { path: { room_id } } })`. */
  readonly api: Api;
  readonly token: string | null;
  setToken(token: string | null): void;
  /** Sign in as a guest (a new one each time) and keep its token. */
  signInAsGuest(name?: string): Promise<paths["/auth/guest"]["post"]["responses"][201]["content"]["application/json"]>;
  login(username: string, password: string): Promise<paths["/auth/login"]["post"]["responses"][200]["content"]["application/json"]>;
  register(username: string, password: string): Promise<paths["/auth/register"]["post"]["responses"][201]["content"]["application/json"]>;
  /** A single-use WebSocket ticket for the signed-in user, or null when signed out. */
  ticket(): Promise<string | null>;
  /** `GET /rooms/{room_id}`: the room as the caller may see it. */
  getRoom(roomId: string): Promise<RoomView>;
}

/**
 * The answer's data, or an {@link ApiError} thrown for a refusal. Use it around any `api` call:
 * `const room = await ok(api.POST("/rooms", { body: {} }))`.
 */
export async function ok<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) {
    throw new ApiError(response.status, error, response.headers.get("Retry-After"));
  }
  return data;
}

export function createRestClient(options: RestOptions): RestClient {
  let token = options.token ?? null;
  const setToken = (next: string | null) => {
    if (next !== token) {
      token = next;
      options.onToken?.(next);
    }
  };
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const auth: Middleware = {
    onRequest({ request }) {
      if (token) request.headers.set("Authorization", `Bearer ${token}`);
      return request;
    },
    onResponse({ request, response }) {
      // A bad or expired token is refused with 401 even on public routes: the session ended.
      if (response.status === 401 && request.headers.has("Authorization")) setToken(null);
      return undefined;
    },
  };
  api.use(auth);

  return {
    api,
    get token() {
      return token;
    },
    setToken,
    async signInAsGuest(name) {
      const answer = await ok(api.POST("/auth/guest", { body: name === undefined ? {} : { name } }));
      setToken(answer.token);
      return answer;
    },
    async login(username, password) {
      const answer = await ok(api.POST("/auth/login", { body: { username, password } }));
      setToken(answer.token);
      return answer;
    },
    async register(username, password) {
      const answer = await ok(api.POST("/auth/register", { body: { username, password } }));
      setToken(answer.token);
      return answer;
    },
    async ticket() {
      if (!token) return null;
      const answer = await ok(api.POST("/realtime/tickets"));
      return answer.ticket;
    },
    async getRoom(roomId) {
      return ok(api.GET("/rooms/{room_id}", { params: { path: { room_id: roomId } } }));
    },
  };
}

/** The local server's WebSocket URL for its REST base URL (`http://h:p` → `ws://h:p/ws`). */
export function localWebSocketUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/^http/, "ws") + "/ws";
}
