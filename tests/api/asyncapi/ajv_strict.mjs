// ajv in strict mode over the published documents, as a typed client's validator would run.
//
// Usage: node ajv_strict.mjs ROOT < messages.jsonl
// Each stdin line is {"doc": "openapi" | "asyncapi", "ref": "#/components/schemas/X", "value": ...}.
// Every component schema of both documents is compiled in strict mode (an unknown keyword,
// e.g. AsyncAPI's `discriminator: "type"`, fails), then each value is validated against its
// schema. Prints one JSON line {"compiled", "validated", "failures": [...]} and exits 1 on any
// failure.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const root = process.argv[2];
const docs = {
  openapi: JSON.parse(readFileSync(join(root, "docs", "openapi.json"), "utf8")),
  asyncapi: JSON.parse(readFileSync(join(root, "docs", "asyncapi.json"), "utf8")),
};
// OpenAPI's discriminator (the action body) is a keyword ajv knows with this option.
const ajv = new Ajv2020({ strict: true, allErrors: true, discriminator: true });
addFormats(ajv);

const failures = [];
let compiled = 0;
for (const [name, doc] of Object.entries(docs)) {
  // The components as one schema resource whose $defs the documents' refs point into.
  const text = JSON.stringify(doc.components.schemas).replaceAll(
    '"#/components/schemas/',
    `"${name}.json#/$defs/`,
  );
  ajv.addSchema({ $id: `${name}.json`, $defs: JSON.parse(text) });
  for (const key of Object.keys(doc.components.schemas)) {
    try {
      ajv.getSchema(`${name}.json#/$defs/${key}`);
      compiled += 1;
    } catch (error) {
      failures.push({ doc: name, schema: key, error: String(error.message || error) });
    }
  }
}

const input = readFileSync(0, "utf8");
let validated = 0;
for (const line of input.split("\n")) {
  if (!line.trim()) continue;
  const { doc, ref, value } = JSON.parse(line);
  const id = `${doc}.json#/$defs/${ref.replace("#/components/schemas/", "")}`;
  let validate;
  try {
    validate = ajv.getSchema(id);
  } catch (error) {
    failures.push({ doc, ref, error: String(error.message || error) });
    continue;
  }
  if (!validate) {
    failures.push({ doc, ref, error: "no such schema" });
    continue;
  }
  validated += 1;
  if (!validate(value)) {
    failures.push({ doc, ref, errors: validate.errors, value });
  }
}
console.log(JSON.stringify({ compiled, validated, failures: failures.slice(0, 20) }));
process.exit(failures.length ? 1 : 0);
