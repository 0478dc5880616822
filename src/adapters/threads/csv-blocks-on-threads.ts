import { type CsvBlock, cutCsvBlocks } from '../../domain/csv/csv-blocks.ts';
import type { CsvWarning } from '../../domain/csv/csv-reader.ts';
import type { TaskPool } from './task-pool.ts';

/** Blocks a thread may have queued: enough to keep it busy, few enough not to read ahead too far. */
const BLOCKS_IN_FLIGHT_PER_THREAD = 4;

/**
 * A CSV file cut into blocks (cutCsvBlocks), each answered on the threads that `threads` starts
 * once the header is read, the answers handed to `take` in the file's order. At most
 * BLOCKS_IN_FLIGHT_PER_THREAD blocks per thread are in flight; each block's bytes move to its
 * thread. The threads are closed however it ends, unless `keepThreads` (their owner closes them:
 * threads kept over several files). Returns the header (null: a file without one).
 */
export async function answerCsvBlocksInOrder<Answer>(
  source: AsyncIterable<Uint8Array>,
  options: { maxRowBytes: number; blockBytes: number },
  steps: {
    /** The threads that answer the blocks, for this header. */
    threads: (header: string[]) => TaskPool<CsvBlock, Answer>;
    /** The header, after its threads have started (they start while this runs). */
    onHeader?: (header: string[], warnings: CsvWarning[]) => void | Promise<void>;
    take: (answer: Answer) => void | Promise<void>;
    onEnd?: (warnings: CsvWarning[]) => void;
    keepThreads?: boolean;
  },
): Promise<string[] | null> {
  let threads: TaskPool<CsvBlock, Answer> | null = null;
  let header: string[] | null = null;
  const inFlight: Promise<Answer>[] = [];
  const take = async () => steps.take(await inFlight.shift()!);
  try {
    for await (const event of cutCsvBlocks(source, options)) {
      if (event.kind === 'header') {
        header = event.header;
        threads = steps.threads(event.header);
        await steps.onHeader?.(event.header, event.warnings);
      } else if (event.kind === 'block') {
        const running = threads!.run(event.block, [event.block.bytes.buffer as ArrayBuffer]);
        // Awaited in order by `take`; a failure meanwhile must not go unhandled.
        running.catch(() => {});
        inFlight.push(running);
        while (inFlight.length > BLOCKS_IN_FLIGHT_PER_THREAD * threads!.threads) await take();
      } else {
        while (inFlight.length > 0) await take();
        steps.onEnd?.(event.warnings);
      }
    }
    while (inFlight.length > 0) await take();
  } finally {
    if (steps.keepThreads !== true) await threads?.close();
  }
  return header;
}
