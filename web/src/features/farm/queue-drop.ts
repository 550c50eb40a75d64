import { isWaiting } from './format'
import type { PrintJob } from './types'

/**
 * The shown list after a job was dragged from one place to another, and the place it asks the vault
 * for: its place among the waiting jobs (1 is the front), as jobs being sent or printing keep theirs.
 */
export function dropJob(jobs: PrintJob[], from: number, to: number): { jobs: PrintJob[]; position: number } {
  const reordered = [...jobs]
  const [moved] = reordered.splice(from, 1)
  if (moved === undefined) return { jobs, position: 0 }
  reordered.splice(to, 0, moved)
  return { jobs: reordered, position: reordered.filter(isWaiting).indexOf(moved) + 1 }
}

/** The pages of a paged list again, each as long as before, holding `jobs` (the same jobs, reordered). */
export function samePages<Page extends { items: PrintJob[] }>(pages: Page[], jobs: PrintJob[]): Page[] {
  let start = 0
  return pages.map((page) => {
    const items = jobs.slice(start, start + page.items.length)
    start += page.items.length
    return { ...page, items }
  })
}

/**
 * The jobs of the pages in order, each once: a job moved while the pages were read can be on an
 * older page and a newer one (the next page follows on from where the last job stood); the newer
 * page tells where it stands now.
 */
export function jobsOf(pages: { items: PrintJob[] }[]): PrintJob[] {
  const all = pages.flatMap((page) => page.items)
  const last = new Map(all.map((job, index) => [job.id, index]))
  return all.filter((job, index) => last.get(job.id) === index)
}
