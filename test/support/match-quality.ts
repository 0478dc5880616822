/**
 * How right a result's rank-1 matches are against a generated list's truth
 * (`matchback_id,voterbase_id,…`; an empty voterbase_id marks a non-member, `A|B` a couple row's
 * two people, either of them right). The generated lists have `matchback_id` first and never
 * quote it; the service's own columns are counted from the end, since a quoted input cell may
 * hold commas and the service's columns never do.
 */

/** One accepted rank-1 match (sm.match Y) and whether it is the row's person. */
interface RankOneMatch {
  score: number;
  explain: string;
  right: boolean;
}

/** The rank-1 matches of a result, judged by the truth, and the truth's member count. */
function rankOneMatches(result: string, truthCsv: string): { matches: RankOneMatch[]; members: number } {
  const truth = new Map(
    truthCsv
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',') as [string, string]),
  );
  const lines = result.trimEnd().split('\n');
  const header = lines[0]!.split(',');
  const fromEnd = (name: string) => header.length - header.indexOf(name);
  const matches: RankOneMatch[] = [];
  for (const line of lines.slice(1)) {
    const fields = line.split(',');
    const at = (name: string) => fields[fields.length - fromEnd(name)] ?? '';
    if (at('sm.rank') !== '1' || at('sm.match') !== 'Y') continue;
    // A couple row (`first_name_combined`) names both people: either is right.
    const ids = truth.get(fields[0]!)?.split('|') ?? [];
    matches.push({
      score: Number(at('sm.score')),
      explain: at('sm.explain'),
      right: ids.includes(at('vb.voterbase_id')),
    });
  }
  const members = [...truth.values()].filter((id) => id !== '' && id !== undefined).length;
  return { matches, members };
}

/** Precision and recall of a result's rank-1 matches. */
export function rankOneQuality(result: string, truthCsv: string): { precision: number; recall: number } {
  const { matches, members } = rankOneMatches(result, truthCsv);
  const right = matches.filter((m) => m.right).length;
  return { precision: right / Math.max(1, matches.length), recall: right / Math.max(1, members) };
}

/** Right and wrong rank-1 matches in one band of scores (`from` ≤ score < `to`). */
export interface ScoreBand {
  from: number;
  to: number;
  right: number;
  wrong: number;
}

/** Rank-1 matches by band of scores, possible household members apart, and the truth's members. */
export interface ScoreQuality {
  scored: ScoreBand[];
  possible: ScoreBand[];
  members: number;
}

/**
 * Rank-1 matches by score band of 10 (50-59, …, 90-100), the `possible` household members apart
 * (sm.explain names `possible`): what precision a client gets at each threshold, and whether a
 * score means what it says (the right share of a band near its middle).
 */
export function qualityByScore(result: string, truthCsv: string): ScoreQuality {
  const bands = () =>
    Array.from({ length: 5 }, (_, i) => ({
      from: 50 + 10 * i,
      to: i === 4 ? 101 : 60 + 10 * i,
      right: 0,
      wrong: 0,
    }));
  const scored: ScoreBand[] = bands();
  const possible: ScoreBand[] = bands();
  const { matches, members } = rankOneMatches(result, truthCsv);
  for (const { score, explain, right } of matches) {
    const band = (` ${explain} `.includes(' possible ') ? possible : scored).find(
      (b) => score >= b.from && score < b.to,
    );
    if (band === undefined) throw new Error(`a match scored ${score}, below every band`);
    if (right) band.right++;
    else band.wrong++;
  }
  return { scored, possible, members };
}

/** Precision and recall of the rank-1 matches scored `threshold` (50, 60, … 90) or more. */
export function atThreshold(quality: ScoreQuality, threshold: number): { precision: number; recall: number } {
  let right = 0;
  let wrong = 0;
  for (const band of [...quality.scored, ...quality.possible]) {
    if (band.from < threshold) continue;
    right += band.right;
    wrong += band.wrong;
  }
  return { precision: right / Math.max(1, right + wrong), recall: right / Math.max(1, quality.members) };
}
