// Run-time validation of every response against the OpenAPI schema the client was generated
// from: an openapi-fetch middleware finds the operation by its path template and method, fails
// on a status the operation does not declare, and validates a JSON body with Ajv. OpenAPI 3.0's
// `nullable` becomes a null type (Ajv wants JSON Schema), and every declared object is closed.

import { Ajv, type ValidateFunction } from "ajv";
import ajvFormats from "ajv-formats";
import { readFileSync } from "node:fs";
import type { Middleware } from "openapi-fetch";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function jsonSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(jsonSchema);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key !== "nullable") out[key] = jsonSchema(value);
  }
  if (out["type"] === "object" && isObject(out["properties"]) && !("additionalProperties" in out)) {
    out["additionalProperties"] = false;
  }
  if (node["nullable"] === true) {
    const type = out["type"];
    if (typeof type === "string" && !("enum" in out)) {
      out["type"] = [type, "null"];
      return out;
    }
    return { anyOf: [out, { type: "null" }] };
  }
  return out;
}

export class SchemaValidator {
  readonly document: JsonObject;
  private readonly ajv: Ajv;
  readonly checked: string[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(path: string) {
    const parsed: Json = JSON.parse(readFileSync(path, "utf-8"));
    if (!isObject(parsed)) throw new Error("the schema is not an object");
    this.document = parsed;
    this.ajv = new Ajv({ strict: false, allErrors: true });
    // ajv-formats is CommonJS: from ES modules its plugin is the default export's `default`.
    ajvFormats.default(this.ajv);
    // OpenAPI's own formats that JSON Schema does not define: the type says it all.
    for (const name of ["int32", "int64", "float", "double", "decimal", "binary", "byte"]) {
      this.ajv.addFormat(name, true);
    }
    const components = this.document["components"];
    const schemas = isObject(components) ? components["schemas"] : undefined;
    if (!isObject(schemas)) throw new Error("the schema has no components");
    this.ajv.addSchema({ components: { schemas: jsonSchema(schemas) } }, "api");
  }

  private response(method: string, path: string, status: number): JsonObject {
    const paths = this.document["paths"];
    const item = isObject(paths) ? paths[path] : undefined;
    const operation = isObject(item) ? item[method.toLowerCase()] : undefined;
    const responses = isObject(operation) ? operation["responses"] : undefined;
    const declared = isObject(responses) ? responses[String(status)] : undefined;
    if (!isObject(declared)) {
      throw new Error(`${method} ${path} answered ${status}, which the schema does not declare`);
    }
    return declared;
  }

  /** Validate one answer; returns the error code of an error body, checked against the
   * operation's x-error-codes. */
  check(method: string, path: string, status: number, body: Json | undefined): string | null {
    const declared = this.response(method, path, status);
    const content = declared["content"];
    const media = isObject(content) ? content["application/json"] : undefined;
    const schema = isObject(media) ? media["schema"] : undefined;
    this.checked.push(`${method} ${path} ${status}`);
    if (!isObject(schema)) {
      if (body !== undefined) throw new Error(`${method} ${path} ${status}: a body none declared`);
      return null;
    }
    const key = `${method} ${path} ${status}`;
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      const rewritten = rewriteRefs(jsonSchema(schema));
      if (!isObject(rewritten)) throw new Error(`${key}: the schema is not an object`);
      validate = this.ajv.compile(rewritten);
      this.compiled.set(key, validate);
    }
    if (!validate(body)) {
      throw new Error(
        `${method} ${path} ${status} breaks the schema: ${JSON.stringify(validate.errors)}`,
      );
    }
    if (status >= 400 && isObject(body) && isObject(body["error"])) {
      const code = body["error"]["code"];
      const codes = declared["x-error-codes"];
      if (typeof code !== "string" || !Array.isArray(codes) || !codes.includes(code)) {
        throw new Error(`${method} ${path} ${status}: code ${String(code)} is not declared`);
      }
      return code;
    }
    return null;
  }

  middleware(): Middleware {
    return {
      onResponse: async ({ request, response, schemaPath }) => {
        const text = await response.clone().text();
        const body: Json | undefined = text === "" ? undefined : JSON.parse(text);
        this.check(request.method, schemaPath, response.status, body);
        return undefined;
      },
    };
  }
}

// A response schema refers to components by "#/components/schemas/X": point it at the schema
// registered as "api".
function rewriteRefs(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === "$ref" && typeof value === "string" ? `api${value}` : rewriteRefs(value);
  }
  return out;
}
