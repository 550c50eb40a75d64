/**
 * Resolves once `condition` holds, checking every `everyMs`; rejects with `what` after
 * `timeoutMs`. For waiting on something to happen rather than sleeping for a guessed time.
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = 10_000, everyMs = 5 } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}
