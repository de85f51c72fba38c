/**
 * What "a JSON Schema a generic MCP client can drive" means here, checked on the schemas a real
 * `tools/list` returns: Ajv compiles them (strict mode, the draft they declare), every object node
 * says `type: "object"`, every node has a `type`, no `$ref`, no union without a `type`, and every
 * property has a description.
 */
import { Ajv, type ValidateFunction } from "ajv";
import _addFormats from "ajv-formats";

const addFormats = _addFormats as unknown as (ajv: Ajv) => Ajv;

export const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

/** Ajv for draft-07 (what the SDK's zod conversion declares), strict, with the standard formats. */
export function makeAjv(): Ajv {
  const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  return ajv;
}

export function compile(ajv: Ajv, schema: unknown): ValidateFunction {
  const { $schema, ...rest } = schema as Record<string, unknown>;
  if ($schema !== undefined && $schema !== DRAFT_07) throw new Error(`Expected a draft-07 schema, got ${$schema}`);
  return ajv.compile(rest);
}

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/** Every subschema with its JSON path, the root first. */
export function nodes(schema: unknown, path = "$"): Array<{ path: string; node: Node }> {
  if (!isNode(schema)) return [];
  const out = [{ path, node: schema }];
  for (const key of ["properties", "definitions", "$defs", "patternProperties"]) {
    const map = schema[key];
    if (isNode(map)) for (const [name, sub] of Object.entries(map)) out.push(...nodes(sub, `${path}.${key}.${name}`));
  }
  for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
    const list = schema[key];
    if (Array.isArray(list)) {
      for (const [i, sub] of list.entries()) out.push(...nodes(sub, `${path}.${key}[${i}]`));
    }
  }
  for (const key of ["items", "additionalProperties", "propertyNames", "not", "contains", "if", "then", "else"]) {
    const sub = schema[key];
    if (Array.isArray(sub)) {
      for (const [i, item] of sub.entries()) out.push(...nodes(item, `${path}.${key}[${i}]`));
    } else out.push(...nodes(sub, `${path}.${key}`));
  }
  return out;
}

const OBJECT_KEYWORDS = ["properties", "required", "additionalProperties", "propertyNames", "patternProperties"];

/**
 * The rules' violations, one line each (empty: the schema passes). `unions: "typed"` (inputs) also
 * refuses a union without a `type` anywhere; outputs may hold unions (a value or a list).
 */
export function violations(schema: unknown, options: { unions: "typed" | "allowed" }): string[] {
  const problems: string[] = [];
  if (!isNode(schema)) return ["$: not a schema object"];
  if (schema.type !== "object") problems.push(`$: type is ${JSON.stringify(schema.type)}, expected "object"`);
  for (const key of ["anyOf", "oneOf", "allOf", "$ref", "not"]) {
    if (key in schema) problems.push(`$: a top-level ${key}`);
  }
  for (const { path, node } of nodes(schema)) {
    if ("$ref" in node) problems.push(`${path}: $ref ${String(node.$ref)}`);
    if ("definitions" in node || "$defs" in node) problems.push(`${path}: definitions`);
    const union = "anyOf" in node || "oneOf" in node;
    if (OBJECT_KEYWORDS.some((k) => k in node) && node.type !== "object") {
      problems.push(`${path}: an object node with type ${JSON.stringify(node.type)}`);
    }
    if (union && options.unions === "typed" && node.type === undefined) problems.push(`${path}: a bare union`);
    if (!union && node.type === undefined) problems.push(`${path}: no type`);
    if (isNode(node.properties)) {
      for (const [name, sub] of Object.entries(node.properties)) {
        const description = isNode(sub) ? sub.description : undefined;
        if (typeof description !== "string" || description.trim() === "") {
          problems.push(`${path}.properties.${name}: no description`);
        }
      }
    }
  }
  return problems;
}
