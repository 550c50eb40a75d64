import { createHash } from 'node:crypto'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import type { FoundFile } from './import-tree.js'

/** A file the vault holds: written once its upload was answered. */
export interface ImportedFile {
  path: string
  size: number
  mtime_ms: number
  sha256: string
  file_id: string
  model_id: string
  /** The vault made the model from this upload: the import names it. */
  model_created: boolean
}

/** A model whose name, tags and collections were set as `setup` says. */
export interface SetUpModel {
  model: string
  model_id: string
  setup: string
}

/** A model-making upload about to be sent: a run killed before its answer came finds that model by it. */
export interface MakingModel {
  making: string
  path: string
  sha256: string
}

/**
 * What earlier runs of one import (one vault URL, one folder) finished, one JSON line per
 * finished upload or model set-up, written straight through to the file after each: a run
 * killed at any point loses at most the answer it was about to record, which the vault then
 * recognises as a duplicate.
 */
export interface ImportJournal {
  /** Its record when the file is in the journal with the size and modification time it has now. */
  unchanged(file: FoundFile): ImportedFile | undefined
  /** The vault's id for the model of any of `files` already sent. */
  modelIdOf(files: FoundFile[]): string | undefined
  /** Whether an earlier run made the model `key` of `files`: one of them made it, or was sent to make it. */
  madeModel(key: string, files: FoundFile[]): boolean
  setupOf(key: string): SetUpModel | undefined
  /** The upload an earlier run was about to make the model `key` with. */
  makingOf(key: string): MakingModel | undefined
  recordFile(entry: ImportedFile): void
  recordSetup(entry: SetUpModel): void
  recordMaking(entry: MakingModel): void
  close(): void
}

/** `$XDG_STATE_HOME/model-vault/imports/<hash of URL and folder>.jsonl` (or under ~/.local/state). */
export function defaultJournalPath(env: NodeJS.ProcessEnv, url: string, absoluteDir: string): string {
  const base = env.XDG_STATE_HOME || join(homedir(), '.local', 'state')
  const id = createHash('sha256').update(`${url}\n${absoluteDir}`).digest('hex').slice(0, 16)
  return join(base, 'model-vault', 'imports', `${id}.jsonl`)
}

/** Reads what the journal at `path` holds (a line cut short by a kill is ignored) and opens it for appending. */
export function openJournal(path: string): ImportJournal {
  const files = new Map<string, ImportedFile>()
  const setups = new Map<string, SetUpModel>()
  const making = new Map<string, MakingModel>()
  if (existsSync(path)) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const entry = parsed(line)
      if (entry && 'file_id' in entry) files.set(entry.path, entry)
      else if (entry && 'setup' in entry) setups.set(entry.model, entry)
      else if (entry && 'making' in entry) making.set(entry.making, entry)
    }
  }
  mkdirSync(dirname(path), { recursive: true })
  const descriptor = openSync(path, 'a')
  const append = (entry: object) => writeSync(descriptor, `${JSON.stringify(entry)}\n`)
  const sent = (list: FoundFile[]) => list.map((file) => files.get(file.path)).filter((entry) => entry !== undefined)
  return {
    unchanged(file) {
      const entry = files.get(file.path)
      return entry && entry.size === file.size && entry.mtime_ms === file.mtimeMs ? entry : undefined
    },
    modelIdOf: (list) => sent(list)[0]?.model_id,
    madeModel: (key, list) => making.has(key) || sent(list).some((entry) => entry.model_created),
    setupOf: (key) => setups.get(key),
    makingOf: (key) => making.get(key),
    recordFile(entry) {
      files.set(entry.path, entry)
      append(entry)
    },
    recordSetup(entry) {
      setups.set(entry.model, entry)
      append(entry)
    },
    recordMaking(entry) {
      making.set(entry.making, entry)
      append(entry)
    },
    close: () => closeSync(descriptor),
  }
}

type JournalEntry = ImportedFile | SetUpModel | MakingModel

function parsed(line: string): JournalEntry | undefined {
  try {
    return line ? (JSON.parse(line) as JournalEntry) : undefined
  } catch {
    return undefined
  }
}
