/** A value now, or later: what a cache answers at once on a hit and from the database on a miss. */
export type MaybePromise<T> = T | Promise<T>

/**
 * `next(value)` at once if `value` is here, else once it arrives. A cache hit so stays
 * synchronous all the way up, with no turn of the microtask queue per layer (the credential check
 * on every request is four layers deep). A throw in `next` is thrown at once in the first case and
 * rejects in the second; callers that `await` see both alike.
 */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value)
}
