import { useEffect, useMemo, useSyncExternalStore } from 'react'
import { type DropTarget, dropTarget } from './drop-target'

/** The model a window-wide drop adds to, if a model's page is open. */
export function useDropTarget(): DropTarget | undefined {
  return useSyncExternalStore(dropTarget.subscribe, dropTarget.get)
}

/** Makes drops anywhere in the window add to this model while the calling component is shown. */
export function useDropsInto(modelId: string, modelName: string): void {
  const claimed = useMemo(() => ({ modelId, modelName }), [modelId, modelName])
  useEffect(() => dropTarget.claim(claimed), [claimed])
}
