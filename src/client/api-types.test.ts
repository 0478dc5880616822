import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { buildOpenApiDocument } from '../http/openapi.ts';
import { OPENAPI_SNAPSHOT_SERVER } from './openapi-snapshot.ts';

test('the typed client was generated from the document the service serves (else: npm run generate:client)', () => {
  const committed = JSON.parse(readFileSync(new URL('./openapi.json', import.meta.url), 'utf8')) as unknown;
  // Compared as data: the formatter may lay the committed file out differently.
  assert.deepEqual(
    committed,
    JSON.parse(JSON.stringify(buildOpenApiDocument(OPENAPI_SNAPSHOT_SERVER))),
    'src/client/openapi.json is stale: run `npm run generate:client` and commit both files',
  );
});
