import type { Kysely } from 'kysely'

/**
 * Printers (credentials encrypted, see core/printers/credentials), every dispatch to them,
 * and filament and printer presets. A dispatch keeps the printer's and file's names so the
 * record stays readable after either is deleted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('printer_credential_keys')
    .addColumn('kid', 'text', (col) => col.primaryKey())
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute()

  await db.schema
    .createTable('printer_profiles')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull().unique())
    .addColumn('vendor', 'text')
    .addColumn('bed_x_mm', 'double precision')
    .addColumn('bed_y_mm', 'double precision')
    .addColumn('max_height_mm', 'double precision')
    .addColumn('nozzle_diameter_mm', 'double precision')
    .addColumn('gcode_flavor', 'text')
    .addColumn('firmware_provider', 'text')
    .addColumn('source', 'text', (col) => col.notNull())
    .addColumn('settings', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute()

  await db.schema
    .createTable('filament_profiles')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull().unique())
    .addColumn('material', 'text')
    .addColumn('vendor', 'text')
    .addColumn('color', 'text')
    .addColumn('diameter_mm', 'double precision')
    .addColumn('density_g_cm3', 'double precision')
    .addColumn('nozzle_temperature_c', 'double precision')
    .addColumn('bed_temperature_c', 'double precision')
    .addColumn('cost_per_kg', 'double precision')
    .addColumn('source', 'text', (col) => col.notNull())
    .addColumn('settings', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute()

  await db.schema
    .createTable('printers')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull().unique())
    .addColumn('provider', 'text', (col) => col.notNull())
    .addColumn('address', 'text', (col) => col.notNull())
    // AES-GCM ciphertext of the credentials JSON, prefixed by the key id; null when none.
    .addColumn('credentials', 'text')
    .addColumn('printer_profile_id', 'text', (col) => col.references('printer_profiles.id').onDelete('set null'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute()

  await db.schema
    .createTable('dispatches')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('printer_id', 'text', (col) => col.references('printers.id').onDelete('set null'))
    .addColumn('printer_name', 'text', (col) => col.notNull())
    .addColumn('file_id', 'text', (col) => col.references('files.id').onDelete('set null'))
    .addColumn('file_name', 'text', (col) => col.notNull())
    .addColumn('user_id', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('start_requested', 'integer', (col) => col.notNull())
    .addColumn('outcome', 'text', (col) => col.notNull())
    .addColumn('uploaded', 'integer', (col) => col.notNull())
    .addColumn('started', 'integer', (col) => col.notNull())
    .addColumn('confirmed', 'integer', (col) => col.notNull())
    .addColumn('remote_name', 'text')
    .addColumn('detail', 'text', (col) => col.notNull())
    .addColumn('steps', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('finished_at', 'text', (col) => col.notNull())
    .execute()
  await db.schema.createIndex('dispatches_printer').on('dispatches').columns(['printer_id', 'created_at']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dispatches').execute()
  await db.schema.dropTable('printers').execute()
  await db.schema.dropTable('filament_profiles').execute()
  await db.schema.dropTable('printer_profiles').execute()
  await db.schema.dropTable('printer_credential_keys').execute()
}
