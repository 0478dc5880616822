import { parentPort } from 'node:worker_threads';

/**
 * The worker side of a TaskPool: announces the thread ready, then answers each task with
 * `handle`'s result (its `transfer` buffers moved, not copied), or with the error's message.
 */
export function serveTasks<Task, Answer>(
  handle: (task: Task) => Answer | Promise<Answer>,
  transfer: (answer: Answer) => ArrayBuffer[] = () => [],
): void {
  const port = parentPort!;
  port.on('message', (message: { id: number; task: Task }) => {
    Promise.resolve()
      .then(() => handle(message.task))
      .then(
        (answer) => port.postMessage({ id: message.id, answer }, transfer(answer)),
        (error: unknown) =>
          port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
      );
  });
  port.postMessage({ ready: true });
}
