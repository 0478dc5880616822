// Regenerates the typed client's inputs: src/client/openapi.json (the document GET /openapi.json
// serves, for a placeholder server) and src/client/api-types.ts (its TypeScript types, by
// openapi-typescript). Run `npm run generate:client` after changing a route's schema; the unit test
// src/client/api-types.test.ts fails while the committed document differs from the served one.
// openapi-typescript needs TypeScript 5's compiler API (the project builds with TypeScript 7), so it
// runs through npx with its own TypeScript, outside the project's dependencies.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OPENAPI_SNAPSHOT_SERVER } from '../src/client/openapi-snapshot.ts';
import { buildOpenApiDocument } from '../src/http/openapi.ts';

const documentPath = fileURLToPath(new URL('../src/client/openapi.json', import.meta.url));
const typesPath = fileURLToPath(new URL('../src/client/api-types.ts', import.meta.url));
writeFileSync(documentPath, `${JSON.stringify(buildOpenApiDocument(OPENAPI_SNAPSHOT_SERVER), null, 2)}\n`);
execFileSync(
  'npx',
  [
    '--yes',
    '-p',
    'openapi-typescript@7.13.0',
    '-p',
    'typescript@5.9.3',
    'openapi-typescript',
    documentPath,
    '-o',
    typesPath,
  ],
  { stdio: 'inherit' },
);
execFileSync('npx', ['biome', 'check', '--write', documentPath, typesPath], { stdio: 'inherit' });
