import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildOpenApiDocument } from './openapi.ts';
import { LOOKUP_ROUTES } from './routes/person-lookups.route.ts';
import {
  dataEnhanceSchema,
  emailSearchSchema,
  phoneSearchSchema,
  radiusSearchSchema,
  registrationCheckSchema,
} from './schemas/lookups.schema.ts';
import { smartmatchQuerySchema } from './schemas/smartmatch.schema.ts';

type Operation = {
  parameters: { name: string; required: boolean }[];
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
};

test('the lookups are documented with the parameters their zod schemas validate and their answers', () => {
  const paths = buildOpenApiDocument('http://x').paths as Record<string, { get?: Operation }>;
  const schemas = {
    '/voter/voter-registration-check': registrationCheckSchema,
    '/person/data-enhance': dataEnhanceSchema,
    '/person/radius-search': radiusSearchSchema,
    '/person/phone-search': phoneSearchSchema,
    '/person/email-search': emailSearchSchema,
  };
  assert.deepEqual(Object.keys(schemas).sort(), [...LOOKUP_ROUTES].sort());
  for (const [path, schema] of Object.entries(schemas)) {
    const operation = paths[path]?.get;
    assert.ok(operation, path);
    const shape = (schema as unknown as { shape: Record<string, { isOptional(): boolean }> }).shape;
    assert.deepEqual(
      operation.parameters.map((p) => [p.name, p.required]),
      Object.entries(shape).map(([name, field]) => [name, !field.isOptional()]),
      path,
    );
    assert.deepEqual(Object.keys(operation.responses).sort(), [
      '200',
      '400',
      '401',
      '429',
      '431',
      '500',
      '503',
    ]);
    assert.ok(operation.responses['429']!.headers?.['Retry-After'], path);
    const body = JSON.stringify(operation.responses['200']!.content);
    for (const field of ['error', 'input', 'gateway_id', 'function_id', 'states_updated'])
      assert.ok(body.includes(`"${field}"`), `${path}: ${field}`);
  }
});

test("a boolean parameter's documented pattern takes what the service takes (Python's True/False too)", () => {
  const paths = buildOpenApiDocument('http://x').paths as Record<
    string,
    { get?: { parameters: { name: string; schema?: { allOf?: { pattern: string }[] } }[] } }
  >;
  const parameter = paths['/service/smartmatch']?.get?.parameters.find((p) => p.name === 'mbp_onboarding');
  const patterns = (parameter?.schema?.allOf ?? []).map((part) => part.pattern);
  assert.ok(patterns.length > 0, 'mbp_onboarding has patterns');
  // JSON Schema patterns are ECMAScript regular expressions without flags; a value must match each.
  const documented = { test: (value: string) => patterns.every((p) => new RegExp(p, 'u').test(value)) };
  for (const value of ['True', 'False', 'true', 'false', 'TRUE', '1', '0']) {
    assert.ok(documented.test(value), `${value} is documented`);
    assert.equal(
      smartmatchQuerySchema.safeParse({ filename: 'a', mbp_onboarding: value, digital_audience_name: 'A' })
        .success,
      true,
      value,
    );
  }
  for (const value of ['yes', 'on', '', 'true1']) {
    assert.equal(documented.test(value), false, `${value} is not documented`);
    assert.equal(
      smartmatchQuerySchema.safeParse({ filename: 'a', mbp_onboarding: value, digital_audience_name: 'A' })
        .success,
      false,
      value,
    );
  }
});
