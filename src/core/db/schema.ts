import type { Generated } from 'kysely'
import { libraryCountFunctions } from './migrations/0013-library-counts.js'
import { modelListFunctions } from './migrations/0014-model-lists.js'
import { modelShapeFunctions } from './migrations/0017-model-shape.js'

/**
 * Table types for Kysely. One schema serves SQLite and PostgreSQL, so columns keep to types
 * both read back the same way: text ids (UUIDs), ISO-8601 UTC timestamps as text (they sort
 * correctly as strings), and integers that fit in a JavaScript number.
 */
export interface InstallationTable {
  singleton: Generated<number>
  id: string
  created_at: string
}

export type Role = 'user' | 'admin' | 'superuser'

export interface UsersTable {
  id: string
  username: string
  username_key: string
  password_hash: string
  /** Set while the password is one the vault generated; null once the user chose one. */
  password_generated_at: string | null
  role: Role
  disabled_at: string | null
  created_at: string
  updated_at: string
}

export interface ApiKeysTable {
  id: string
  user_id: string
  name: string
  /** Public part of the key, shown in listings: `mvk_<prefix>_…`. */
  prefix: string
  key_hash: string
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
  /** What the key may be used for: scope names separated by spaces (`api-key-scopes.ts`). */
  scopes: string
  /** After this the key no longer works; null: never. */
  expires_at: string | null
}

export interface SessionsTable {
  id: string
  user_id: string
  /** Set when the session was opened with an API key; revoking the key ends the session. */
  api_key_id: string | null
  created_at: string
  last_used_at: string
  expires_at: string
  revoked_at: string | null
  revoked_reason: string | null
}

export interface RefreshTokensTable {
  token_hash: string
  session_id: string
  created_at: string
  /** When it was exchanged; presenting it again revokes its session (reuse detection). */
  used_at: string | null
}

export interface LoginFailuresTable {
  key: string
  failures: number
  first_failure_at: string
  locked_until: string | null
}

export interface SigningKeysTable {
  kid: string
  secret: string
  created_at: string
  /** 1 on the key the vault generated itself (unique: one per install, migration 0034); null on older rows. */
  generated: number | null
}

export interface ModelsTable {
  id: string
  name: string
  description: Generated<string>
  thumbnail_sha256: string | null
  thumbnail_content_type: string | null
  created_by: string | null
  created_at: string
  updated_at: string
  /** Number and total bytes of its files, kept by `refreshModel` (list sorting by size). */
  file_count: Generated<number>
  total_size: Generated<number>
  /** Its G-code files, kept by `refreshModel` (the `has_gcode` filter, tested inside the sort indexes). */
  gcode_file_count: Generated<number>
  /** When the search index last saw the model; null means "index me" (see library/refresh-model). */
  indexed_at: Generated<string | null>
  /** The image of the model shown as its thumbnail (see library/cover); null when it has none. */
  cover_file_id: Generated<string | null>
  /** Its tag names ordered by `name_key`, as the text of a JSON array; kept by triggers (migration 0014). */
  tag_names: Generated<string>
  /** Its files' formats, each once and ordered, as the text of a JSON array; kept by triggers (migration 0014). */
  file_formats: Generated<string>
  /** Who made it, where it came from and under what terms (an SPDX identifier or free text); null when unknown. */
  creator: Generated<string | null>
  source_url: Generated<string | null>
  license: Generated<string | null>
  /** Its files whose thumbnail or preview the analysis queue has yet to render (see core/analysis). */
  analysing_files: Generated<number>
}

export interface FilesTable {
  id: string
  sha256: string
  size: number
  model_id: string
  original_name: string
  name_key: string
  /** Where it sits inside its model, '/'-separated (`stls/supported`); '' for the top. */
  folder: Generated<string>
  /** `stl`, `3mf`, `obj`, `gcode`, `step`, `image`, `document` or `other` (see ingest/file-formats). */
  format: string
  content_type: string
  /** JSON of the format's extracted metadata. */
  metadata: string
  /** JSON array of sentences: what could not be read, and why. */
  parse_warnings: string
  mesh_triangles: number | null
  mesh_size_x: number | null
  mesh_size_y: number | null
  mesh_size_z: number | null
  mesh_volume: number | null
  thumbnail_sha256: string | null
  thumbnail_content_type: string | null
  /** A large mesh's simplified copy (binary STL) in the thumbnail store, and its triangles; see formats/preview-mesh. */
  preview_sha256: string | null
  preview_triangles: number | null
  uploaded_by: string | null
  created_at: string
  /** The slicer named in a G-code's metadata, copied out for stats; set by `refreshModel`. */
  slicer?: string | null
}

