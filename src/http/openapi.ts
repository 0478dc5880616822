import { z } from 'zod';
import { onboardingQuerySchema } from './schemas/onboarding.schema.ts';
import {
  pollBodySchema,
  pollQuerySchema,
  smartmatchQuerySchema,
  urlErrorBodySchema,
} from './schemas/smartmatch.schema.ts';

type JsonSchema = Record<string, unknown>;

/** Query parameters of an operation, from the same zod schema that validates them. */
function queryParameters(schema: z.ZodType): JsonSchema[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

const jsonBody = (schema: z.ZodType, description: string) => ({
  description,
  content: {
    'application/json': { schema: z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) },
  },
});

/**
 * Errors of the key-authenticated endpoints. A valid key's refusals (validation, a right it lacks,
 * a platform not connected, an unknown job) are 200 with `error` set (clients.md 7).
 */
const errorResponses = {
  '400': jsonBody(urlErrorBodySchema, 'Validation Error: a request the HTTP parser refused (malformed)'),
  '401': jsonBody(urlErrorBodySchema, 'Authorization Error: missing, unknown or revoked key'),
  '429': jsonBody(urlErrorBodySchema, 'Rate Limit Error (Retry-After header)'),
  '431': jsonBody(urlErrorBodySchema, 'Validation Error: request line and headers over 16 KB'),
  '500': jsonBody(urlErrorBodySchema, 'Internal Error'),
};
const REFUSED = 'or, refused: url null and error set (Validation Error, Authorization Error)';

/** The OpenAPI 3.1 document served at /openapi.json. */
export function buildOpenApiDocument(serverUrl: string): JsonSchema {
  const security = [{ apiKey: [] }];
  return {
    openapi: '3.1.0',
    info: {
      title: 'listmatch',
      version: '1',
      description:
        'List matching and audience onboarding. Register with GET, PUT the CSV to the returned url, then poll. Every JSON body holds `url` and `error`.',
    },
    servers: [{ url: serverUrl }],
    components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    paths: {
      '/service/smartmatch': {
        get: {
          summary: 'Register a list-matching job',
          description:
            'The filename names the job per API key. Registering a filename whose job awaits its upload replaces that job (its upload URL stops working, 403); while its job is being matched (uploaded or processing) the registration is refused with a Validation Error naming the wait; once that job finished, a new job starts and the finished result stays downloadable by its URL until retention. Poll answers for the newest job.',
          security,
          parameters: queryParameters(smartmatchQuerySchema),
          responses: {
            '200': jsonBody(urlErrorBodySchema, `Presigned PUT url, ${REFUSED}`),
            ...errorResponses,
          },
        },
      },
      '/service/smartmatch/poll': {
        get: {
          summary: 'Poll a list-matching job by filename',
          security,
          parameters: queryParameters(pollQuerySchema),
          responses: {
            '200': jsonBody(
              pollBodySchema,
              'Blank url while running; presigned GET url when complete; error when failed or when no job of this key has that filename. Beside url and error: status, progress (rows through matching and upload bytes read so far, recorded about once a second; totals once known) and, when complete, warnings. Clients that do not know a field ignore it.',
            ),
            ...errorResponses,
          },
        },
      },
      '/service/onboarding': {
        get: {
          summary: 'Register an audience-onboarding job',
          security,
          parameters: queryParameters(onboardingQuerySchema),
          responses: {
            '200': jsonBody(urlErrorBodySchema, `Presigned PUT url, ${REFUSED}`),
            ...errorResponses,
          },
        },
      },
      '/files/{jobId}/{name}': {
        put: {
          summary: 'Upload target of a presigned URL (embedded storage)',
          description: 'Authorized by the URL signature only. Body: the raw CSV. Answers exactly 200.',
          parameters: presignedParameters,
          requestBody: { content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
          responses: {
            '200': { description: 'Upload accepted; processing started' },
            '403': jsonBody(urlErrorBodySchema, 'Tampered, expired, wrong-operation or revoked URL'),
            '408': jsonBody(urlErrorBodySchema, 'The body stalled (too slow or silent); nothing was kept'),
            '409': jsonBody(urlErrorBodySchema, 'The URL was already used'),
            '413': jsonBody(urlErrorBodySchema, 'Over the size cap'),
            '429': jsonBody(urlErrorBodySchema, 'Too many uploads of one key at once (Retry-After header)'),
          },
        },
        get: {
          summary: 'Download target of a presigned result URL',
          parameters: presignedParameters,
          responses: {
            '200': { description: 'The result file (csv, gzip or zip; never Content-Encoding)' },
            '403': jsonBody(urlErrorBodySchema, 'Tampered, expired, wrong-operation or revoked URL'),
          },
        },
      },
      '/healthz': { get: { summary: 'Liveness', responses: { '200': { description: 'ok' } } } },
      '/readyz': {
        get: {
          summary: 'Readiness',
          responses: {
            '200': { description: 'ready; checks names each (database, storage, voter_file, delivery)' },
            '503': { description: 'not ready' },
          },
        },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics',
          responses: { '200': { description: 'text exposition format' } },
        },
      },
    },
  };
}

const presignedParameters = [
  { name: 'jobId', in: 'path', required: true, schema: { type: 'string' } },
  { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
  ...['op', 'exp', 'sig'].map((name) => ({ name, in: 'query', required: true, schema: { type: 'string' } })),
  { name: 'max', in: 'query', required: false, schema: { type: 'string' } },
];
