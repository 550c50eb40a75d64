import { type Kysely, PostgresAdapter } from 'kysely'

/**
 * The event log and webhooks (see core/events). `events` numbers what happened in the order it
 * was committed (publishers take turns, so a reader resuming after an id misses nothing), and is
 * pruned by age and count; AUTOINCREMENT on SQLite, so an id is never given twice even once every
 * row is pruned. `webhooks` are each user's own, their secret sealed with the printer-credentials
 * cipher. `webhook_deliveries` are the sends, claimed under a lease so two replicas never send one
 * twice; a test send has no event. `printers.observed_state` is the state last published for the
 * printer, so of several processes seeing one change only one publishes it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .createTable('events')
    .addColumn('id', postgres ? 'bigserial' : 'integer', (column) =>
      postgres ? column.primaryKey() : column.primaryKey().autoIncrement(),
    )
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('data', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute()
  await db.schema.createIndex('events_by_time').on('events').column('created_at').execute()
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('url', 'text', (column) => column.notNull())
    .addColumn('format', 'text', (column) => column.notNull())
    .addColumn('secret', 'text')
    .addColumn('event_types', 'text', (column) => column.notNull())
    .addColumn('enabled', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute()
  await db.schema.createIndex('webhooks_by_user').on('webhooks').columns(['user_id', 'created_at']).execute()
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('webhook_id', 'text', (column) => column.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_id', postgres ? 'bigint' : 'integer', (column) =>
      column.references('events.id').onDelete('cascade'),
    )
    .addColumn('event_type', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('response_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute()
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute()
  await db.schema
    .createIndex('webhook_deliveries_by_webhook')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at'])
    .execute()
  await db.schema.createIndex('webhook_deliveries_by_event').on('webhook_deliveries').column('event_id').execute()
  await db.schema.alterTable('printers').addColumn('observed_state', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('printers').dropColumn('observed_state').execute()
  await db.schema.dropTable('webhook_deliveries').execute()
  await db.schema.dropTable('webhooks').execute()
  await db.schema.dropTable('events').execute()
}
