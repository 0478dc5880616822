import { z } from 'zod';
import {
  dataEnhanceSchema,
  emailSearchSchema,
  phoneSearchSchema,
  radiusSearchSchema,
  registrationCheckSchema,
} from './schemas/lookups.schema.ts';
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

/** What every lookup answer holds (clients.md 25-30, docs/api.md "Person and voter lookups"). */
const lookupIds = {
  input: z
    .record(z.string(), z.union([z.string(), z.array(z.string())]))
    .describe('The query parameters as received (a repeated parameter as a list); never the key'),
  gateway_id: z.string().describe('Request id (UUID), new per answer'),
  function_id: z.string().describe('Request id (UUID), new per answer'),
};

/** A lookup's refusal or failure: `error` set, no endpoint fields. */
const lookupRefusalSchema = z.object({
  error: z.string().describe('"<Kind> Error: …"; never repeats a value of the query'),
  ...lookupIds,
  code: z.string().optional().describe('Machine-readable error code'),
  request_id: z.string().optional(),
});

/** A voter record: `vb.*` fields (the key's profile), and `sm.score`/`sm.explain` where matched. */
const fieldMapSchema = z.record(z.string(), z.union([z.string(), z.number()]));

/** A lookup's success body: `error` null, the common fields, `states_updated` and the endpoint's own. */
const lookupSuccess = (fields: z.ZodRawShape) =>
  z.object({
    error: z.null(),
    ...lookupIds,
    states_updated: z
      .record(z.string(), z.string())
      .describe("State → YYYYMMDD: the date of the voter file's version holding that state"),
    ...fields,
  });

const lookupAnswers = {
  registrationCheck: lookupSuccess({
    result: z.boolean().describe('true only when exactly one record matches confidently'),
    too_many: z.boolean().describe('two or more candidates are close and none is confirmed'),
    result_set: z.array(fieldMapSchema).describe('The one confirmed record, else empty'),
    parsed_address: z.object({ street_number: z.string(), street_name: z.string(), zip_code: z.string() }),
  }),
  dataEnhance: lookupSuccess({
    output: z.array(fieldMapSchema),
    output_size: z.number().int().min(0),
    match_found: z.boolean(),
  }),
  radiusSearch: lookupSuccess({
    output: z
      .array(
        z.object({
          similarity_score: z.number(),
          distance_km: z.number(),
          distance_meters: z.number(),
          distance_miles: z.number(),
          distance_feet: z.number(),
          proximity_score: z.number(),
          composite_score: z.number(),
          uniqueness_score: z.number(),
          confidence_indicator: z
            .string()
            .describe('Excellent Match, Very Good Match, Good Match, Fair Match or Poor Match'),
          'sm.score': z.number(),
          'sm.explain': z.string(),
          data_fields: fieldMapSchema.describe("The record's vb.* fields"),
        }),
      )
      .describe('Best composite_score first'),
    output_size: z.number().int().min(0),
    search_latitude: z.number(),
    search_longitude: z.number(),
  }),
  contactSearch: lookupSuccess({
    result: z
      .array(fieldMapSchema)
      .describe('Each record with the phone or email asked, its vb.* fields, sm.score and sm.explain'),
    result_size: z.number().int().min(0),
  }),
};

/**
 * One lookup operation (clients.md 25-30): a valid key's bad parameters or missing right answer
 * 200 with `error` set; a missing or bad key 401; the rate limit or a spent quota 429 with
 * Retry-After; no voter file yet 503.
 */
function lookupOperation(summary: string, description: string, query: z.ZodType, answer: z.ZodType) {
  const refusal = (text: string) => jsonBody(lookupRefusalSchema, text);
  return {
    get: {
      summary,
      description,
      security: [{ apiKey: [] }],
      parameters: queryParameters(query),
      responses: {
        '200': jsonBody(
          z.union([answer, lookupRefusalSchema]),
          "The answer (error null); or, refused with error set: a Validation Error (bad parameters) or an Authorization Error (the key lacks this lookup's right)",
        ),
        '400': errorResponses['400'],
        '401': refusal('Authorization Error: missing, unknown or revoked key'),
        '429': {
          ...refusal("Rate Limit Error: the key's rate limit or daily quota of persons is spent"),
          headers: {
            'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
          },
        },
        '431': errorResponses['431'],
        '500': refusal('Internal Error'),
        '503': refusal('Internal Error: no voter file is imported yet'),
      },
    },
  };
}

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
      '/voter/voter-registration-check': lookupOperation(
        "Check one person's voter registration",
        'A trailing * is a wildcard (not first; not in names, state or unparsed_full_address): dob=1961* is the year 1961. Answers result (one record confirmed), too_many, result_set and parsed_address.',
        registrationCheckSchema,
        lookupAnswers.registrationCheck,
      ),
      '/person/data-enhance': lookupOperation(
        'Records of an id, a phone, an e-mail address or a household',
        'search_id_type voterbase (default), exacttrack, voter, smartvan or votebuilder (these three with state), phone, email, household. Answers output, output_size and match_found.',
        dataEnhanceSchema,
        lookupAnswers.dataEnhance,
      ),
      '/person/radius-search': lookupOperation(
        'Voters of a similar name within a radius',
        'latitude and longitude, or an address; radius_size (default 10) in radius_unit (miles default), at most 120 miles. Answers output (best first), output_size, search_latitude and search_longitude.',
        radiusSearchSchema,
        lookupAnswers.radiusSearch,
      ),
      '/person/phone-search': lookupOperation(
        'Voters of up to 500 phone numbers',
        'phones: the parameter repeated or comma-separated; each phone counts one person of the daily quota. Answers result and result_size.',
        phoneSearchSchema,
        lookupAnswers.contactSearch,
      ),
      '/person/email-search': lookupOperation(
        'Voters of up to 200 e-mail addresses',
        'emails: the parameter repeated or comma-separated; match_type I (individual, default) or H (household). Answers result and result_size.',
        emailSearchSchema,
        lookupAnswers.contactSearch,
      ),
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
