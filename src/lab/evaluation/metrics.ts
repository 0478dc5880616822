/**
 * Match-quality metrics of one evaluation run: the matcher's ranked candidates per input row,
 * judged against ground truth. Pure (no I/O) and streaming: {@link MetricsAccumulator} takes one
 * row at a time and keeps only counts, so a 10M-row list costs no more memory than a tiny one.
 *
 * Vocabulary (every figure below is defined from these):
 * - **row**: one input row of the list that has a truth entry.
 * - **member**: a row whose truth names at least one voter (`voterbase_id` not empty). A row
 *   whose truth names several (a couple: `A|B`) is one member; matching any of them is correct.
 * - **non-member**: a row whose truth is empty: the right answer is "no match".
 * - **prediction**: a row with a rank-1 candidate (the best match the client receives).
 * - **correct**: a prediction whose rank-1 `voterbase_id` is one of the row's true voters.
 *   Only rank 1 counts: a true voter at rank 2 with the same score as rank 1 (a tie) is not
 *   correct, but is counted in recall@2 and in `tiedAtRank1`.
 * - **score**: the rank-1 candidate's score, clamped to 0-100.
 */

/** One candidate of one row, in rank order. */
export interface RankedCandidate {
  voterbaseId: string;
  /** 0-100. */
  score: number;
  method: string;
  /** sm.explain, when the result carried it. */
  explain?: string;
}

/** Ground truth of one list row. */
export interface TruthEntry {
  /** True voters: empty for a non-member; several for a couple row (any of them is correct). */
  voterbaseIds: readonly string[];
  /** The row's input pattern (`all` when the truth file has no pattern column). */
  pattern: string;
  /** Error tags applied to the row (may be empty). */
  errors: readonly string[];
}

/** One list row as the evaluation sees it: its truth and the matcher's candidates (rank 1 first). */
export interface EvaluatedRow {
  truth: TruthEntry;
  candidates: readonly RankedCandidate[];
}

/** Counts and rates of one group of rows (all rows, one pattern, or one error tag). */
export interface QualityFigures {
  rows: number;
  members: number;
  nonMembers: number;
  /** Rows with a rank-1 candidate. */
  predictions: number;
  /** Predictions whose rank-1 voter is a true voter of the row. */
  correct: number;
  /** Predictions on members whose rank-1 voter is not a true voter. */
  wrongVoter: number;
  /** Predictions on non-members (every one is wrong). */
  nonMemberPredicted: number;
  /** precision = correct / predictions; null ("n/a") when there are no predictions. */
  precision: number | null;
  /** recall = correct / members; null ("n/a") when there are no members. */
  recall: number | null;
  /**
   * F1 = 2 · precision · recall / (precision + recall); 0 when both are 0; null when either is
   * null.
   */
  f1: number | null;
  /** matchRate = predictions / rows; null when there are no rows. */
  matchRate: number | null;
  /**
   * recall@k for k = 1..maxK: (members with a true voter among ranks 1..k) / members; null
   * when there are no members. recall@1 equals recall.
   */
  recallAtK: (number | null)[];
  /** Predictions whose rank-2 candidate has the same score as rank 1 (an ambiguous best match). */
  tiedAtRank1: number;
}

/** Rank-1 matches found by one method (the strategy in `sm.method`). */
export interface MethodFigures {
  method: string;
  predictions: number;
  correct: number;
  /** correct / predictions (never null: a method appears only when it predicted). */
  precision: number;
  /** predictions / all predictions. */
  share: number;
}

/** Quality figures of the rows carrying one error tag (a row with two tags counts in both). */
export interface ErrorTagFigures extends QualityFigures {
  tag: string;
}

/** One score band of the calibration table. */
export interface CalibrationBand {
  /** Inclusive bounds: 0-9, 10-19, …, 80-89, 90-100. */
  from: number;
  to: number;
  /** Predictions whose score falls in the band. */
  count: number;
  correct: number;
  /** correct / count; null when the band is empty. */
  fractionCorrect: number | null;
  /** Mean score of the band's predictions, 0-100; null when empty. */
  meanScore: number | null;
}

