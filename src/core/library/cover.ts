import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { unprocessable } from '../errors.js'

/**
 * Keeps a model's cover valid: an image of the model, or none. A model without a cover takes its
 * first image (a photo of the print says more than a rendered mesh); a cover that is gone gives
 * way to the next image, else to none. Run by `refreshModel`, after any change of a model's files;
 * `always` sets the thumbnail again even when the cover stays (files whose thumbnail it may be
 * left the model).
 */
export async function settleCover(db: Kysely<Database>, modelId: string, always = false): Promise<void> {
  const model = await db.selectFrom('models').select('cover_file_id').where('id', '=', modelId).executeTakeFirst()
  if (!model) return
  const images = await db
    .selectFrom('files')
    .select('id')
    .where('model_id', '=', modelId)
    .where('format', '=', 'image')
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  const cover = images.find((image) => image.id === model.cover_file_id) ?? images[0]
  if (always || (cover?.id ?? null) !== model.cover_file_id) await applyCover(db, modelId, cover?.id ?? null)
}

/** Makes an image of the model its cover; 422 when `fileId` is not one. */
export async function chooseCover(db: Kysely<Database>, modelId: string, fileId: string): Promise<void> {
  const file = await db
    .selectFrom('files')
    .select('id')
    .where('id', '=', fileId)
    .where('model_id', '=', modelId)
    .where('format', '=', 'image')
    .executeTakeFirst()
  if (!file)
    throw unprocessable(`The model has no image with the id ${fileId}.`, [
      { path: 'body.file_id', message: 'not an image of this model' },
    ])
  await applyCover(db, modelId, file.id)
}

/**
 * Sets the cover and the model's thumbnail with it: the cover's thumbnail, else (no cover, or a
 * cover too large to have one) the thumbnail of its first part that has one, as before covers.
 */
async function applyCover(db: Kysely<Database>, modelId: string, coverId: string | null): Promise<void> {
  const thumbnail = await db
    .selectFrom('files')
    .select(['thumbnail_sha256', 'thumbnail_content_type'])
    .where('model_id', '=', modelId)
    .where('thumbnail_sha256', 'is not', null)
    .where((eb) => eb.or([eb('id', '=', coverId), eb('format', '!=', 'image')]))
    .orderBy((eb) => eb.case().when('id', '=', coverId).then(0).else(1).end())
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst()
  await db
    .updateTable('models')
    .set({
      cover_file_id: coverId,
      thumbnail_sha256: thumbnail?.thumbnail_sha256 ?? null,
      thumbnail_content_type: thumbnail?.thumbnail_content_type ?? null,
    })
    .where('id', '=', modelId)
    .execute()
}
