import { z } from 'zod';

// The small part of OpenAPI 3.1 the gateway's two documents use, and helpers to write it.

/** A JSON Schema (2020-12, the OpenAPI 3.1 dialect). */
export type JsonSchema = { [keyword: string]: unknown };

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
export const HTTP_METHODS: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'patch'];

export interface Reference {
  $ref: string;
}

export interface Example {
  summary?: string;
  value: unknown;
}

export interface MediaType {
  schema: JsonSchema;
  examples?: Record<string, Example>;
}

export interface Header {
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  description?: string;
  required?: boolean;
  schema: JsonSchema;
  example?: unknown;
}

export interface RequestBody {
  description?: string;
  required: boolean;
  content: Record<string, MediaType>;
}

export interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, MediaType>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security?: SecurityRequirement[];
  parameters?: Array<Parameter | Reference>;
  requestBody?: RequestBody;
  responses: Record<string, Response>;
}

export type PathItem = Partial<Record<HttpMethod, Operation>>;

export interface SecurityScheme {
  type: 'http' | 'apiKey';
  description: string;
  scheme?: string;
  bearerFormat?: string;
  in?: 'header';
  name?: string;
}

export interface Tag {
  name: string;
  description: string;
}

export interface OpenApiDocument {
  openapi: '3.1.1';
  info: { title: string; version: string; summary: string; description: string };
  jsonSchemaDialect: string;
  servers: Array<{ url: string; description: string }>;
  tags: Tag[];
  security: SecurityRequirement[];
  paths: Record<string, PathItem>;
  webhooks?: Record<string, PathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    parameters?: Record<string, Parameter>;
    securitySchemes: Record<string, SecurityScheme>;
  };
}

export const OAS_DIALECT = 'https://spec.openapis.org/oas/3.1/dialect/base';

/** `$ref` to a component schema. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** `$ref` to a component parameter. */
export const paramRef = (name: string): Reference => ({ $ref: `#/components/parameters/${name}` });

/** A string, or null. */
export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

/** An object whose listed properties are all required and no other is allowed (every response body here). */
export function closed(properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', required: Object.keys(properties), properties, additionalProperties: false, ...extra };
}

/** JSON content of one media type, with examples. */
export function json(schema: JsonSchema, examples: Record<string, Example> = {}, mediaType = 'application/json') {
  const media: MediaType = { schema };
  if (Object.keys(examples).length > 0) media.examples = examples;
  return { [mediaType]: media };
}

/**
 * The JSON Schema of a zod schema as a request accepts it (`io: 'input'`: fields with a default are
 * optional), or as an answer holds it (`io: 'output'`). Refinements (`.refine`) have no JSON Schema form and are described in words by the caller.
 * `descriptions` only annotates members, and every member it names must exist: a description
 * cannot outlive its field.
 */
export function fromZod(
  schema: z.ZodType,
  descriptions: Record<string, string> = {},
  io: 'input' | 'output' = 'input',
): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as JsonSchema;
  const properties = rest.properties as Record<string, JsonSchema> | undefined;
  for (const [name, description] of Object.entries(descriptions)) {
    const member = properties?.[name];
    if (!member) throw new TypeError(`no member ${name} to describe`);
    (properties as Record<string, JsonSchema>)[name] = { ...member, description };
  }
  return rest;
}

/** One query parameter per property of a zod object schema (the admin lists' `?limit=&cursor=` and filters). */
export function queryParameters(schema: z.ZodType, descriptions: Record<string, string> = {}): Parameter[] {
  const js = fromZod(schema);
  const properties = (js.properties ?? {}) as Record<string, JsonSchema>;
  const required = (js.required ?? []) as string[];
  return Object.entries(properties).map(([name, s]) => {
    const p: Parameter = { name, in: 'query', required: required.includes(name), schema: s };
    const description = descriptions[name];
    if (description !== undefined) p.description = description;
    return p;
  });
}

/** The path parameter of a zod params schema (`/…/:id`). */
export function pathParameter(schema: z.ZodType, name: string, description: string): Parameter {
  const properties = (fromZod(schema).properties ?? {}) as Record<string, JsonSchema>;
  const s = properties[name];
  if (!s) throw new TypeError(`no path parameter ${name} in the schema`);
  return { name, in: 'path', required: true, description, schema: s };
}