/** One point of the precision-recall curve over the acceptance threshold. */
export interface ThresholdPoint {
  /** Predictions are accepted when their score ≥ threshold. */
  threshold: number;
  predictions: number;
  correct: number;
  /** correct(t) / predictions(t); null when nothing is accepted. */
  precision: number | null;
  /** correct(t) / members; null when there are no members. */
  recall: number | null;
  /** predictions(t) / rows; null when there are no rows. */
  matchRate: number | null;
}

/** Histogram bin of rank-1 scores: [from, to] inclusive; the last bin ends at 100. */
export interface ScoreBin {
  from: number;
  to: number;
  correct: number;
  incorrect: number;
}

export interface EvaluationMetrics {
  /** The deepest rank evaluated (the run's max_matches). */
  maxK: number;
  overall: QualityFigures;
  /** Per input pattern, sorted by pattern name. */
  byPattern: ({ pattern: string } & QualityFigures)[];
  /** Per rank-1 method, most predictions first. */
  byMethod: MethodFigures[];
  /** Per error tag, sorted by tag; rows without errors form the tag `(none)`. */
  byErrorTag: ErrorTagFigures[];
  calibration: CalibrationBand[];
  /**
   * Expected calibration error: ECE = Σ_b (count_b / predictions) · |fractionCorrect_b −
   * meanScore_b / 100| over the non-empty bands b. 0 is perfectly calibrated, 1 the worst; null
   * when there are no predictions.
   */
  expectedCalibrationError: number | null;
  /** Thresholds 0..100. predictions(t), correct(t) and recall(t) never increase with t. */
  thresholdCurve: ThresholdPoint[];
  /** Rank-1 scores of correct and incorrect predictions in bins of 5 (0-4, …, 90-94, 95-100). */
  scoreHistogram: ScoreBin[];
}

/** Label of the error-tag group of rows without errors. */
export const NO_ERRORS_TAG = '(none)';
const BAND_WIDTH = 10;
const BIN_WIDTH = 5;

/** A 0-100 score as an integer bucket: floor, clamped. `score ≥ t` ⇔ `bucket ≥ t` for integer t. */
const scoreBucket = (score: number): number =>
  Number.isFinite(score) ? Math.min(100, Math.max(0, Math.floor(score))) : 0;
const clampScore = (score: number): number =>
  Number.isFinite(score) ? Math.min(100, Math.max(0, score)) : 0;
const ratio = (numerator: number, denominator: number): number | null =>
  denominator === 0 ? null : numerator / denominator;

/** Counters of one group; turned into {@link QualityFigures} at the end. */
class GroupCounts {
  rows = 0;
  members = 0;
  predictions = 0;
  correct = 0;
  wrongVoter = 0;
  nonMemberPredicted = 0;
  tiedAtRank1 = 0;
  /** foundAtRank[r-1]: members whose first true voter is at rank r. */
  readonly foundAtRank: number[];

  constructor(maxK: number) {
    this.foundAtRank = new Array<number>(maxK).fill(0);
  }

  add(isMember: boolean, predicted: boolean, correct: boolean, firstTrueRank: number, tied: boolean): void {
    this.rows++;
    if (isMember) this.members++;
    if (predicted) {
      this.predictions++;
      if (correct) this.correct++;
      else if (isMember) this.wrongVoter++;
      else this.nonMemberPredicted++;
      if (tied) this.tiedAtRank1++;
    }
    if (firstTrueRank >= 1 && firstTrueRank <= this.foundAtRank.length)
      this.foundAtRank[firstTrueRank - 1]!++;
  }

