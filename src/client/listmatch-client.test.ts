import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ListmatchClient, ListmatchError } from './listmatch-client.ts';

const ids = { gateway_id: 'g', function_id: 'f' };

/** A client whose fetch answers `respond` and records the requests. */
function clientAnswering(respond: (url: URL) => Response) {
  const requests: Request[] = [];
  const fetch = (async (input: Request) => {
    requests.push(input);
    return respond(new URL(input.url));
  }) as typeof globalThis.fetch;
  return { client: new ListmatchClient({ server: 'http://svc/', apiKey: 'lm_k', fetch }), requests };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

test('lookup helpers send the typed parameters as the query string with the key, and answer the body', async () => {
  const { client, requests } = clientAnswering((url) =>
    json({
      error: null,
      input: Object.fromEntries(url.searchParams),
      ...ids,
      states_updated: {},
      result: [],
      result_size: 0,
    }),
  );
  const answer = await client.phoneSearch(['5551234567', '5559876543'], { profile_id: 'p1' });
  assert.equal(answer.result_size, 0);
  const url = new URL(requests[0]!.url);
  assert.equal(url.pathname, '/person/phone-search');
  assert.equal(url.searchParams.get('phones'), '5551234567,5559876543');
  assert.equal(url.searchParams.get('profile_id'), 'p1');
  assert.equal(requests[0]!.headers.get('x-api-key'), 'lm_k');

  await client.radiusSearch({
    first_name: 'Ann',
    last_name: 'Lee',
    latitude: 40.5,
    longitude: -74,
    last_name_exact: false,
  });
  const radius = new URL(requests[1]!.url);
  assert.equal(radius.pathname, '/person/radius-search');
  assert.equal(radius.searchParams.get('latitude'), '40.5');
  assert.equal(radius.searchParams.get('last_name_exact'), 'false');
  assert.equal(radius.searchParams.has('middle_name'), false);
});

test('a lookup refused with 200 and error set throws its text and kind; a 429 carries Retry-After', async () => {
  const refusal = { error: 'Validation Error: state must be a two-letter state code', input: {}, ...ids };
  const refused = clientAnswering(() => json(refusal));
  await assert.rejects(
    refused.client.registrationCheck({ first_name: 'Ann', last_name: 'Lee', state: 'Ohio' }),
    (error: unknown) =>
      error instanceof ListmatchError &&
      error.kind === 'validation' &&
      error.status === 200 &&
      error.message === refusal.error,
  );
  const limited = clientAnswering(() =>
    json({ error: 'Rate Limit Error: too many lookups', input: {}, ...ids }, 429, { 'retry-after': '3' }),
  );
  await assert.rejects(
    limited.client.dataEnhance({ search_id: 'OH-1' }),
    (error: unknown) =>
      error instanceof ListmatchError && error.kind === 'rate_limit' && error.retryAfterSeconds === 3,
  );
});
