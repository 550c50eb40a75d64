/**
 * The printer port. One provider speaks one firmware's or host's published protocol
 * (Moonraker, OctoPrint, PrusaLink, Bambu LAN over MQTT + FTPS…; see `provider-kind.ts` for how
 * one is registered) and answers in these normalised shapes. Providers never throw for a printer that
 * cannot be reached: `status` answers `offline` with the reason; `upload` and `start` throw
 * `PrinterError`, whose message is safe to show (no credentials, no response bodies).
 */
export const printerStates = ['offline', 'idle', 'busy', 'printing', 'paused', 'error', 'unknown'] as const
export type PrinterState = (typeof printerStates)[number]

export interface Temperature {
  /** °C */
  actual: number | null
  /** °C; 0 means off. */
  target: number | null
}

/** How a job that is over ended, as the host reports it: finished, stopped by someone, or failed. */
export type JobEnding = 'completed' | 'cancelled' | 'failed'

export interface PrinterJob {
  file_name: string | null
  /** Always 0..1, whatever the provider's unit. */
  progress: number | null
  time_left_s: number | null
  elapsed_s: number | null
  /** Null while the job runs (or is being set up); how it ended once it is over. */
  ended: JobEnding | null
  /**
   * The host's own id of this run (Moonraker's history `job_id`, PrusaLink's job `id`), which tells
   * two runs of the same file apart; null when the host gives none (OctoPrint).
   */
  run_id: string | null
  /** Filament the run has fed so far (or fed in all, once it ended), mm, where the host counts it (Moonraker). */
  filament_used_mm?: number | null
}

export interface PrinterStatus {
  state: PrinterState
  /** Why the printer is in this state, when it is not plainly idle or printing. */
  reason: string | null
  temperatures: { nozzle: Temperature | null; bed: Temperature | null }
  job: PrinterJob | null
  /** The provider's own state words, for debugging (never credentials). */
  raw: Record<string, unknown>
  /** Set when the provider's own picture is old: a pushing printer stopped reporting. */
  stale?: boolean
}

export type CheckResult = 'pass' | 'warn' | 'fail'

export interface DiagnosticCheck {
  name: string
  result: CheckResult
  detail: string
}

export interface PrinterCapabilities {
  upload: boolean
  start: boolean
  accepted_extensions: string[]
  storages: string[]
  /** How the provider can push live updates (`websocket`, `mqtt`, `none`); we poll today. */
  live_push: string
}

export interface PrinterDiagnostics {
  reachable: boolean
  /** null when the provider needs no credentials or it could not be told. */
  authenticated: boolean | null
  /** Whether the host talks to the printer's firmware (Klippy ready, serial connected…). */
  firmware_link: boolean | null
  latency_ms: number | null
  identity: { software: string | null; version: string | null; api_version: string | null; hostname: string | null }
  capabilities: PrinterCapabilities
  checks: DiagnosticCheck[]
}

export interface UploadResult {
  /** The name the printer stored the file under. */
  remote_name: string
  /** True when the printer reports it started printing on its own despite being told not to. */
  started: boolean
}

export interface FileToSend {
  name: string
  size: number
  stream: ReadableStream<Uint8Array>
  /**
   * Set for a sliced `.gcode.3mf` (see `takesSlicedPackages`): the plate to print. Unset for plain
   * G-code.
   */
  plate?: number
}

/** What the vault can ask of a running print: hold it, go on with it, or stop it for good. */
export const printerControls = ['pause', 'resume', 'cancel'] as const
export type PrinterControl = (typeof printerControls)[number]

/** Why a provider call failed. `auth` is 401/403; `timeout` is no answer in time. */
export type PrinterErrorKind = 'unreachable' | 'timeout' | 'auth' | 'protocol' | 'refused'

export class PrinterError extends Error {
  constructor(
    readonly kind: PrinterErrorKind,
    message: string,
  ) {
    super(message)
    this.name = 'PrinterError'
  }
}

export interface PrinterProvider {
  /** Current state; never throws (an unreachable printer is `offline` with the reason). */
  status(): Promise<PrinterStatus>
  diagnostics(): Promise<PrinterDiagnostics>
  /** Stores the file on the printer without starting it. */
  upload(file: FileToSend): Promise<UploadResult>
  /** Asks the printer to print a file it stored. Throws `PrinterError` when it refuses. */
  start(remoteName: string): Promise<void>
  /**
   * The controls of a running print, each present only where the host offers it. Each asks once
   * and resolves when the host took the command, which is no proof it acted: callers confirm with
   * a fresh status. Throws `PrinterError` (`refused` with the host's reason when nothing prints or
   * the state forbids it; `timeout` when no answer came in time).
   */
  pause?(): Promise<void>
  resume?(): Promise<void>
  cancel?(): Promise<void>
  /** Prints a sliced `.gcode.3mf` as it is (Bambu Lab); the others take plain G-code only. */
  readonly takesSlicedPackages?: boolean
  /** Prints Prusa's binary G-code (`.bgcode`, listed in its `accepted_extensions`); the others take text G-code only. */
  readonly takesBinaryGcode?: boolean
  /**
   * Runs G-code on the printer (a macro name, or lines): the bed-clearing script. Present only
   * where the host has a command API (see the kind's `scripts`). Resolves once the host took the
   * script (Moonraker: once Klipper ran it); throws `PrinterError` when the host refuses it (an
   * unknown macro, a printer not connected) or gives no answer within `timeoutMs`.
   */
  runGcode?(script: string, options: { timeoutMs: number }): Promise<void>
}

/** What a provider needs to reach one printer. `credentials` are decrypted, in memory only. */
export interface PrinterConnection {
  id: string
  address: string
  credentials: PrinterCredentials
  /** Per-request timeout. */
  timeoutMs: number
}

/** A printer's credentials, as its provider kind's `credentials` schema checked them when stored. */
export type PrinterCredentials = Readonly<Record<string, string>>

export type PrinterProviderFactory = (connection: PrinterConnection) => PrinterProvider

export const offlineStatus = (reason: string): PrinterStatus => ({
  state: 'offline',
  reason,
  temperatures: { nozzle: null, bed: null },
  job: null,
  raw: {},
})

/** A printer can take a new job only when it is idle: never queue onto an unconfirmed one. */
export const isReady = (status: PrinterStatus): boolean => status.state === 'idle'

/** Clamps to 0..1; null stays null. */
export const fraction = (value: number | null | undefined): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : null

/** The controls `provider` implements, in the order people read them. */
export const controlsOf = (provider: PrinterProvider): PrinterControl[] =>
  printerControls.filter((control) => typeof provider[control] === 'function')