/** The mesh names a G-code file says it was sliced from (see ingest/model-matching `slicedSourceKeys`). */
export interface SlicedSourcesTable {
  file_id: string
  /** A mesh file's `name_key`. */
  name_key: string
}

export interface TagsTable {
  id: string
  name: string
  /** Lower-cased name: unique. */
  name_key: string
  created_at: string
}

export interface ModelTagsTable {
  model_id: string
  tag_id: string
}

export interface CollectionsTable {
  id: string
  name: string
  name_key: string
  description: Generated<string>
  /** The collection it sits in; null at the top of the tree. */
  parent_id: string | null
  /** The model a person chose as its cover (migration 0026); null for the first with a thumbnail. */
  cover_model_id: Generated<string | null>
  created_at: string
  updated_at: string
}

export interface CollectionModelsTable {
  collection_id: string
  model_id: string
  added_at: string
}

/** One row: uploads answered as duplicates, and their bytes (not stored again). */
export interface DedupCounterTable {
  singleton: Generated<number>
  uploads: number
  bytes: number
}

/**
 * Library totals kept by triggers (migration 0013): one row per (kind, key). On PostgreSQL the
 * current value is the row plus its not yet folded `library_count_deltas` (see `library-counts.ts`).
 */
export interface LibraryCountsTable {
  kind: string
  key: string
  models: number
  files: number
  bytes: number
}

export interface LibraryCountDeltasTable {
  id: Generated<number>
  kind: string
  key: string
  models: number
  files: number
  bytes: number
}

export type BackupStatus = 'running' | 'complete' | 'failed'
export type BackupCopyStatus = 'not_configured' | 'pending' | 'uploaded' | 'failed'

export interface BackupsTable {
  id: string
  status: BackupStatus
  file_name: string
  created_by: string | null
  started_at: string
  finished_at: string | null
  bytes_done: Generated<number>
  bytes_total: Generated<number>
  size: number | null
  sha256: string | null
  /** The archive's manifest as JSON, once complete. */
  manifest: string | null
  error: string | null
  s3_status: BackupCopyStatus
  s3_error: string | null
  /** While running: the token of the maintenance lock its process holds (null in records from before 0008). */
  lock_token: string | null
}

export interface LocksTable {
  name: string
  /** The holder's token: a takeover is a conditional update on it. */
  owner: string
  purpose: string
  expires_at: string
  /** The holder's host (with its boot and process namespace) and pid, when its runtime can tell. */
  host_id: string | null
  pid: number | null
  instance_id: string | null
  /** What the holder reports of its work, as JSON (a restore's `RestoreProgress`); null when it reports nothing. */
  progress: string | null
}

export interface PrinterCredentialKeysTable {
  kid: string
  secret: string
  created_at: string
  /** 1 on the key the vault generated itself (unique: one per install, migration 0034); null on older rows. */
  generated: number | null
}

export interface PrintersTable {
  id: string
  name: string
  /** `moonraker`, `octoprint`, `prusalink` or `virtual`. */
  provider: string
  address: string
  /** `<kid>.<iv>.<ciphertext>` (AES-GCM, base64url) of the credentials JSON; null when none. */
  credentials: string | null
  printer_profile_id: string | null
  /** 1: after each job the printer is not ready until someone confirms the bed is clear. */
  require_bed_clear: Generated<number>
  /** When the vault last saw a job on the printer that nobody has confirmed cleared away; null when clear. */
  bed_occupied_since: string | null
  /** When the bed was last confirmed clear; a status asked before it does not mark the bed used (migration 0033). */
  bed_cleared_at: string | null
  /** The state last published for the printer (`printer.state_changed`); null before the first. */
  observed_state: string | null
  /** JSON array of the group tags the print queue targets (migration 0028). */
  farm_groups: Generated<string>
  /** JSON array of the filament types loaded (`PLA`, `PETG`…), which the queue's compatibility check reads. */
  loaded_filaments: Generated<string>
  /** Set while the queue holds the printer back (a job failed on it) until a person releases it. */
  held_reason: string | null
  held_since: string | null
  /** The process feeding the printer from the queue, and until when; a lapsed lease is taken over. */
  lease_owner: string | null
  lease_until: string | null
  /** How the bed becomes clear after a job: `person` (someone confirms it) or `script` (migration 0032). */
  bed_clear_by: Generated<BedClearBy>
  /** The G-code (a macro name or lines) a `script` printer runs to clear its bed. */
  bed_clear_script: string | null
  /** °C the bed must cool below before the script runs. */
  bed_clear_below_c: number | null
  /** Seconds the printer has to finish the script and show itself idle. */
  bed_clear_timeout_s: number | null
  created_at: string
  updated_at: string
}

