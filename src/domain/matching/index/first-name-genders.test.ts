import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FirstNameGenderCount } from './first-name-genders.ts';
import { GENDER_CODE } from './match-index-fields.ts';

describe('FirstNameGenderCount', () => {
  const { F, M } = GENDER_CODE;
  const count = (firstNames: number, voters: [id: number, gender: number, times: number][]) => {
    const counter = new FirstNameGenderCount(firstNames);
    for (const [id, gender, times] of voters) for (let i = 0; i < times; i++) counter.add(id, gender);
    return counter.genders();
  };

  it('names the gender that at least 95% of at least 5 voters share, else 0', () => {
    const genders = count(7, [
      [1, M, 5], // exactly 5, all men
      [2, F, 19], // 19 of 20 women: 95%
      [2, M, 1],
      [3, F, 18], // 18 of 20: not clear
      [3, M, 2],
      [4, F, 4], // too few voters
      [5, 0, 40], // no gender on file
      [6, M, 100],
      [6, 0, 50], // voters without a gender do not count against it
    ]);
    assert.deepEqual([...genders], [0, M, F, 0, 0, 0, M]);
  });

  it('never gives the empty name (id 0) a gender', () => {
    assert.equal(count(2, [[0, F, 50]])[0], 0);
  });
});
