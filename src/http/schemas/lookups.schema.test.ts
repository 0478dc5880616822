import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '../../domain/errors.ts';
import { parseParams } from '../request-helpers.ts';
import { registrationFields } from '../routes/person-lookups.route.ts';
import {
  dataEnhanceSchema,
  emailSearchSchema,
  phoneSearchSchema,
  radiusSearchSchema,
  registrationCheckSchema,
} from './lookups.schema.ts';

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    assert.ok(isAppError(error) && error.code === 'VALIDATION_FAILED');
    return error.message;
  }
  assert.fail('expected a validation error');
};

describe('registration check query', () => {
  it('takes what the registration-check tool sends: True/False, the birth year as 1961*', () => {
    const query = parseParams(registrationCheckSchema, {
      first_name: ' Peggy ',
      last_name: 'Smith',
      state: 'nc',
      dob: '1961*',
      zip_code: '27601',
      unknown: 'ignored',
    });
    assert.equal(query.state, 'NC');
    assert.equal(query.first_name, 'Peggy');
    assert.equal(registrationFields(query).fields.dob, '1961');
  });
  it('drops wildcard values the matcher cannot compare, keeps a dob prefix, builds the street', () => {
    const query = parseParams(registrationCheckSchema, {
      first_name: 'A',
      last_name: 'B',
      state: 'OH',
      street_number: '12',
      street_name: 'Oak St',
      city: 'Ral*',
      zip_code: '276*',
      dob: '196104*',
    });
    const { fields, parsedAddress } = registrationFields(query);
    assert.deepEqual(fields, {
      first_name: 'A',
      last_name: 'B',
      state: 'OH',
      address1: '12 Oak St',
      dob: '196104',
    });
    assert.deepEqual(parsedAddress, { street_number: '12', street_name: 'Oak St', zip_code: '' });
  });
  it('refuses hostile and malformed values without repeating them', () => {
    assert.equal(
      refusal(() => parseParams(registrationCheckSchema, {})),
      'first_name is required; last_name is required; state is required',
    );
    const message = refusal(() =>
      parseParams(registrationCheckSchema, { first_name: 'A\r\nSet-Cookie: x', last_name: 'B', state: 'NC' }),
    );
    assert.equal(message, 'first_name must not contain control characters');
    assert.match(
      refusal(() =>
        parseParams(registrationCheckSchema, {
          first_name: 'x'.repeat(100_000),
          last_name: 'B',
          state: 'NC',
        }),
      ),
      /at most 50/,
    );
    assert.match(
      refusal(() =>
        parseParams(registrationCheckSchema, { first_name: ['A', 'B'], last_name: 'B', state: 'NC' }),
      ),
      /given once/,
    );
    assert.match(
      refusal(() => parseParams(registrationCheckSchema, { first_name: 'A*', last_name: 'B', state: 'NC' })),
      /takes no wildcard/,
    );
    assert.match(
      refusal(() =>
        parseParams(registrationCheckSchema, { first_name: 'A', last_name: 'B', state: 'NC', city: 'R*l*' }),
      ),
      /only as its last/,
    );
    assert.match(
      refusal(() =>
        parseParams(registrationCheckSchema, { first_name: 'A', last_name: 'B', state: 'NC', dob: '19*' }),
      ),
      /dob must be YYYYMMDD/,
    );
    assert.match(
      refusal(() =>
        parseParams(registrationCheckSchema, {
          first_name: 'A',
          last_name: 'B',
          state: 'NC',
          unparsed_full_address: '12 Oak*',
        }),
      ),
      /takes no wildcard/,
    );
    assert.match(
      refusal(() =>
        parseParams(registrationCheckSchema, { first_name: 'A', last_name: 'B', state: 'North Carolina' }),
      ),
      /two-letter/,
    );
    assert.match(
      refusal(() =>
        parseParams(registrationCheckSchema, { first_name: 'A', last_name: 'B', state: 'NC', age: '-1' }),
      ),
      /age must be a whole number/,
    );
  });
});

