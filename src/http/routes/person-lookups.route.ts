import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../../domain/errors.ts';
import type { LookupRight } from '../../domain/lookups/lookup-rights.ts';
import type { LookupService } from '../../domain/lookups/lookup-service.ts';
import type { LookupVoterFile } from '../../domain/lookups/lookup-voter-file.ts';
import type { FieldMap, PersonLookups } from '../../domain/lookups/person-lookups.ts';
import { radiusSearch } from '../../domain/lookups/radius-search.ts';
import type { IdentifierColumn } from '../../domain/matching/matcher.ts';
import type { IdIndexName } from '../../domain/voters/voter-columns.ts';
import { errorAnswer } from '../error-mapping.ts';
import type { HttpDeps } from '../http-deps.ts';
import { parseParams } from '../request-helpers.ts';
import {
  type DataEnhanceQuery,
  dataEnhanceSchema,
  emailSearchSchema,
  phoneSearchSchema,
  RADIUS_UNITS,
  type RadiusSearchQuery,
  type RegistrationCheckQuery,
  radiusSearchSchema,
  registrationCheckSchema,
} from '../schemas/lookups.schema.ts';

/** The lookup paths (for their 405 guards). */
export const LOOKUP_ROUTES = [
  '/voter/voter-registration-check',
  '/person/data-enhance',
  '/person/radius-search',
  '/person/phone-search',
  '/person/email-search',
] as const;

/** The request ids every lookup answer carries (clients.md: UUID-shaped). */
const ids = () => ({ gateway_id: randomUUID(), function_id: randomUUID() });

/** Values of one search asked of the lookup threads at once (see inGroups). */
const SEARCH_GROUP = 50;

/**
 * Each value's answer, in order, asked a group at a time: a group's lookups are sent to the
 * lookup threads together (none waits for the one before it to come back), while other requests'
 * lookups wait behind one group at most, not behind a whole search of 500 phones.
 */
async function inGroups<T, R>(values: readonly T[], ask: (value: T) => Promise<R>): Promise<R[]> {
  const answers: R[] = [];
  for (let i = 0; i < values.length; i += SEARCH_GROUP)
    answers.push(...(await Promise.all(values.slice(i, i + SEARCH_GROUP).map(ask))));
  return answers;
}

/** The query as received, echoed in `input` (never the key: it travels in a header). */
const inputOf = (request: FastifyRequest) => ({ ...(request.query as Record<string, unknown>) });

/**
 * The person and voter lookups (clients.md 25-30) in one scope: the key authenticated, then the
 * lookup admitted by its right, rate limit and quota (LookupService). Every answer is JSON with
 * `error`, `input`, `gateway_id`, `function_id`; refusals of a valid key (validation, a missing
 * right) answer 200 with `error` set (rule 7), a missing or bad key 401, a rate limit or a spent
 * quota 429 with Retry-After, a failure 5xx. Nothing of the query is logged.
 */
