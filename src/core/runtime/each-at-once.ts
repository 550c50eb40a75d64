/**
 * Runs `task` for each item in order of starting, at most `atOnce` at a time, holding no more
 * than `atOnce` tasks in memory however many items there are. After the first failure no more
 * start; it rejects with that failure once the tasks already running have settled, so a caller
 * that cleans up after it does not race them.
 */
export async function eachAtOnce<T>(
  items: readonly T[],
  atOnce: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0
  let failure: { error: unknown } | undefined
  const worker = async () => {
    while (!failure && next < items.length) {
      const item = items[next++] as T
      await task(item).catch((error: unknown) => {
        failure ??= { error }
      })
    }
  }
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker))
  if (failure) throw failure.error
}
