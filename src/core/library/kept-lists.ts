/** Enough for every format list and most libraries' tag lists; a few MiB at most. */
const listsKept = 4096

const parsed = new Map<string, readonly string[]>()

/**
 * A list kept on a model's row as JSON text (`tag_names`, `file_formats`), as a fresh array.
 * A library has few distinct lists (a handful of format lists, usually far fewer tag lists than
 * models), and parsing two per model cost a 50-model page about 40 µs of its ~850 (docs/benchmarks.md),
 * so each text is parsed once and its answer copied after; when `listsKept` are held, all are dropped.
 */
export function keptList(text: string): string[] {
  let list = parsed.get(text)
  if (list === undefined) {
    list = JSON.parse(text) as string[]
    if (parsed.size >= listsKept) parsed.clear()
    parsed.set(text, list)
  }
  return list.slice()
}