export function personLookupRoutes(app: FastifyInstance, deps: HttpDeps & { lookups: LookupService }): void {
  const { lookups } = deps;
  app.register(async (scope) => {
    scope.decorateRequest('lookupKeyId', null);
    scope.addHook('preHandler', async (request) => {
      const key = await lookups.authenticate(request.headers['x-api-key']);
      request.lookupKeyId = key.id;
    });
    scope.setErrorHandler((error: FastifyError | AppError, request, reply) => {
      const answer = errorAnswer(error, request.id);
      if (isAppError(error) && error.retryAfterSeconds !== undefined)
        reply.header('retry-after', String(error.retryAfterSeconds));
      if (answer.status >= 500) request.log.error({ err: error }, 'lookup failed');
      const status =
        answer.status >= 500 || answer.status === 401 || answer.status === 429 ? answer.status : 200;
      return reply.code(status).send({
        error: answer.error,
        input: inputOf(request),
        ...ids(),
        code: answer.code,
        request_id: request.id,
      });
    });

    const route = (
      path: string,
      handle: (request: FastifyRequest, keyId: string) => Promise<Record<string, unknown>>,
    ) =>
      scope.get(path, async (request) => {
        const keyId = request.lookupKeyId;
        if (keyId === null) throw new Error('a lookup ran without its key');
        const answer = await handle(request, keyId);
        return { error: null, input: inputOf(request), ...ids(), ...answer };
      });
    const run = async <T extends object>(
      keyId: string,
      right: LookupRight,
      persons: number,
      profileId: string | undefined,
      lookup: (l: PersonLookups, file: LookupVoterFile, now: Date) => Promise<T>,
    ) => {
      const { answer, statesUpdated } = await lookups.run(keyId, right, persons, profileId, lookup);
      return { ...answer, states_updated: statesUpdated };
    };

    route('/voter/voter-registration-check', async (request, keyId) => {
      const query = parseParams(registrationCheckSchema, request.query);
      const { fields, parsedAddress } = registrationFields(query);
      const answer = await run(keyId, 'registration_check', 1, query.profile_id, (l) =>
        l.registrationCheck(fields),
      );
      return { ...answer, parsed_address: parsedAddress };
    });

    route('/person/data-enhance', async (request, keyId) => {
      const query = parseParams(dataEnhanceSchema, request.query);
      return await run(keyId, 'data_enhance', 1, query.profile_id, async (l) => {
        const output = await dataEnhance(l, query);
        return { output, output_size: output.length, match_found: output.length > 0 };
      });
    });

    route('/person/radius-search', async (request, keyId) => {
      const query = parseParams(radiusSearchSchema, request.query);
      return await run(keyId, 'radius_search', 1, query.profile_id, async (l, _file, now) => {
        const point = await pointOf(l, query);
        const radiusMiles = (query.radius_size ?? 10) * RADIUS_UNITS[query.radius_unit ?? 'miles'];
        const output = await radiusSearch(
          l,
          {
            first: query.first_name,
            last: query.last_name,
            middle: query.middle_name,
            suffix: query.name_suffix,
            lat: point[0],
            lon: point[1],
            radiusMiles,
            // 0 asks for as many as a search returns (100).
            maxResults:
              query.max_results === undefined ? 10 : query.max_results === 0 ? 100 : query.max_results,
            gender: query.gender ?? 'a',
            ageMin: query.age_min,
            ageMax: query.age_max,
            compositeMin: query.composite_score_min,
            compositeMax: query.composite_score_max,
            lastNameExact: query.last_name_exact ?? true,
            lastNameIsPrefix: query.last_name_is_prefix ?? false,
            lastNamePrefixLength: query.last_name_prefix_length ?? 3,
          },
          now,
        );
        return { output, output_size: output.length, search_latitude: point[0], search_longitude: point[1] };
      });
    });

    route('/person/phone-search', async (request, keyId) => {
      const query = parseParams(phoneSearchSchema, request.query);
      return await run(keyId, 'phone_search', query.phones.length, query.profile_id, async (l) => {
        const found = await inGroups(query.phones, (phone) => l.byContact('phone', phone));
        const result: FieldMap[] = [];
        query.phones.forEach((phone, i) => {
          for (const record of found[i] ?? []) result.push({ phone, ...record });
        });
        return { result, result_size: result.length };
      });
    });

    route('/person/email-search', async (request, keyId) => {
      const query = parseParams(emailSearchSchema, request.query);
      return await run(keyId, 'email_search', query.emails.length, query.profile_id, async (l) => {
        const byEmail = await inGroups(query.emails, (email) => l.byContact('email', email));
        const result: FieldMap[] = [];
        for (const [i, email] of query.emails.entries()) {
          const found = byEmail[i] ?? [];
          if (query.match_type !== 'H') {
            for (const record of found) result.push({ email, ...record });
            continue;
          }
          const seen = new Set<string | number>();
          for (const record of found) {
            const [voter] = await l.votersWithId('voterbase_id', String(record['vb.voterbase_id']), null);
            const household = voter === undefined ? [record] : await l.household(voter.part, voter.voter);
            for (const member of household) {
              if (seen.has(member['vb.voterbase_id']!)) continue;
              seen.add(member['vb.voterbase_id']!);
              result.push({ email, ...member });
            }
          }
        }
        return { result, result_size: result.length };
      });
    });
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The key a lookup was authenticated with (personLookupRoutes). */
    lookupKeyId: string | null;
  }
}

/**
 * The registration check's query as a list row: a street address from `unparsed_full_address`,
 * else street number and name; a value ending in the wildcard `*` is left out (it names no value
 * the matcher can compare), except the birth date, whose `1961*` is the year 1961 (`196104*`:
 * April 1961), compared as a partial date.
 */
export function registrationFields(query: RegistrationCheckQuery): {
  fields: Partial<Record<IdentifierColumn, string>>;
  parsedAddress: { street_number: string; street_name: string; zip_code: string };
} {
  const exact = (value: string | undefined) => (value === undefined || value.endsWith('*') ? '' : value);
  const number = exact(query.street_number);
  const street = exact(query.street_name);
  const address = query.unparsed_full_address ?? (street === '' ? '' : `${number} ${street}`.trim());
  const fields: Partial<Record<IdentifierColumn, string>> = {
    first_name: query.first_name,
    last_name: query.last_name,
    state: query.state,
  };
  const set = (name: IdentifierColumn, value: string) => {
    if (value !== '') fields[name] = value;
  };
  set('address1', address);
  set('city', exact(query.city));
  set('zip', exact(query.zip_code));
  set('age', query.age === undefined ? '' : String(query.age));
  set('dob', query.dob === undefined ? '' : query.dob.replace(/\*$/, ''));
  set('phone', query.phone ?? '');
  set('email', query.email ?? '');
  return {
    fields,
    parsedAddress: { street_number: number, street_name: street, zip_code: exact(query.zip_code) },
  };
}

const ID_TYPES: Partial<Record<NonNullable<DataEnhanceQuery['search_id_type']>, IdIndexName>> = {
  voterbase: 'voterbase_id',
  exacttrack: 'exact_track',
  voter: 'voter_id',
  smartvan: 'smartvan_id',
  votebuilder: 'smartvan_id',
};

/** clients.md 26: the records an id, a phone or an e-mail address names; `household`: a voterbase id's household. */
async function dataEnhance(l: PersonLookups, query: DataEnhanceQuery): Promise<FieldMap[]> {
  const type = query.search_id_type ?? 'voterbase';
  const index = ID_TYPES[type];
  if (index !== undefined) return await l.byId(index, query.search_id, query.state ?? null);
  if (type === 'phone' || type === 'email') {
    const found = await l.byContact(type, query.search_id);
    if (found === null)
      throw new AppError(
        'VALIDATION_FAILED',
        `search_id must be ${type === 'phone' ? 'a phone number' : 'an e-mail address'}`,
      );
    return found;
  }
  const [voter] = await l.votersWithId('voterbase_id', query.search_id, null);
  return voter === undefined ? [] : await l.household(voter.part, voter.voter);
}

/** The search's point: its coordinates, or its address placed by the voter file. */
async function pointOf(l: PersonLookups, query: RadiusSearchQuery): Promise<[number, number]> {
  if (query.latitude !== undefined && query.longitude !== undefined) return [query.latitude, query.longitude];
  const point = await l.locate(query.address ?? '');
  if (point === null)
    throw new AppError(
      'VALIDATION_FAILED',
      'the address could not be placed: give latitude and longitude, or an address with a ZIP code of the voter file',
    );
  return point;
}
