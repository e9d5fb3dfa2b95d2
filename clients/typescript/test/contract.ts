// Validates REST answers and WebSocket messages against the published documents with ajv
// (JSON Schema 2020-12, strict mode, formats checked): docs/openapi.json and docs/asyncapi.json.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };
interface AjvLike {
  addSchema(schema: object, key?: string): AjvLike;
  compile(schema: object): Validate;
}
const Ajv2020 = (require("ajv/dist/2020") as { default: new (opts: object) => AjvLike }).default;
const addFormats = (require("ajv-formats") as { default: (ajv: AjvLike) => void }).default;

const docs = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../docs");
export const openapi = JSON.parse(readFileSync(resolve(docs, "openapi.json"), "utf8"));
export const asyncapi = JSON.parse(readFileSync(resolve(docs, "asyncapi.json"), "utf8"));

/** `#/components/schemas/X` → `<id>#/$defs/X`; OpenAPI's `discriminator` (an annotation) goes. */
function rewrite(node: unknown, id: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, id));
  if (node && typeof node === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "discriminator") continue;
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/schemas/")) {
        out[key] = `${id}#/$defs/${value.slice("#/components/schemas/".length)}`;
      } else {
        out[key] = rewrite(value, id);
      }
    }
    return out;
  }
  return node;
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: "openapi", $defs: rewrite(openapi.components.schemas, "openapi") as object });
ajv.addSchema({ $id: "asyncapi", $defs: rewrite(asyncapi.components.schemas, "asyncapi") as object });

const cache = new Map<string, Validate>();
function compiled(key: string, schema: () => object): Validate {
  let v = cache.get(key);
  if (!v) {
    v = ajv.compile(schema());
    cache.set(key, v);
  }
  return v;
}

export class ContractError extends Error {}

/** Counts of what was validated, by kind (for the test's summary and its checks). */
export const validated = { rest: 0, ws: 0, events: 0 };

/** A REST answer against its operation's response schema for that status. */
export function checkRest(method: string, schemaPath: string, status: number, body: unknown): void {
  const operation = openapi.paths[schemaPath]?.[method.toLowerCase()];
  if (!operation) throw new ContractError(`${method} ${schemaPath}: not in openapi.json`);
  const response = operation.responses[String(status)];
  if (!response) throw new ContractError(`${method} ${schemaPath}: status ${status} not documented`);
  const schema = response.content?.["application/json"]?.schema;
  if (!schema) throw new ContractError(`${method} ${schemaPath} ${status}: no JSON schema`);
  const validate = compiled(`rest ${method} ${schemaPath} ${status}`, () => rewrite(schema, "openapi") as object);
  if (!validate(body)) {
    throw new ContractError(
      `${method} ${schemaPath} ${status} does not match openapi.json: ${JSON.stringify(validate.errors).slice(0, 1500)}\nbody: ${JSON.stringify(body).slice(0, 1500)}`,
    );
  }
  validated.rest += 1;
}

/** The payload schema of every message of the AsyncAPI channel, by message name. */
const messages: Record<string, object> = Object.fromEntries(
  Object.values(asyncapi.components.messages as Record<string, { name: string; payload: object }>).map((m) => [
    m.name,
    rewrite(m.payload, "asyncapi") as object,
  ]),
);

/** A message from the server (`type`) or to it (`action`) against its AsyncAPI payload. */
export function checkWs(message: { type?: string; action?: string }): void {
  const name = message.type ?? message.action;
  const schema = name === undefined ? undefined : messages[name];
  if (!schema) throw new ContractError(`WebSocket message ${JSON.stringify(message).slice(0, 300)} is not in asyncapi.json`);
  const validate = compiled(`ws ${name}`, () => schema);
  if (!validate(message)) {
    throw new ContractError(
      `WebSocket ${name} does not match asyncapi.json: ${JSON.stringify(validate.errors).slice(0, 1500)}\nmessage: ${JSON.stringify(message).slice(0, 1500)}`,
    );
  }
  validated.ws += 1;
  if (name === "room") validated.events += (message as { events: unknown[] }).events.length;
}

/** Compile every schema of both documents in strict mode (throws on the first that fails). */
export function compileEverySchema(): number {
  let count = 0;
  for (const [id, doc] of [
    ["openapi", openapi],
    ["asyncapi", asyncapi],
  ] as const) {
    for (const name of Object.keys(doc.components.schemas)) {
      compiled(`${id} ${name}`, () => ({ $ref: `${id}#/$defs/${name}` }));
      count += 1;
    }
  }
  return count;
}
