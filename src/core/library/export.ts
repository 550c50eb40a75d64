import type { VaultDatabase } from '../db/database.js'
import { csvRow } from './csv.js'
import { fetchModelPage, type ModelQuery } from './model-query.js'
import { detailModels, type ModelDetailRecord } from './models.js'

export type ExportFormat = 'json' | 'csv'

/** Models fetched per query: bounds memory (each carries its files' metadata). */
const pageSize = 100

export const csvColumns = [
  'id',
  'name',
  'description',
  'tags',
  'collections',
  'file_count',
  'total_size',
  'formats',
  'files',
  'slicers',
  'created_at',
  'updated_at',
] as const

/**
 * Streams every model matching `query` as JSON or CSV. Pages through the database with the
 * same keyset queries as the list, one page per pull of the stream, so memory stays flat at
 * any library size and the database is never held for the whole download.
 *
 * JSON: `{ "format": "model-vault.models", "version": 1, "exported_at", "models": [...] }`,
 * each model exactly as `GET /api/v1/models/{id}` shows it (`present` adds the URLs).
 * CSV: one row per model (`csvColumns`); multi-valued cells hold one value per line.
 */
export function exportModels(
  database: VaultDatabase,
  query: ModelQuery,
  format: ExportFormat,
  options: { exportedAt: string; present: (model: ModelDetailRecord) => unknown },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let after: { value: string | number; id: string } | undefined
  let first = true
  let done = false
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(
          encoder.encode(
            format === 'json'
              ? `{"format":"model-vault.models","version":1,"exported_at":${JSON.stringify(options.exportedAt)},"models":[`
              : csvRow([...csvColumns]),
          ),
        )
      },
      async pull(controller) {
        if (done) return
        const page = await fetchModelPage(database, query, pageSize, after)
        const models = await detailModels(database.db, page.rows)
        const last = page.rows.at(-1)
        if (last) after = { value: last.sort_value, id: last.id }
        let chunk = ''
        for (const model of models) {
          if (format === 'json') {
            chunk += `${first ? '' : ','}\n${JSON.stringify(options.present(model))}`
          } else {
            chunk += csvRow(csvCells(model))
          }
          first = false
        }
        if (!page.more) {
          done = true
          if (format === 'json') chunk += '\n]}\n'
        }
        if (chunk) controller.enqueue(encoder.encode(chunk))
        if (done) controller.close()
      },
    },
    { highWaterMark: 0 },
  )
}

function csvCells(model: ModelDetailRecord): (string | number)[] {
  const slicers = new Set(
    model.files.flatMap((file) => {
      const name = (file.metadata.gcode as { slicer?: { name?: unknown } } | undefined)?.slicer?.name
      return typeof name === 'string' ? [name] : []
    }),
  )
  return [
    model.id,
    model.name,
    model.description,
    model.tags.join('\n'),
    model.collections.map((collection) => collection.name).join('\n'),
    model.file_summary.count,
    model.file_summary.total_size,
    model.file_summary.formats.join('\n'),
    model.files.map((file) => file.name).join('\n'),
    [...slicers].join('\n'),
    model.created_at,
    model.updated_at,
  ]
}
