/**
 * Precision and recall of a result's rank-1 matches against a generated list's truth
 * (`matchback_id,voterbase_id,…`; an empty voterbase_id marks a non-member, `A|B` a couple row's
 * two people, either of them right). The generated lists
 * have `matchback_id` first and never quote it; the service's own columns are counted from the
 * end, since a quoted input cell may hold commas and the service's columns never do.
 */
export function rankOneQuality(result: string, truthCsv: string): { precision: number; recall: number } {
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
  let right = 0;
  let wrong = 0;
  for (const line of lines.slice(1)) {
    const fields = line.split(',');
    const at = (name: string) => fields[fields.length - fromEnd(name)];
    if (at('sm.rank') !== '1' || at('sm.match') !== 'Y') continue;
    // A couple row (`first_name_combined`) names both people: either is right.
    const ids = truth.get(fields[0]!)?.split('|') ?? [];
    if (ids.includes(at('vb.voterbase_id') ?? '')) right++;
    else wrong++;
  }
  const members = [...truth.values()].filter((id) => id !== '' && id !== undefined).length;
  return { precision: right / Math.max(1, right + wrong), recall: right / Math.max(1, members) };
}