export type BedClearBy = 'person' | 'script'

/** `cooling` → `running` (under a lease) → `ran` → `cleared`; or `failed` (the printer held), or `superseded` by a person. */
export type BedClearingState = 'cooling' | 'running' | 'ran' | 'cleared' | 'failed' | 'superseded'

export interface BedClearingsTable {
  id: string
  printer_id: string
  state: BedClearingState
  script: string
  below_c: number
  timeout_s: number
  /** The bed temperature last seen while cooling, °C. */
  bed_c: number | null
  /** Why the run failed, or what it is waiting for. */
  detail: string | null
  lease_owner: string | null
  lease_until: string | null
  /** When a running script must have finished, the printer idle again. */
  deadline_at: string | null
  created_at: string
  updated_at: string
  ended_at: string | null
}

export interface DispatchesTable {
  id: string
  printer_id: string | null
  printer_name: string
  file_id: string | null
  file_name: string
  user_id: string | null
  /** 0 or 1 (SQLite has no booleans). */
  start_requested: number
  outcome: string
  uploaded: number
  started: number
  confirmed: number
  remote_name: string | null
  detail: string
  /** JSON array of the steps taken, each with its outcome. */
  steps: string
  created_at: string
  finished_at: string
  /** The queue job that sent it; null for a direct send. */
  job_id: string | null
  /** The print run it started: `printing`, `completed`, `cancelled` or `failed`; null when it started none. */
  run_state: string | null
  run_started_at: string | null
  run_ended_at: string | null
  /** Why the run ended as it did (the printer's report), when it did not complete. */
  run_reason: string | null
  filament_mm: number | null
  filament_g: number | null
  /** `file` (the slicer's metadata) or `printer` (the printer's report). */
  filament_source: string | null
  /** The user's verdict: `good` or `failed`. */
  verdict: string | null
  note: string | null
  /** The photo of the print, a key in the blob store. */
  photo_sha256: string | null
  photo_type: string | null
  photo_size: number | null
}

export interface FilamentProfilesTable {
  id: string
  name: string
  material: string | null
  vendor: string | null
  color: string | null
  diameter_mm: number | null
  density_g_cm3: number | null
  nozzle_temperature_c: number | null
  bed_temperature_c: number | null
  cost_per_kg: number | null
  /** `manual`, `prusaslicer` or `cura`. */
  source: string
  /** JSON object of the imported settings. */
  settings: string
  created_at: string
  updated_at: string
}

/** One model of a group a person said is not one model (see library/merge-suggestions). */
export interface MergeDismissalsTable {
  dismissal_id: string
  model_id: string
  dismissed_at: string
}

export interface PrinterProfilesTable {
  id: string
  name: string
  vendor: string | null
  bed_x_mm: number | null
  bed_y_mm: number | null
  max_height_mm: number | null
  nozzle_diameter_mm: number | null
  gcode_flavor: string | null
  firmware_provider: string | null
  source: string
  settings: string
  created_at: string
  updated_at: string
}

/** `queued` → `running` (under a lease) → `done` (kept an hour, for the rate) or `failed` (with its reason, until retried). */
export type AnalysisState = 'queued' | 'running' | 'done' | 'failed'

/** The background analysis of one stored content (migration 0027; see core/analysis). */
export interface AnalysisJobsTable {
  sha256: string
  /** The format it is read as: the first file of these bytes says. */
  format: string
  state: AnalysisState
  /** Claims so far: a job whose lease ran out this often (its process died each time) fails. */
  attempts: Generated<number>
  /** The process holding it while `running`, and until when; a later claim takes it over. */
  lease_owner: string | null
  lease_until: string | null
  /** Why it failed, as a sentence. */
  reason: string | null
  queued_at: string
  finished_at: string | null
}

/** What happened, numbered in commit order (see core/events). */
export interface EventsTable {
  id: Generated<number>
  /** One of `eventTypes` (core/events/event-types.ts). */
  type: string
  /** What it happened to: `printer:<id>`, `dispatch:<id>`. */
  subject: string
  /** JSON object. */
  data: string
  created_at: string
}

/** A user's webhook: where and in which format the events of `event_types` are sent. */
export interface WebhooksTable {
  id: string
  user_id: string
  name: string
  url: string
  /** `generic`, `ntfy` or `discord`. */
  format: string
  /** The generic format's HMAC secret, sealed like printer credentials; null for the others. */
  secret: string | null
  /** JSON array of event types. */
  event_types: string
  enabled: Generated<number>
  created_at: string
  updated_at: string
}