  figures(): QualityFigures {
    const precision = ratio(this.correct, this.predictions);
    const recall = ratio(this.correct, this.members);
    let found = 0;
    const recallAtK = this.foundAtRank.map((n) => {
      found += n;
      return ratio(found, this.members);
    });
    return {
      rows: this.rows,
      members: this.members,
      nonMembers: this.rows - this.members,
      predictions: this.predictions,
      correct: this.correct,
      wrongVoter: this.wrongVoter,
      nonMemberPredicted: this.nonMemberPredicted,
      precision,
      recall,
      f1: f1Score(precision, recall),
      matchRate: ratio(this.predictions, this.rows),
      recallAtK,
      tiedAtRank1: this.tiedAtRank1,
    };
  }
}

/** F1 = 2PR/(P+R); 0 when P = R = 0; null when either is unknown. */
export function f1Score(precision: number | null, recall: number | null): number | null {
  if (precision === null || recall === null) return null;
  if (precision + recall === 0) return 0;
  return (2 * precision * recall) / (precision + recall);
}

/** Collects rows one at a time; {@link MetricsAccumulator.result} computes every figure. */
export class MetricsAccumulator {
  readonly maxK: number;
  private readonly overall: GroupCounts;
  private readonly patterns = new Map<string, GroupCounts>();
  private readonly tags = new Map<string, GroupCounts>();
  private readonly methods = new Map<string, { predictions: number; correct: number }>();
  /** Per integer score bucket 0..100: rank-1 predictions and how many were correct. */
  private readonly predictedAt = new Array<number>(101).fill(0);
  private readonly correctAt = new Array<number>(101).fill(0);
  /** Per calibration band: the sum of exact (clamped) scores, for the band's mean. */
  private readonly bandScoreSums = new Array<number>(100 / BAND_WIDTH).fill(0);

  /** @param maxK the deepest rank to evaluate (max_matches of the run), ≥ 1. */
  constructor(maxK: number) {
    if (!Number.isInteger(maxK) || maxK < 1) throw new RangeError('maxK must be an integer ≥ 1');
    this.maxK = maxK;
    this.overall = new GroupCounts(maxK);
  }

  add(row: EvaluatedRow): void {
    const truth = row.truth.voterbaseIds;
    const isMember = truth.length > 0;
    const best = row.candidates[0];
    const predicted = best !== undefined;
    const correct = predicted && truth.includes(best.voterbaseId);
    let firstTrueRank = 0;
    if (isMember) {
      const depth = Math.min(row.candidates.length, this.maxK);
      for (let r = 0; r < depth; r++) {
        if (truth.includes(row.candidates[r]!.voterbaseId)) {
          firstTrueRank = r + 1;
          break;
        }
      }
    }
    const second = row.candidates[1];
    const tied = predicted && second !== undefined && clampScore(second.score) === clampScore(best.score);

    this.overall.add(isMember, predicted, correct, firstTrueRank, tied);
    this.group(this.patterns, row.truth.pattern).add(isMember, predicted, correct, firstTrueRank, tied);
    const tags = row.truth.errors.length === 0 ? [NO_ERRORS_TAG] : new Set(row.truth.errors);
    for (const tag of tags) this.group(this.tags, tag).add(isMember, predicted, correct, firstTrueRank, tied);

    if (predicted) {
      const method = this.methods.get(best.method) ?? { predictions: 0, correct: 0 };
      method.predictions++;
      if (correct) method.correct++;
      this.methods.set(best.method, method);
      const bucket = scoreBucket(best.score);
      this.predictedAt[bucket]!++;
      if (correct) this.correctAt[bucket]!++;
      this.bandScoreSums[bandOf(bucket)]! += clampScore(best.score);
    }
  }

