import { AppError } from '../errors.ts';
import type { AppendedField } from '../keys/key-types.ts';
import { IDENTIFIER_COLUMNS, type IdentifierColumn, type MatchInput } from '../matching/matcher.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';

/**
 * Columns the service adds right after the input columns, before the appended voter fields: what
 * warehouse code written against the documented service reads (clients.md rule 24). `ts__row`
 * is the line's number in its file (1 for the first line under the header).
 */
export const LEAD_COLUMNS = ['ts__input_row', 'ts__row', 'tsmart_match_code', 'vb.voterbase_id'] as const;

/** The service's own columns, after the appended voter fields. */
export const MATCH_COLUMNS = [
  'sm.input_row',
  'sm.rank',
  'sm.match',
  'sm.score',
  'sm.method',
  'sm.explain',
] as const;

/** The result's header: the client's columns, LEAD_COLUMNS, the appended fields, MATCH_COLUMNS. */
export const resultHeader = (header: readonly string[], layout: Pick<ListLayout, 'appendedHeaders'>) => [
  ...header,
  ...LEAD_COLUMNS,
  ...layout.appendedHeaders,
  ...MATCH_COLUMNS,
];

/** Widest header accepted: contact lists have tens of columns; thousands means a broken file. */
export const MAX_LIST_COLUMNS = 1000;

/**
 * Where a list's columns go, fixed by its header: which are identifiers, which voter fields are
 * appended, which output columns are neutralized against spreadsheet formulas. Plain data: it
 * travels to the threads that match the list's blocks.
 */
export interface ListLayout {
  /** Cells of a row (the header's width). */
  width: number;
  identifiers: [IdentifierColumn, number][];
  identifierNames: string[];
  passthroughNames: string[];
  /** Each input column's name as the header wrote it (trimmed). */
  columnNames: string[];
  appendedHeaders: string[];
  /** Voter-file positions of vb.voterbase_id then each appended field (-1: not in the voter file). */
  voterColumns: number[];
  /** The same, then the voter's state (counted per best match in the summary). */
  voterColumnsAndState: number[];
  emptyAppended: string[];
  /** Per output column: neutralized against spreadsheet formulas (the service's columns only). */
  neutralize: boolean[];
}

/** Canonical form of a header name: case, surrounding space, and space or hyphen for underscore. */
export const canonicalHeader = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/**
 * The layout of a list from its header. Refuses a header without an identifier column or with
 * too many columns; `note` receives the warnings the header gives (an id without its state, an
 * appended field the voter file lacks).
 */
export function planLayout(
  header: string[],
  appendedFields: readonly AppendedField[],
  voters: VoterSnapshot | null,
  note: (kind: string, message: string) => void,
): ListLayout {
  if (header.length > MAX_LIST_COLUMNS) {
    throw new AppError(
      'VALIDATION_FAILED',
      `the header has ${header.length} columns; at most ${MAX_LIST_COLUMNS} are accepted`,
    );
  }
  const identifiers: [IdentifierColumn, number][] = [];
  const passthroughNames: string[] = [];
  const known = new Set<string>(IDENTIFIER_COLUMNS);
  header.forEach((name, i) => {
    const canonical = canonicalHeader(name);
    if (known.has(canonical) && !identifiers.some(([id]) => id === canonical)) {
      identifiers.push([canonical as IdentifierColumn, i]);
    } else passthroughNames.push(name.trim());
  });
  if (identifiers.length === 0) {
    throw new AppError(
      'VALIDATION_FAILED',
      `the file has no recognizable identifier column; the header must name at least one of ${IDENTIFIER_COLUMNS.join(', ')}`,
    );
  }
  const idNames = new Set(identifiers.map(([id]) => id));
  for (const [id, needs] of [
    ['voter_id', 'state'],
    ['smartvan_id', 'state'],
  ] as const) {
    if (idNames.has(id) && !idNames.has(needs)) {
      note(
        'id_without_state_column',
        `${id} is matched together with state, and the file has no state column`,
      );
    }
  }
  const appendedColumns = appendedFields.map((field) => voters?.columnIndex(field.source) ?? -1);
  appendedFields.forEach((field, i) => {
    if (voters !== null && appendedColumns[i] === -1) {
      note(
        'appended_field_missing',
        `appended field ${field.source} is not in the voter file; its column is empty`,
      );
    }
  });
  // The client's columns come back byte for byte (clients join on them: matchback_id, phones
  // written `+1 …`); only the columns the service adds are neutralized against spreadsheet
  // formulas. The summary counts the client's formula-like cells instead.
  const extra = LEAD_COLUMNS.length + appendedFields.length + MATCH_COLUMNS.length;
  const voterbaseId = voters?.columnIndex('voterbase_id') ?? -1;
  return {
    width: header.length,
    identifiers,
    identifierNames: identifiers.map(([id]) => id),
    passthroughNames,
    columnNames: header.map((name) => name.trim()),
    appendedHeaders: appendedFields.map((field) => `vb.${field.as}`),
    voterColumns: [voterbaseId, ...appendedColumns],
    voterColumnsAndState: [voterbaseId, ...appendedColumns, voters?.columnIndex('state') ?? -1],
    emptyAppended: appendedFields.map(() => ''),
    neutralize: [...new Array<boolean>(header.length).fill(false), ...new Array<boolean>(extra).fill(true)],
  };
}

/** The identifier cells of a row, as the matcher takes them (empty cells left out). */
export function pickIdentifiers(
  fields: string[],
  identifiers: [IdentifierColumn, number][],
): MatchInput['fields'] {
  const picked: MatchInput['fields'] = {};
  for (const [name, column] of identifiers) {
    const value = fields[column];
    if (value !== undefined && value !== '') picked[name] = value;
  }
  return picked;
}
