/** The model a drop anywhere in the window adds to: the one whose page is open. */
export interface DropTarget {
  modelId: string
  modelName: string
}

/*
 * One target for the tab, as an external store: a model's page claims it while shown and gives it
 * back when it goes; with no claim, a drop uploads as the Upload page does.
 */
let target: DropTarget | undefined
const listeners = new Set<() => void>()

function setTarget(next: DropTarget | undefined): void {
  target = next
  for (const listener of listeners) listener()
}

export const dropTarget = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener)
    return () => listeners.delete(listener)
  },
  get: (): DropTarget | undefined => target,
  /** Makes `claimed` the target; the returned function gives it back (unless another page claimed it since). */
  claim(claimed: DropTarget): () => void {
    setTarget(claimed)
    return () => {
      if (target === claimed) setTarget(undefined)
    }
  },
}
