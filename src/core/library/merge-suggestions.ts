import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { unprocessable } from '../errors.js'
import { nameKey, slicedFromFormats } from '../formats/name-keys.js'

/** Why models look like one: the same name, or a G-code of one names a mesh another holds. */
export type MergeReason = 'same_name' | 'gcode_names_mesh'

export interface SuggestedModel {
  id: string
  name: string
  file_count: number
  created_at: string
  has_thumbnail: boolean
}

export interface MergeSuggestion {
  reasons: MergeReason[]
  /** The model the others would merge into: the one holding a mesh another's G-code names, else the oldest. */
  target: SuggestedModel
  others: SuggestedModel[]
}

interface ModelRow {
  id: string
  name: string
  created_at: string
}

/** Disjoint groups of model ids joined by any pair linking them (union–find). */
class Groups {
  private readonly parent = new Map<string, string>()
  readonly reasons = new Map<string, Set<MergeReason>>()

  find(id: string): string {
    const up = this.parent.get(id) ?? id
    if (up === id) return id
    const root = this.find(up)
    this.parent.set(id, root)
    return root
  }

  join(a: string, b: string, reason: MergeReason) {
    const [ra, rb] = [this.find(a), this.find(b)]
    const [root, child] = ra < rb ? [ra, rb] : [rb, ra]
    if (root !== child) this.parent.set(child, root)
    const reasons = new Set([...(this.reasons.get(root) ?? []), ...(this.reasons.get(child) ?? []), reason])
    this.reasons.set(root, reasons)
    this.reasons.delete(child)
  }

  members(ids: Iterable<string>): Map<string, string[]> {
    const byRoot = new Map<string, string[]>()
    for (const id of ids) {
      const root = this.find(id)
      byRoot.set(root, [...(byRoot.get(root) ?? []), id])
    }
    return byRoot
  }
}

const oldestFirst = (a: ModelRow, b: ModelRow) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)

/**
 * Groups of models that look like one model and no one said are not: two whole-table reads (the
 * models' names, and G-code→mesh pairs by the `sliced_sources` and `files.name_key` indexes),
 * joined in memory, then the dismissals of the models concerned. Oldest target first; at most `limit`.
 */
export async function listMergeSuggestions(
  db: Kysely<Database>,
  limit: number,
): Promise<{ groups: MergeSuggestion[]; total: number }> {
  const models = await db.selectFrom('models').select(['id', 'name', 'created_at']).execute()
  const byId = new Map(models.map((model) => [model.id, model]))
  const groups = new Groups()
  const firstByName = new Map<string, string>()
  for (const model of [...models].sort(oldestFirst)) {
    const key = nameKey(model.name)
    const first = firstByName.get(key)
    if (first === undefined) firstByName.set(key, model.id)
    else groups.join(first, model.id, 'same_name')
  }
  const meshHolders = new Set<string>()
  const pairs = await db
    .selectFrom('sliced_sources')
    .innerJoin('files as gcode', 'gcode.id', 'sliced_sources.file_id')
    .innerJoin('files as mesh', 'mesh.name_key', 'sliced_sources.name_key')
    .where('mesh.format', 'in', slicedFromFormats)
    .whereRef('mesh.model_id', '!=', 'gcode.model_id')
    .select(['gcode.model_id as gcode_model', 'mesh.model_id as mesh_model'])
    .distinct()
    .execute()
  for (const pair of pairs) {
    groups.join(pair.gcode_model, pair.mesh_model, 'gcode_names_mesh')
    meshHolders.add(pair.mesh_model)
  }

  const candidates = [...groups.members(byId.keys()).entries()].filter(([, ids]) => ids.length > 1)
  const dismissed = await dismissedGroups(
    db,
    candidates.flatMap(([, ids]) => ids),
  )
  const offered = candidates
    .filter(([, ids]) => !dismissed(ids))
    .map(([root, ids]) => {
      const rows = ids.map((id) => byId.get(id) as ModelRow).sort(oldestFirst)
      const target = rows.find((row) => meshHolders.has(row.id)) ?? (rows[0] as ModelRow)
      return { root, target, others: rows.filter((row) => row !== target) }
    })
    .sort((a, b) => oldestFirst(a.target, b.target))
  const page = offered.slice(0, limit)
  const details = await modelDetails(
    db,
    page.flatMap((group) => [group.target.id, ...group.others.map((other) => other.id)]),
  )
  return {
    total: offered.length,
    groups: page.map((group) => ({
      reasons: [...(groups.reasons.get(group.root) ?? [])].sort(),
      target: details.get(group.target.id) as SuggestedModel,
      others: group.others.map((other) => details.get(other.id) as SuggestedModel),
    })),
  }
}

/** Whether a group's every model is in one dismissal. */
async function dismissedGroups(db: Kysely<Database>, modelIds: string[]): Promise<(ids: string[]) => boolean> {
  const rows = await inChunks(modelIds, (chunk) =>
    db.selectFrom('merge_dismissals').select(['dismissal_id', 'model_id']).where('model_id', 'in', chunk).execute(),
  )
  const dismissalsOf = new Map<string, Set<string>>()
  for (const row of rows)
    dismissalsOf.set(row.model_id, (dismissalsOf.get(row.model_id) ?? new Set()).add(row.dismissal_id))
  return (ids) => {
    const [first, ...rest] = ids.map((id) => dismissalsOf.get(id) ?? new Set<string>())
    return [...(first ?? [])].some((dismissal) => rest.every((set) => set.has(dismissal)))
  }
}

async function modelDetails(db: Kysely<Database>, ids: string[]): Promise<Map<string, SuggestedModel>> {
  const rows = await inChunks(ids, (chunk) =>
    db
      .selectFrom('models')
      .select(['id', 'name', 'file_count', 'created_at', 'thumbnail_sha256'])
      .where('id', 'in', chunk)
      .execute(),
  )
  return new Map(
    rows.map(({ thumbnail_sha256, ...row }) => [row.id, { ...row, has_thumbnail: thumbnail_sha256 !== null }]),
  )
}

/** Runs a query per 500 ids: SQLite bounds a statement's parameters. */
async function inChunks<T>(ids: string[], query: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const results: T[] = []
  for (let i = 0; i < ids.length; i += 500) results.push(...(await query(ids.slice(i, i + 500))))
  return results
}

/** Records that `modelIds` are not one model; 422 when an id names no model. */
export async function dismissMergeSuggestion(db: Kysely<Database>, modelIds: string[], now: string): Promise<void> {
  const ids = [...new Set(modelIds)]
  if (ids.length !== modelIds.length)
    throw unprocessable('Name each model once.', [{ path: 'body.model_ids', message: 'names a model twice' }])
  const found = await db.selectFrom('models').select('id').where('id', 'in', ids).execute()
  const missing = ids.filter((id) => !found.some((row) => row.id === id))
  if (missing.length > 0)
    throw unprocessable(`No model has the id ${missing.join(', ')}.`, [
      { path: 'body.model_ids', message: 'no such model' },
    ])
  const dismissalId = crypto.randomUUID()
  await db
    .insertInto('merge_dismissals')
    .values(ids.map((model_id) => ({ dismissal_id: dismissalId, model_id, dismissed_at: now })))
    .execute()
}
