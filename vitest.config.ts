import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'

/**
 * Every test runs on SQLite, the embedded default. Tests whose subject is database behaviour
 * (queries and their plans, migrations, locks and concurrency, dumps and restores, sessions and
 * their rotation) run a second time on a real PostgreSQL server that the `postgres` project's
 * global setup starts; the rest (format readers, the HTTP layer, printers, the browser, the CLI,
 * the Workers runtime) behave the same on either and run once. Tests get the kind through `inject`.
 */
const databaseBehaviour = [
  // Claims under leases, one statement each database runs its own way; replicas sharing one database.
  'test/analysis-queue.test.ts',
  // Events numbered in commit order under each database's turns; webhook deliveries claimed under leases.
  'test/events-stream.test.ts',
  'test/webhooks.test.ts',
  // The print queue: jobs and printers claimed under leases by two replicas over one database.
  'test/print-queue.test.ts',
  // Two replicas feeding one farm over one database, killed at random: PostgreSQL only.
  'test/farm-soak.test.ts',
  // Print runs ended once by whichever replica reads the printer first; photos kept through the sweep and a restore.
  'test/print-runs.test.ts',
  // Pause, resume and cancel recorded on the queue job, each through one conditional UPDATE.
  'test/print-controls.test.ts',
  // Bed-clearing runs stepped under leases by two replicas over one database.
  'test/printers-bed-clearing.test.ts',
  'test/auth-api-keys.test.ts',
  'test/auth-revocation-bound.test.ts',
  'test/auth-throttle.test.ts',
  'test/auth-tokens.test.ts',
  'test/backup.test.ts',
  'test/backup-manual-restore.test.ts',
  'test/backup-restore.test.ts',
  'test/backup-restore-cli.test.ts',
  'test/backup-restore-refusals.test.ts',
  'test/backup-verify.test.ts',
  'test/blobs-gc.test.ts',
  // A cover's foreign key (on delete set null) on each database.
  'src/routes/collections/collection-cover.test.ts',
  'src/routes/health/health.test.ts',
  // Which model an upload joins is decided under a lock each database takes its own way.
  'src/routes/ingest/sliced-file-matching.test.ts',
  // Of READMEs sent at once, the first to commit describes the model, under each database's row lock.
  'src/routes/ingest/readme-description.test.ts',
  // Files moving between models: the counters' and lists' triggers of each database follow them.
  'src/routes/models/model-shape.test.ts',
  // Many models changed at once, a page per transaction: the kept counters' triggers follow on each database.
  'src/routes/models/bulk.test.ts',
  // Renaming, merging and deleting tags: the kept counters' and lists' triggers of each database follow them.
  'src/routes/tags/tags.test.ts',
  // Merge suggestions read models, files and sliced sources with one query each database plans its own way.
  'src/routes/models/merge-suggestions.test.ts',
  // Nesting collections: the recursive walks and the tree's foreign key on each database.
  'src/routes/collections/collection-tree.test.ts',
  'test/ingest.test.ts',
  'test/ingest-concurrency.test.ts',
  'test/interrupted-work.test.ts',
  'test/kill-campaign.test.ts',
  'test/library-browse.test.ts',
  'test/library-counts.test.ts',
  'test/library-export.test.ts',
  'test/library-organise.test.ts',
  'test/library-query-plans.test.ts',
  'test/migrations.test.ts',
  'test/model-lists.test.ts',
  // A union over the thumbnail store's keys on each database.
  'test/preview-mesh.test.ts',
  // Replicas share one server database; an SQLite file belongs to one process's install.
  'test/replicas.test.ts',
  'test/generated-keys.test.ts',
  'test/restore-write-fence.test.ts',
  'test/workers-backup.test.ts',
]

export default defineConfig({
  test: {
    reporters: ['default', './test/support/file-time-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Vitest's default, one worker fewer than the CPUs, runs one file at a time on a 2-core
    // machine. Most files spend their time waiting on another process (the built service, the
    // slicer, Chromium, PostgreSQL, a compiler), so one more file than there are cores keeps both busy.
    maxWorkers: availableParallelism() + 1,
    // `npm run test:coverage`: the statements and branches of the server and the web UI's code that
    // run under Node. The UI's pages run in Chromium, where V8 coverage of Node does not reach: the
    // script's VAULT_TEST_WEB_COVERAGE makes them record their own, and scripts/web-coverage.ts counts it.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'web/src/**/*.{ts,tsx}'],
      exclude: ['**/*.test.ts', 'src/client/api-types.ts', 'web/src/api/schema.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'test-results/coverage',
      reportOnFailure: true,
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          provide: { databaseKind: 'sqlite', postgresAdminUrl: '', postgresMigratedTemplate: '' },
          exclude: [
            ...configDefaults.exclude,
            'test/replicas.test.ts',
            'test/generated-keys.test.ts',
            'test/farm-soak.test.ts',
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: databaseBehaviour,
          provide: { databaseKind: 'postgres' },
          globalSetup: ['test/support/postgres-global-setup.ts'],
        },
      },
    ],
  },
})