  result(): EvaluationMetrics {
    const overall = this.overall.figures();
    const calibration = this.calibration();
    return {
      maxK: this.maxK,
      overall,
      byPattern: [...this.patterns]
        .sort(([a], [b]) => compareText(a, b))
        .map(([pattern, counts]) => ({ pattern, ...counts.figures() })),
      byMethod: [...this.methods]
        .map(([method, m]) => ({
          method,
          predictions: m.predictions,
          correct: m.correct,
          precision: m.correct / m.predictions,
          share: m.predictions / overall.predictions,
        }))
        .sort((a, b) => b.predictions - a.predictions || compareText(a.method, b.method)),
      byErrorTag: [...this.tags]
        .sort(([a], [b]) => compareText(a, b))
        .map(([tag, counts]) => ({ tag, ...counts.figures() })),
      calibration,
      expectedCalibrationError: expectedCalibrationError(calibration, overall.predictions),
      thresholdCurve: this.thresholdCurve(overall),
      scoreHistogram: this.histogram(),
    };
  }

  private group(map: Map<string, GroupCounts>, key: string): GroupCounts {
    let counts = map.get(key);
    if (counts === undefined) {
      counts = new GroupCounts(this.maxK);
      map.set(key, counts);
    }
    return counts;
  }

  private calibration(): CalibrationBand[] {
    const bands: CalibrationBand[] = [];
    for (let b = 0; b < 100 / BAND_WIDTH; b++) {
      const from = b * BAND_WIDTH;
      const to = b === 100 / BAND_WIDTH - 1 ? 100 : from + BAND_WIDTH - 1;
      let count = 0;
      let correct = 0;
      for (let s = from; s <= to; s++) {
        count += this.predictedAt[s]!;
        correct += this.correctAt[s]!;
      }
      bands.push({
        from,
        to,
        count,
        correct,
        fractionCorrect: ratio(correct, count),
        meanScore: ratio(this.bandScoreSums[b]!, count),
      });
    }
    return bands;
  }

  private thresholdCurve(overall: QualityFigures): ThresholdPoint[] {
    const points: ThresholdPoint[] = [];
    let predictions = 0;
    let correct = 0;
    // Cumulative from the top: accepted(t) = Σ_{s ≥ t} predictedAt[s].
    for (let t = 100; t >= 0; t--) {
      predictions += this.predictedAt[t]!;
      correct += this.correctAt[t]!;
      points.push({
        threshold: t,
        predictions,
        correct,
        precision: ratio(correct, predictions),
        recall: ratio(correct, overall.members),
        matchRate: ratio(predictions, overall.rows),
      });
    }
    return points.reverse();
  }

  private histogram(): ScoreBin[] {
    const bins: ScoreBin[] = [];
    const last = 100 / BIN_WIDTH - 1;
    for (let b = 0; b <= last; b++) {
      const from = b * BIN_WIDTH;
      const to = b === last ? 100 : from + BIN_WIDTH - 1;
      let correct = 0;
      let all = 0;
      for (let s = from; s <= to; s++) {
        correct += this.correctAt[s]!;
        all += this.predictedAt[s]!;
      }
      bins.push({ from, to, correct, incorrect: all - correct });
    }
    return bins;
  }
}

/** Calibration band of an integer score bucket: 0-9 → 0, …, 90-100 → 9. */
const bandOf = (bucket: number): number => Math.min(100 / BAND_WIDTH - 1, Math.floor(bucket / BAND_WIDTH));

/** ECE = Σ_b (count_b / N) · |fractionCorrect_b − meanScore_b / 100|; null when N = 0. */
export function expectedCalibrationError(
  bands: readonly CalibrationBand[],
  predictions: number,
): number | null {
  if (predictions === 0) return null;
  let ece = 0;
  for (const band of bands) {
    if (band.count === 0 || band.fractionCorrect === null || band.meanScore === null) continue;
    ece += (band.count / predictions) * Math.abs(band.fractionCorrect - band.meanScore / 100);
  }
  return ece;
}

/** Every figure of a set of rows (convenience over {@link MetricsAccumulator}). */
export function computeMetrics(rows: Iterable<EvaluatedRow>, maxK: number): EvaluationMetrics {
  const accumulator = new MetricsAccumulator(maxK);
  for (const row of rows) accumulator.add(row);
  return accumulator.result();
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
