import { makesModel, sendingRank } from '../../../../src/core/ingest/model-plan'

/**
 * One model per folder: how the files of a dropped or chosen folder are planned onto the model
 * the folder makes. The folder's first model-making file (a mesh, else a sliced or CAD file;
 * never a slicer config or another file many folders share) makes the model, named after the folder; the rest join it once it is made. A folder holding
 * only pictures and documents makes no model: its files go their own way, as loose files do.
 */
export type Grouping = 'folder' | 'file'

export interface FolderPlan {
  /** The folder within one batch of added files. */
  key: string
  /** The model's name: the folder's. */
  name: string
  /** The order in which the folder's files may make its model: lower first. */
  rank: number
}

/**
 * How early a file may make its folder's model, by the server's own rule (meshes, then sliced and
 * CAD files, then other parts such as slicer configs, then pictures and documents): the folder
 * import and zips plan by the same code, so the three ways of bringing a folder in agree.
 */
export const rankOf = (path: string): number => sendingRank(path)

/**
 * The folder plan of each file added in one batch (`batch` tells batches apart), by the path
 * shown for it (`label`, relative to the drop). A file outside any folder, a zip (which makes its
 * own models) or any file with `grouping` 'file' gets none.
 */
export function planFolders(
  files: readonly { label: string }[],
  batch: number,
  grouping: Grouping,
): (FolderPlan | undefined)[] {
  const top = (label: string) => (label.includes('/') && !/\.zip$/i.test(label) ? label.split('/')[0] : undefined)
  const folders = new Set(
    grouping === 'folder'
      ? files.flatMap(({ label }) => {
          const folder = top(label)
          return folder !== undefined && makesModel(label) ? [folder] : []
        })
      : [],
  )
  return files.map(({ label }) => {
    const folder = top(label)
    return folder !== undefined && folders.has(folder)
      ? { key: `${batch}/${folder}`, name: folder, rank: rankOf(label) }
      : undefined
  })
}

/**
 * The folder a file goes to when a drop is added to a chosen model: its path below the dropped
 * folder (`Dragon/stls/body.stl` goes to `stls`); a loose file goes to the top.
 */
export const folderBelowDrop = (label: string): string => label.split('/').slice(1, -1).join('/')
