/**
 * Steps that must run one after another in the order they were asked for, whatever each awaits:
 * matchList asks a matcher for the next batch (or block) before the last one is done, and a
 * matcher that writes or reads streams in row order must take them in turn. A step that fails
 * fails its own promise only; the next still runs.
 */
export function inTurns(): <T>(step: () => Promise<T>) => Promise<T> {
  let previous: Promise<unknown> = Promise.resolve();
  return (step) => {
    const turn = previous.then(step);
    previous = turn.catch(() => {});
    return turn;
  };
}
