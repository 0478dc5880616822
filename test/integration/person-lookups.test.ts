import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LookupAdmin } from '../../src/domain/lookups/lookup-admin.ts';
import { LOOKUP_RIGHTS } from '../../src/domain/lookups/lookup-rights.ts';
import { DEFAULT_LOOKUP_THRESHOLDS, PersonLookups } from '../../src/domain/lookups/person-lookups.ts';
import {
  getJson,
  register,
  startTestService,
  type TestService,
  upload,
  waitForResult,
} from '../support/test-service.ts';

const CLI = fileURLToPath(new URL('../../bin/listmatch.js', import.meta.url));

/**
 * A query string as Python's `requests` builds it from a params dict: None left out, booleans as
 * True/False, a list as the parameter repeated (clients.md, "Person and voter lookups").
 */
function requestsQuery(
  params: Record<string, string | number | boolean | null | (string | number)[]>,
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === null) continue;
    if (Array.isArray(value)) for (const item of value) query.append(name, String(item));
    else query.append(name, typeof value === 'boolean' ? (value ? 'True' : 'False') : String(value));
  }
  return query.toString();
}

type Voter = Record<string, string>;

function readVoters(path: string): Voter[] {
  const [header, ...lines] = readFileSync(path, 'utf8').trimEnd().split('\n');
  const columns = header!.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((value, i) => [columns[i]!, value])));
}