/** One event's send to one webhook (or a test send, without event), with its attempts. */
export interface WebhookDeliveriesTable {
  id: string
  webhook_id: string
  event_id: number | null
  event_type: string
  /** `pending`, `delivered` or `failed`. */
  status: string
  attempts: Generated<number>
  response_code: number | null
  error: string | null
  /** When the next attempt is due; null once delivered or failed. */
  next_attempt_at: string | null
  lease_owner: string | null
  lease_until: string | null
  created_at: string
  updated_at: string
}

export type PrintJobState = 'queued' | 'held' | 'dispatching' | 'printing' | 'completed' | 'failed' | 'cancelled'
export type PrintTargetKind = 'printer' | 'group' | 'any'

/** One job of the print queue (migration 0028; see core/farm). */
export interface PrintJobsTable {
  id: string
  model_id: string
  /** JSON array of the file ids printed as one set, in order. */
  file_ids: string
  copies: number
  copies_done: Generated<number>
  /** The index in `file_ids` of the file the current copy prints next. */
  next_file: Generated<number>
  target_kind: PrintTargetKind
  target_printer_id: string | null
  target_group: string | null
  /** Higher first; then `position`, lower first. */
  priority: Generated<number>
  position: number
  state: PrintJobState
  /** Failed prints so far; at `max_attempts` the job fails. */
  attempts: Generated<number>
  max_attempts: number
  /** Why a queued job waits, as the last dispatcher pass saw it. */
  wait_reason: string | null
  /** Why the last send or print of it failed. */
  last_error: string | null
  /** 1: the user accepted the compatibility warnings (values the files do not state). */
  accept_warnings: Generated<number>
  /** The printer it is sent to or printing on, then the last one it was. */
  printer_id: string | null
  dispatch_id: string | null
  remote_name: string | null
  lease_owner: string | null
  lease_until: string | null
  created_by: string | null
  created_at: string
  updated_at: string
  started_at: string | null
  finished_at: string | null
  /** When a person paused its print from the vault (migration 0030); null while it prints on. */
  paused_at: string | null
}

export interface Database {
  installation: InstallationTable
  users: UsersTable
  api_keys: ApiKeysTable
  sessions: SessionsTable
  refresh_tokens: RefreshTokensTable
  login_failures: LoginFailuresTable
  signing_keys: SigningKeysTable
  models: ModelsTable
  files: FilesTable
  sliced_sources: SlicedSourcesTable
  merge_dismissals: MergeDismissalsTable
  tags: TagsTable
  model_tags: ModelTagsTable
  collections: CollectionsTable
  collection_models: CollectionModelsTable
  dedup_counter: DedupCounterTable
  library_counts: LibraryCountsTable
  library_count_deltas: LibraryCountDeltasTable
  backups: BackupsTable
  locks: LocksTable
  printer_credential_keys: PrinterCredentialKeysTable
  printers: PrintersTable
  bed_clearings: BedClearingsTable
  dispatches: DispatchesTable
  filament_profiles: FilamentProfilesTable
  printer_profiles: PrinterProfilesTable
  analysis_jobs: AnalysisJobsTable
  events: EventsTable
  webhooks: WebhooksTable
  webhook_deliveries: WebhookDeliveriesTable
  print_jobs: PrintJobsTable
}

const databaseTables: Record<keyof Database, true> = {
  installation: true,
  users: true,
  api_keys: true,
  sessions: true,
  refresh_tokens: true,
  login_failures: true,
  signing_keys: true,
  models: true,
  files: true,
  sliced_sources: true,
  merge_dismissals: true,
  tags: true,
  model_tags: true,
  collections: true,
  collection_models: true,
  dedup_counter: true,
  library_counts: true,
  library_count_deltas: true,
  backups: true,
  locks: true,
  printer_credential_keys: true,
  printers: true,
  bed_clearings: true,
  dispatches: true,
  filament_profiles: true,
  printer_profiles: true,
  analysis_jobs: true,
  events: true,
  webhooks: true,
  webhook_deliveries: true,
  print_jobs: true,
}

/**
 * Every table the migrations create: those above, the search index (queried with raw SQL)
 * and Kysely's migration bookkeeping. A PostgreSQL restore replaces exactly these, so a
 * database shared with other software keeps its other tables; a test checks the list
 * against a migrated database.
 */
export const vaultTables: readonly string[] = [
  ...Object.keys(databaseTables),
  'model_search',
  'model_search_docs',
  'kysely_migration',
  'kysely_migration_lock',
]

/** The PostgreSQL functions the migrations create (the triggers of the library counters and the models' lists): a restore drops them with the tables. */
export const vaultFunctions: readonly string[] = [
  ...libraryCountFunctions,
  ...modelListFunctions,
  ...modelShapeFunctions,
]