describe('data-enhance, radius, phone and e-mail queries', () => {
  it('data-enhance: voterbase by default; voter, smartvan and votebuilder need a state', () => {
    assert.equal(parseParams(dataEnhanceSchema, { search_id: 'NC-1' }).search_id_type, undefined);
    assert.equal(
      refusal(() => parseParams(dataEnhanceSchema, { search_id: '1', search_id_type: 'voter' })),
      'state is required for search_id_type voter',
    );
    assert.match(
      refusal(() => parseParams(dataEnhanceSchema, { search_id: '1', search_id_type: 'ssn' })),
      /search_id_type must be one of/,
    );
  });
  it('radius search: a point or an address, at most 120 miles in any unit, bounds in order', () => {
    const query = parseParams(radiusSearchSchema, {
      first_name: 'A',
      last_name: 'B',
      latitude: '35.7',
      longitude: '-78.6',
      radius_size: '100',
      radius_unit: 'kilometers',
      last_name_exact: 'False',
      max_results: '0',
    });
    assert.equal(query.last_name_exact, false);
    assert.equal(query.max_results, 0);
    assert.match(
      refusal(() => parseParams(radiusSearchSchema, { first_name: 'A', last_name: 'B' })),
      /or an address, are required/,
    );
    assert.match(
      refusal(() => parseParams(radiusSearchSchema, { first_name: 'A', last_name: 'B', latitude: '1' })),
      /given together/,
    );
    assert.match(
      refusal(() =>
        parseParams(radiusSearchSchema, {
          first_name: 'A',
          last_name: 'B',
          address: 'x',
          radius_size: '121',
        }),
      ),
      /at most 120 miles/,
    );
    assert.match(
      refusal(() =>
        parseParams(radiusSearchSchema, { first_name: 'A', last_name: 'B', latitude: '91', longitude: '0' }),
      ),
      /latitude from -90/,
    );
    assert.match(
      refusal(() =>
        parseParams(radiusSearchSchema, { first_name: 'A', last_name: 'B', latitude: 'NaN', longitude: '0' }),
      ),
      /latitude from -90/,
    );
    assert.match(
      refusal(() =>
        parseParams(radiusSearchSchema, {
          first_name: 'A',
          last_name: 'B',
          address: 'x',
          age_min: '60',
          age_max: '30',
        }),
      ),
      /age_min must not exceed/,
    );
  });
  it('phones: repeated and comma-separated, at most 500; e-mails at most 200', () => {
    assert.deepEqual(parseParams(phoneSearchSchema, { phones: ['1', '2,3', ' ', '4'] }).phones, [
      '1',
      '2',
      '3',
      '4',
    ]);
    const many = Array.from({ length: 500 }, (_, i) => String(i)).join(',');
    assert.equal(parseParams(phoneSearchSchema, { phones: many }).phones.length, 500);
    assert.equal(
      refusal(() => parseParams(phoneSearchSchema, { phones: `${many},1` })),
      'at most 500 phones per request',
    );
    assert.equal(
      refusal(() => parseParams(phoneSearchSchema, { phones: ',,' })),
      'phones is required',
    );
    assert.match(
      refusal(() => parseParams(phoneSearchSchema, { phones: 'x'.repeat(31) })),
      /at most 30 characters/,
    );
    const emails = Array.from({ length: 201 }, (_, i) => `a${i}@example.com`);
    assert.equal(
      refusal(() => parseParams(emailSearchSchema, { emails })),
      'at most 200 emails per request',
    );
    assert.equal(parseParams(emailSearchSchema, { emails: 'a@b.co', match_type: 'h' }).match_type, 'H');
    assert.match(
      refusal(() => parseParams(emailSearchSchema, { emails: 'a@b.co', match_type: 'X' })),
      /match_type must be I/,
    );
  });
});
