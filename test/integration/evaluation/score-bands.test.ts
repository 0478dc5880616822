import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { atThreshold, qualityByScore, rankOneQuality } from '../../support/match-quality.ts';

/**
 * The benchmarks' reading of a result by score band (test/support/match-quality.ts): the national
 * quality curve's figures come from it. A quoted input cell with commas, a couple row, a possible
 * household member and a row of rank 2 are read as the service writes them.
 */
describe('quality by score band', () => {
  const header =
    'matchback_id,first_name,address1,vb.voterbase_id,sm.input_row,sm.rank,sm.match,sm.score,sm.method,sm.explain';
  const result = [
    header,
    'r1,ANN,"1 MAIN ST, APT 2",V1,1,1,Y,97,name_address,first=exact last=exact',
    'r2,BOB,,V9,2,1,Y,93,name_zip,first=exact last=exact zip=exact',
    'r2,BOB,,V2,2,2,Y,60,name_zip,first=exact last=typo zip=exact',
    'r3,CY,,V3,3,1,Y,55,name_dob,first=differ last=exact dob=exact possible',
    'r4,DEE,,V7,4,1,Y,52,name_dob,first=differ last=exact dob=exact possible ambiguous',
    'r5,EVE,,V5,5,1,Y,64,name_zip,first=exact last=exact zip=exact',
    'r6,FAY,,,6,1,N,,,',
    'r7,GUS & HAL,,V8,7,1,Y,99,name_address,first=exact last=exact',
  ].join('\n');
  const truth = [
    'matchback_id,voterbase_id,pattern,errors',
    'r1,V1,,',
    'r2,V2,,',
    'r3,V3,,',
    'r4,,,',
    'r5,V5,,',
    'r6,V6,,',
    'r7,V4|V8,,',
  ].join('\n');

  test('counts each rank-1 match in its band, possible members apart', () => {
    const quality = qualityByScore(result, truth);
    assert.equal(quality.members, 6);
    assert.deepEqual(
      quality.scored.map((b) => [b.from, b.right, b.wrong]),
      [
        [50, 0, 0],
        [60, 1, 0],
        [70, 0, 0],
        [80, 0, 0],
        [90, 2, 1],
      ],
    );
    assert.deepEqual(
      quality.possible.map((b) => [b.from, b.right, b.wrong]),
      [
        [50, 1, 1],
        [60, 0, 0],
        [70, 0, 0],
        [80, 0, 0],
        [90, 0, 0],
      ],
    );
  });

  test('precision and recall at a threshold; at 50 the same as rankOneQuality', () => {
    const quality = qualityByScore(result, truth);
    assert.deepEqual(atThreshold(quality, 50), rankOneQuality(result, truth));
    assert.deepEqual(atThreshold(quality, 50), { precision: 4 / 6, recall: 4 / 6 });
    assert.deepEqual(atThreshold(quality, 90), { precision: 2 / 3, recall: 2 / 6 });
  });

  test('a match below every band is an error, not a silent drop', () => {
    const low = `${header}\nr1,ANN,,V1,1,1,Y,30,name_zip,first=exact`;
    assert.throws(() => qualityByScore(low, truth), /scored 30/);
  });
});