describe('person and voter lookups against a synthetic voter file, as the real clients call them', () => {
  let t: TestService;
  let key: string;
  let keyId: string;
  let bareKey: string;
  let voters: Voter[];
  const logs: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'lookups-'));

  before(async () => {
    const file = ncOhVoters(dir, 7);
    voters = readVoters(file);
    t = await startTestService(
      {
        LOG_LEVEL: 'debug',
        LOOKUP_REFRESH_SECONDS: '0.2',
        LOOKUP_RATE_PER_SECOND: '100000',
        RATE_LIMIT_POLL_SECONDS: '0',
      },
      { voters: false, logStream: { write: (line) => logs.push(line) } },
    );
    await t.running.services.voters.importFile(file, { replace: true });
    ({ key, id: keyId } = await t.createKey());
    await t.running.services.keys.setProfile(keyId, 'default', {
      appendedFields: [
        { source: 'party', as: 'party' },
        { source: 'area_type', as: 'area_type' },
      ],
    });
    await new LookupAdmin(t.running.services.lookupStore, t.running.services.keys).grant(keyId, {
      rights: [...LOOKUP_RIGHTS],
    });
    bareKey = (await t.createKey({ name: 'no lookups' })).key;
  });
  after(async () => {
    await t.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A voter whose full name and birth year no other voter of its state shares. */
  const uniqueVoter = (predicate: (v: Voter) => boolean = () => true): Voter => {
    const seen = new Map<string, number>();
    const keyOf = (v: Voter) => `${v['state']}|${v['first_name']}|${v['last_name']}|${v['dob']!.slice(0, 4)}`;
    for (const v of voters) seen.set(keyOf(v), (seen.get(keyOf(v)) ?? 0) + 1);
    const found = voters.find((v) => seen.get(keyOf(v)) === 1 && /^\d{8}$/.test(v['dob']!) && predicate(v));
    assert.ok(found, 'the synthetic file has a voter to look up');
    return found;
  };
  const get = (path: string, apiKey = key) => getJson(`${t.base}${path}`, apiKey);

  test('the registration-check tool: first, last, state and the birth year as 1961*; result, too_many, result_set[0]["vb.vf_voter_status"]', async () => {
    const v = uniqueVoter();
    const params = {
      first_name: v['first_name']!.toLowerCase(),
      last_name: v['last_name']!,
      state: v['state']!,
      street_number: null,
      street_name: null,
      zip_code: v['zip']!,
      city: null,
      dob: `${v['dob']!.slice(0, 4)}*`,
      phone: null,
      email: null,
    };
    const { status, body } = await get(`/voter/voter-registration-check?${requestsQuery(params)}`);
    assert.equal(status, 200);
    assert.equal(body['error'], null);
    assert.equal(body['result'], true);
    assert.equal(body['too_many'], false);
    const record = (body['result_set'] as Record<string, unknown>[])[0]!;
    assert.equal(record['vb.voterbase_id'], v['voterbase_id']);
    assert.equal(record['vb.vf_voter_status'], v['registration_status'] === 'ACTIVE' ? 'Active' : 'Inactive');
    assert.equal(record['vb.voterbase_registration_status'], 'Registered');
    assert.equal(record['vb.party'], v['party']);
    assert.match(String(body['gateway_id']), /^[0-9a-f-]{36}$/);
    assert.match(String(body['function_id']), /^[0-9a-f-]{36}$/);
    assert.deepEqual(Object.keys(body['states_updated'] as object), ['NC', 'OH']);
    assert.match(Object.values(body['states_updated'] as object)[0] as string, /^\d{8}$/);
    assert.deepEqual(
      body['input'],
      Object.fromEntries(Object.entries(params).filter(([, value]) => value !== null)),
    );
  });

  test('conservative: a wrong birth year confirms nobody; namesakes that cannot be told apart answer too_many', async () => {
    const v = uniqueVoter();
    const wrongYear = await get(
      `/voter/voter-registration-check?${requestsQuery({ first_name: v['first_name']!, last_name: 'Zzyzxqwerty', state: v['state']!, dob: `${v['dob']!.slice(0, 4)}*` })}`,
    );
    assert.equal(wrongYear.body['result'], false);
    assert.deepEqual(wrongYear.body['result_set'], []);
    // Namesakes in one ZIP (a father and son): asked by name and ZIP only, neither is confirmed.
    const byName = new Map<string, Voter[]>();
    for (const x of voters) {
      const name = `${x['state']}|${x['first_name']}|${x['last_name']}|${x['zip']}`;
      byName.set(name, [...(byName.get(name) ?? []), x]);
    }
    const twins = [...byName.values()].find((group) => group.length === 2)!;
    assert.ok(twins, 'the synthetic file has namesakes in one ZIP');
    const ambiguous = await get(
      `/voter/voter-registration-check?${requestsQuery({ first_name: twins[0]!['first_name']!, last_name: twins[0]!['last_name']!, state: twins[0]!['state']!, zip_code: twins[0]!['zip']! })}`,
    );
    assert.equal(ambiguous.body['result'], false);
    assert.equal(ambiguous.body['too_many'], true);
    assert.deepEqual(ambiguous.body['result_set'], []);
    // Household members share the surname, address and ZIP: asked by surname and address
    // with a first name of neither, no one is confirmed.
    const home = voters.find((a) =>
      voters.some(
        (b) => b !== a && b['household_id'] === a['household_id'] && b['last_name'] === a['last_name'],
      ),
    )!;
    const [number, ...street] = home['address1']!.split(' ');
    const household = await get(
      `/voter/voter-registration-check?${requestsQuery({ first_name: 'X', last_name: home['last_name']!, state: home['state']!, street_number: number!, street_name: street.join(' '), zip_code: home['zip']! })}`,
    );
    assert.equal(household.body['result'], false);
  });

  test('the connector: data_enhance by voterbase id, voter id + state, phone; radius_search; phone (repeated phones)', async () => {
    const v = uniqueVoter((x) => x['wireless_phone'] !== '' && x['latitude'] !== '');
    const byId = await get(
      `/person/data-enhance?${requestsQuery({ search_id: v['voterbase_id']!, search_id_type: 'voterbase', state: null })}`,
    );
    assert.equal(byId.body['error'], null);
    assert.equal(byId.body['match_found'], true);
    assert.equal(byId.body['output_size'], 1);
    assert.equal((byId.body['output'] as Voter[])[0]!['vb.voterbase_id'], v['voterbase_id']);
    const byVoterId = await get(
      `/person/data-enhance?${requestsQuery({ search_id: v['voter_id']!.replace(/^0+/, ''), search_id_type: 'voter', state: v['state']! })}`,
    );
    assert.equal((byVoterId.body['output'] as Voter[])[0]!['vb.voterbase_id'], v['voterbase_id']);
    const noState = await get(
      `/person/data-enhance?${requestsQuery({ search_id: v['voter_id']!, search_id_type: 'voter' })}`,
    );
    assert.equal(noState.status, 200);
    assert.match(String(noState.body['error']), /^Validation Error: state is required/);

    const radius = await get(
      `/person/radius-search?${requestsQuery({
        first_name: v['first_name']!,
        last_name: v['last_name']!,
        middle_name: null,
        name_suffix: null,
        latitude: v['latitude']!,
        longitude: v['longitude']!,
        address: null,
        radius_size: 5,
        radius_unit: 'miles',
        max_results: 5,
        gender: 'a',
        composite_score_min: 1,
        composite_score_max: 100,
        last_name_exact: true,
        last_name_is_prefix: false,
      })}`,
    );
    assert.equal(radius.body['error'], null);
    const output = radius.body['output'] as Record<string, unknown>[];
    assert.ok(output.length >= 1 && output.length <= 5);
    const best = output[0]!;
    assert.equal((best['data_fields'] as Voter)['vb.voterbase_id'], v['voterbase_id']);
    for (const field of [
      'similarity_score',
      'distance_km',
      'distance_meters',
      'distance_miles',
      'distance_feet',
      'proximity_score',
      'composite_score',
      'uniqueness_score',
    ])
      assert.equal(typeof best[field], 'number', field);
    assert.equal(best['confidence_indicator'], 'Excellent Match');
    assert.equal(radius.body['search_latitude'], Number(v['latitude']));

    const other = voters.find((x) => x['landline_phone'] !== '' && x !== v)!;
    const phones = await get(
      `/person/phone-search?${requestsQuery({ phones: [v['wireless_phone']!, `${other['landline_phone']},5555550000`] })}`,
    );
    assert.equal(phones.body['error'], null);
    const result = phones.body['result'] as Voter[];
    assert.ok(
      result.some((r) => r['phone'] === v['wireless_phone'] && r['vb.voterbase_id'] === v['voterbase_id']),
    );
    assert.ok(
      result.some(
        (r) => r['phone'] === other['landline_phone'] && r['vb.voterbase_id'] === other['voterbase_id'],
      ),
    );
  });

  test('e-mail search: individual and household', async () => {
    const v = voters.find(
      (x) => x['email'] !== '' && voters.filter((y) => y['household_id'] === x['household_id']).length > 1,
    );
    assert.ok(v, 'a voter with an e-mail address in a household of several');
    const single = await get(
      `/person/email-search?${requestsQuery({ emails: v['email']!, match_type: 'I' })}`,
    );
    assert.equal(single.body['error'], null);
    assert.deepEqual(
      (single.body['result'] as Voter[]).map((r) => r['vb.voterbase_id']),
      [v['voterbase_id']],
    );
    assert.ok(single.body['states_updated']);
    const home = await get(`/person/email-search?${requestsQuery({ emails: v['email']!, match_type: 'H' })}`);
    const ids = (home.body['result'] as Voter[]).map((r) => r['vb.voterbase_id']);
    assert.equal(ids[0], v['voterbase_id']);
    for (const id of ids) {
      const member = voters.find((x) => x['voterbase_id'] === id)!;
      assert.equal(member['address1'], v['address1']);
    }
  });

  test('the same person asked singly and in a list: the same voter and sm.explain', async () => {
    const v = uniqueVoter((x) => x['address1'] !== '');
    const single = await get(
      `/voter/voter-registration-check?${requestsQuery({ first_name: v['first_name']!, last_name: v['last_name']!, state: v['state']!, zip_code: v['zip']!, dob: v['dob']! })}`,
    );
    const record = (single.body['result_set'] as Record<string, unknown>[])[0]!;
    const url = await register(t, key, 'filename=single_vs_list');
    await upload(
      url,
      `first_name,last_name,state,zip,dob\n${v['first_name']},${v['last_name']},${v['state']},${v['zip']},${v['dob']}\n`,
    );
    const { url: resultUrl } = await waitForResult(t, key, 'single_vs_list', 30_000);
    const [header, row] = (await (await fetch(resultUrl)).text()).trimEnd().split('\n');
    const cells = Object.fromEntries(header!.split(',').map((name, i) => [name, row!.split(',')[i]]));
    assert.equal(cells['vb.voterbase_id'], record['vb.voterbase_id']);
    assert.equal(cells['sm.explain'], record['sm.explain']);
  });

  test('rights, keys and validation (clients.md 7, 30): 200 with the error for a valid key, 401 without one', async () => {
    const refused = await get('/person/data-enhance?search_id=NC-1', bareKey);
    assert.equal(refused.status, 200);
    assert.match(
      String(refused.body['error']),
      /^Authorization Error: this API key may not use \/person\/data-enhance/,
    );
    assert.deepEqual(refused.body['input'], { search_id: 'NC-1' });
    const noKey = await getJson(`${t.base}/person/data-enhance?search_id=NC-1`);
    assert.equal(noKey.status, 401);
    assert.match(String(noKey.body['error']), /^Authorization Error:/);
    const tooMany = await get(
      `/person/phone-search?phones=${Array.from({ length: 501 }, (_, i) => 9195550000 + i).join(',')}`,
    );
    assert.equal(tooMany.status, 200);
    assert.equal(tooMany.body['error'], 'Validation Error: at most 500 phones per request');
    const wildcard = await get('/voter/voter-registration-check?first_name=*ob&last_name=Smith&state=NC');
    assert.match(
      String(wildcard.body['error']),
      /^Validation Error: first_name must not start with the wildcard/,
    );
    const post = await fetch(`${t.base}/person/phone-search?phones=1`, {
      method: 'POST',
      headers: { 'x-api-key': key },
    });
    assert.equal(post.status, 405);
  });

  test('a spent daily quota answers 429 with Retry-After until UTC midnight', async () => {
    const { key: small, id } = await t.createKey({ name: 'small quota' });
    await new LookupAdmin(t.running.services.lookupStore, t.running.services.keys).grant(id, {
      rights: ['phone_search'],
      dailyQuota: 3,
    });
    assert.equal((await get('/person/phone-search?phones=9195550101,9195550102', small)).body['error'], null);
    const over = await get('/person/phone-search?phones=9195550103,9195550104', small);
    assert.equal(over.status, 429);
    assert.match(String(over.body['error']), /^Rate Limit Error: this API key's daily quota of 3 persons/);
    const wait = Number(over.headers.get('retry-after'));
    assert.ok(wait >= 1 && wait <= 86_400);
    assert.equal((await get('/person/phone-search?phones=9195550105', small)).body['error'], null);
  });

  test('every lookup is counted per key; nothing of a query reaches the log', async () => {
    const v = uniqueVoter();
    await get(`/person/phone-search?phones=${v['wireless_phone'] || '9195550101'},9195550102`);
    await t.running.services.lookups!.flush();
    const usage = await new LookupAdmin(t.running.services.lookupStore, t.running.services.keys).usage(1);
    const phone = usage.find((row) => row.keyId === keyId && row.right === 'phone_search')!;
    assert.ok(phone.requests >= 2 && phone.persons >= 4);
    assert.ok(usage.some((row) => row.keyId === keyId && row.right === 'registration_check'));
    const text = logs.join('');
    assert.ok(text.includes('/person/phone-search'), 'requests are logged (by path)');
    for (const secret of [v['last_name']!, v['voterbase_id']!, '9195550102', key])
      assert.ok(!text.includes(secret), 'no query value in the log');
  });

  test('a newly published voter file is swapped in without a failed request', async () => {
    const next = join(dir, 'next.csv');
    execFileSync(process.execPath, [
      CLI,
      'generate',
      'voters',
      '--rows',
      '2000',
      '--seed',
      '8',
      '--states',
      'NC',
      '--out',
      next,
    ]);
    const nextVoter = readVoters(next)[0]!;
    let failures = 0;
    let running = true;
    const load = (async () => {
      while (running) {
        const { status, body } = await get('/person/data-enhance?search_id=NC-1');
        if (status !== 200 || body['error'] !== null) failures++;
      }
    })();
    await t.running.services.voters.importFile(next, { replace: true });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { body } = await get(`/person/data-enhance?search_id=${nextVoter['voterbase_id']}`);
      if (body['match_found'] === true) break;
      assert.ok(Date.now() < deadline, 'the new voter file answers within the refresh interval');
      await new Promise((r) => setTimeout(r, 50));
    }
    running = false;
    await load;
    assert.equal(failures, 0);
  });
});

