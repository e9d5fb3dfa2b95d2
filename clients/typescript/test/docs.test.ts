// docs/SDK.md's example is test/example.ts (which compiles and runs against the server).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { compileEverySchema } from "./contract.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../../..");

test("docs/SDK.md shows the example that compiles, word for word", () => {
  const source = readFileSync(resolve(root, "clients/typescript/test/example.ts"), "utf8");
  const body = source.split("  // --- docs/SDK.md example ---\n")[1]!.split("  // --- end ---")[0]!;
  const dedented = body
    .split("\n")
    .map((line) => line.replace(/^ {2}/, ""))
    .join("\n")
    .trim();
  const doc = readFileSync(resolve(root, "docs/SDK.md"), "utf8");
  const block = /```ts\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
  const expected = [
    'import { createRestClient, ok, playEvents, RealtimeClient, ServerClock } from "@liars-lies/client";',
    "",
    dedented,
  ].join("\n");
  assert.equal(block.trim(), expected.trim());
});

test("ajv in strict mode compiles every schema of docs/openapi.json and docs/asyncapi.json", () => {
  assert.ok(compileEverySchema() > 50);
});
