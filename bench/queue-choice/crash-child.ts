import { createDriver, DRIVERS, type DriverName, FAST_RECOVERY, type Target } from './drivers.ts';

/**
 * `node bench/queue-choice/crash-child.ts <library> <target json> <queue>`: the consumer that
 * run.ts SIGKILLs mid-message. Prints `ready` once consuming and `claimed` when the message starts;
 * the handler never returns, while the library keeps renewing the lease in the background.
 */
const [name, targetJson, queue] = process.argv.slice(2);
if (!(DRIVERS as readonly string[]).includes(name ?? '') || targetJson === undefined || queue === undefined) {
  console.error('usage: crash-child.ts <library> <target json> <queue>');
  process.exit(2);
}
const driver = await createDriver(name as DriverName, JSON.parse(targetJson) as Target, FAST_RECOVERY);
await driver.consume(queue, async () => {
  process.stdout.write('claimed\n');
  await new Promise(() => {});
});
process.stdout.write('ready\n');