/** 3,000 generated voters of NC and OH (seeded), written to `dir`: the file's path. */
function ncOhVoters(dir: string, seed: number): string {
  const file = join(dir, 'voters.csv');
  execFileSync(process.execPath, [
    CLI,
    'generate',
    'voters',
    '--rows',
    '3000',
    '--seed',
    String(seed),
    '--states',
    'NC,OH',
    '--out',
    file,
  ]);
  return file;
}

describe('lookups on a sharded voter file', () => {
  test('ask only the shards a request can touch (a list row’s), and answer as the whole file does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lookups-sharded-'));
    const file = ncOhVoters(dir, 7);
    const voters = readVoters(file);
    const t = await startTestService(
      { VOTER_SHARD_MAX_ROWS: '1000', LOOKUP_RATE_PER_SECOND: '100000' },
      { voters: false },
    );
    try {
      await t.running.services.voters.importFile(file, { replace: true });
      const { key, id } = await t.createKey();
      await new LookupAdmin(t.running.services.lookupStore, t.running.services.keys).grant(id, {
        rights: [...LOOKUP_RIGHTS],
      });
      const lookups = t.running.services.lookups!;
      const sharded = (await lookups.voterFile())!;
      assert.ok(sharded.shards >= 2, 'the file is sharded');
      assert.deepEqual(sharded.openedShards(), []);
      const v = voters.find((x) => x['state'] === 'OH' && /^\d{8}$/.test(x['dob']!))!;
      const ohio = sharded.map!.shards.flatMap((shard, i) => (shard.state === 'OH' ? [i] : []));
      // An id names its state: only Ohio's shards are opened.
      const byId = await getJson(`${t.base}/person/data-enhance?search_id=${v['voterbase_id']}`, key);
      assert.equal((byId.body['output'] as Voter[])[0]!['vb.voterbase_id'], v['voterbase_id']);
      assert.ok(
        sharded.openedShards().length > 0 && sharded.openedShards().every((i) => ohio.includes(i)),
        'only Ohio shards were opened',
      );
      // A birth date's keys name no place: the check asks every shard, as a list row with a birth
      // date is matched in every shard, and gets the answer the whole file gives.
      const { body } = await getJson(
        `${t.base}/voter/voter-registration-check?${requestsQuery({ first_name: v['first_name']!, last_name: v['last_name']!, state: 'OH', zip_code: v['zip']!, dob: v['dob']! })}`,
        key,
      );
      assert.equal(body['error'], null);
      assert.equal(body['result'], true);
      assert.equal((body['result_set'] as Voter[])[0]!['vb.voterbase_id'], v['voterbase_id']);
      assert.equal(sharded.openedShards().length, sharded.shards, 'every shard was asked');
      assert.deepEqual(Object.keys(body['states_updated'] as object), ['NC', 'OH']);
    } finally {
      await t.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('lookups on a sharded voter file, weighed as the whole file', () => {
  test('give each person the voters, scores and explanations the same file imported whole gives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lookups-same-'));
    const file = ncOhVoters(dir, 9);
    const voters = readVoters(file);
    const dated = voters.filter((v) => /^\d{8}$/.test(v['dob']!));
    // A namesake born the same day in the other state: each shard alone is sure of its own, the
    // file as a whole cannot tell them apart (neither reaches the selecting threshold, 60 here).
    const ohio = dated.find((v) => v['state'] === 'OH')!;
    const carolina = voters.find((v) => v['state'] === 'NC')!;
    const columns = readFileSync(file, 'utf8').split('\n', 1)[0]!.split(',');
    const twin: Voter = {
      ...carolina,
      voterbase_id: 'NC-999999991',
      voter_id: '9999999991',
      smartvan_id: '999999991',
      exact_track: 'ETZZZZZZZZZ1',
      first_name: ohio['first_name']!,
      middle_name: '',
      last_name: ohio['last_name']!,
      dob: ohio['dob']!,
      email: '',
      landline_phone: '',
      wireless_phone: '',
      voip_phone: '',
      household_id: 'HH9999999991',
    };
    appendFileSync(file, `${columns.map((c) => twin[c] ?? '').join(',')}\n`);
    const asked: Partial<Record<'first_name' | 'last_name' | 'dob' | 'state' | 'zip', string>>[] = [
      { first_name: ohio['first_name']!, last_name: ohio['last_name']!, dob: ohio['dob']! },
      ...dated
        .slice(0, 40)
        .map((v) => ({ first_name: v['first_name']!, last_name: v['last_name']!, dob: v['dob']! })),
      ...voters
        .slice(100, 120)
        .map((v) => ({ first_name: v['first_name']!, last_name: v['last_name']!, zip: v['zip']! })),
    ];
    const answers = async (env: Record<string, string>) => {
      const t = await startTestService(env, { voters: false });
      try {
        await t.running.services.voters.importFile(file, { replace: true });
        const voterFile = (await t.running.services.lookups!.voterFile())!;
        const lookups = new PersonLookups(voterFile, [], DEFAULT_LOOKUP_THRESHOLDS);
        const found: string[][] = [];
        for (const fields of asked) {
          const matches = await lookups.match(fields, 2);
          found.push(
            matches.map(
              ({ part, candidate }) =>
                `${lookups.record(part, candidate.voter)['vb.voterbase_id']} ${candidate.score} ${candidate.explain}`,
            ),
          );
        }
        return { found, shards: voterFile.shards };
      } finally {
        await t.stop();
      }
    };
    try {
      const selecting = { LOOKUP_AMBIGUOUS_SCORE: '60', LOOKUP_CONTACT_SCORE: '60' };
      const sharded = await answers({ ...selecting, VOTER_SHARD_MAX_ROWS: '1000' });
      const whole = await answers(selecting);
      assert.ok(
        sharded.shards >= 2 && whole.shards === 1,
        `${sharded.shards} shards against ${whole.shards}`,
      );
      assert.deepEqual(whole.found[0], [], 'the twins split the odds: neither is selected');
      assert.ok(whole.found.filter((f) => f.length > 0).length >= 40, 'most people are found');
      assert.deepEqual(sharded.found, whole.found);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
