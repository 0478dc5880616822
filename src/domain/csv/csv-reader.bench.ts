/**
 * Throughput check for the CSV reader and writer (not a test).
 *
 *   node src/domain/csv/csv-reader.bench.ts [rows]
 *
 * Generates synthetic 10-column contact rows in memory, feeds them to readCsvTable in 64 KiB chunks and
 * prints rows/s; then formats the same rows with formatCsvRow.
 */
import { readCsvTable } from './csv-reader.ts';
import { formatCsvRow } from './csv-writer.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const CHUNK = 64 * 1024;
const RUNS = 3;

const FIRST = ['Ada', 'Alan', 'Grace', 'Renée', 'Linus', 'Zoë', 'Barbara', 'Edsger'];
const LAST = ['Lovelace', 'Turing', 'Hopper', 'Smith', 'Torvalds', 'Liskov', 'Dijkstra', 'García'];
const CITY = ['Raleigh', 'Durham', 'Cary', 'Chapel Hill', 'Apex', 'Wake Forest'];

function row(i: number): string[] {
  const first = FIRST[i % FIRST.length]!;
  const last = LAST[(i >> 3) % LAST.length]!;
  return [
    String(100000 + i),
    first,
    last,
    `${first.toLowerCase()}.${last.toLowerCase()}${i}@example.com`,
    `+1919${String(5550000 + (i % 10000)).padStart(7, '0')}`,
    `${(i % 9000) + 100} Main St`,
    CITY[i % CITY.length]!,
    'NC',
    String(27600 + (i % 100)),
    `19${50 + (i % 50)}-0${1 + (i % 9)}-1${i % 10}`,
  ];
}

const HEADER = ['voter_id', 'first', 'last', 'email', 'phone', 'address', 'city', 'state', 'zip', 'dob'];

function build(quoted: boolean, eol: string): Buffer {
  const lines: string[] = [HEADER.join(',')];
  for (let i = 0; i < ROWS; i++) {
    const fields = row(i);
    if (quoted) fields[5] = `"${fields[5]}, Apt ${i % 50}"`;
    lines.push(fields.join(','));
  }
  return Buffer.from(lines.join(eol) + eol);
}

async function* chunks(data: Buffer): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += CHUNK) yield data.subarray(i, i + CHUNK);
}

async function readRows(data: Buffer): Promise<number> {
  let n = 0;
  let warnings = 0;
  for await (const ev of readCsvTable(chunks(data), { maxRowBytes: 1 << 20, onWarning: () => warnings++ })) {
    if (ev.kind === 'rows') n += ev.rows.length;
  }
  if (warnings > 0) throw new Error(`unexpected warnings: ${warnings}`);
  return n;
}

function report(label: string, rows: number, ms: number, bytes?: number): void {
  const rate = Math.round((rows / ms) * 1000).toLocaleString('en-US');
  const mbs = bytes === undefined ? '' : `, ${(((bytes / ms) * 1000) / 1024 / 1024).toFixed(0)} MiB/s`;
  console.log(`${label.padEnd(44)} ${rate.padStart(11)} rows/s${mbs}`);
}

async function benchReader(label: string, data: Buffer): Promise<void> {
  let best = Number.POSITIVE_INFINITY;
  let rows = 0;
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    rows = await readRows(data);
    best = Math.min(best, performance.now() - t);
  }
  if (rows !== ROWS) throw new Error(`expected ${ROWS} rows, got ${rows}`);
  report(label, rows, best, data.length);
}

function benchWriter(): void {
  const rows: string[][] = [];
  for (let i = 0; i < ROWS; i++) rows.push(row(i));
  let best = Number.POSITIVE_INFINITY;
  let bytes = 0;
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    let chunk = '';
    bytes = 0;
    for (const fields of rows) {
      chunk += formatCsvRow(fields);
      if (chunk.length >= 65536) {
        bytes += chunk.length;
        chunk = '';
      }
    }
    bytes += chunk.length;
    best = Math.min(best, performance.now() - t);
  }
  report('formatCsvRow (10 columns)', ROWS, best, bytes);
}

console.log(`${ROWS.toLocaleString('en-US')} rows x 10 columns, ${CHUNK / 1024} KiB chunks, best of ${RUNS}`);
await benchReader('readCsvTable, unquoted, LF', build(false, '\n'));
await benchReader('readCsvTable, unquoted, CRLF', build(false, '\r\n'));
await benchReader('readCsvTable, one quoted field per row', build(true, '\n'));
benchWriter();
