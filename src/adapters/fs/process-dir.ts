import { lstat, mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Leftovers } from '../../core/blobs/blob-store.js'
import { createNodeProcessLiveness } from '../node/process-liveness.js'

const ownerFileName = 'owner.json'
const heartbeatMs = 60_000
/** Ten missed heartbeats: an owner on another machine this quiet is gone. */
const silentOwnerMs = 10 * heartbeatMs
/** Files outside any owner's directory (written by versions before these directories). */
const unownedGraceMs = 60 * 60_000
const sweepEveryBeats = 10

const liveness = createNodeProcessLiveness()

interface Owner {
  machine: string
  pid: number
  id: string
}

/** Directories this process claimed: more than one vault can run in one process (tests, embedding). */
const claimedHere = new Set<string>()

/**
 * Where this process keeps work in progress (staged uploads, database snapshots): its own
 * directory under `parent`, `<parent>/<random id>/`, beside those of other processes sharing
 * the volume. `owner.json` names the machine and process and its modification time is a
 * heartbeat, touched every minute.
 */
export interface ProcessDir {
  readonly path: string
  /**
   * Removes the directories of owners that are gone, and returns what they held. An owner is
   * gone when it ran on this machine (same boot and process namespace) and its process has
   * exited, or was a previous process with this one's pid (a restarted container); or, on
   * any machine, when its heartbeat is ten minutes old. Files outside any owner's directory
   * go after an hour without a write. A live owner's directory is never touched, however
   * long its writes pause.
   */
  sweep(): Promise<Leftovers>
}

/**
 * Claims a directory for this process under `parent`, sweeps leftovers of gone owners at
 * once, and keeps a heartbeat that sweeps again every ten minutes; `onSwept` hears of every
 * sweep that removed something.
 */
export async function claimProcessDir(
  parent: string,
  onSwept: (removed: Leftovers) => void = () => {},
): Promise<ProcessDir> {
  const owner: Owner = { machine: liveness.hostId, pid: liveness.pid, id: crypto.randomUUID() }
  const path = join(parent, owner.id)
  await mkdir(path, { recursive: true })
  await writeFile(join(path, ownerFileName), JSON.stringify(owner))
  claimedHere.add(owner.id)
  const sweep = async () => {
    const removed = await sweepGoneOwners(parent, owner.id)
    if (removed.files > 0) onSwept(removed)
    return removed
  }
  await sweep()
  let beats = 0
  setInterval(() => {
    const now = new Date()
    utimes(join(path, ownerFileName), now, now)
      .then(() => (++beats % sweepEveryBeats === 0 ? sweep() : undefined))
      .catch(() => {})
  }, heartbeatMs).unref()
  return { path, sweep }
}

async function sweepGoneOwners(parent: string, ownId: string): Promise<Leftovers> {
  const removed: Leftovers = { files: 0, bytes: 0 }
  for (const entry of await readdir(parent, { withFileTypes: true })) {
    if (entry.name === ownId) continue
    const path = join(parent, entry.name)
    const gone = entry.isDirectory() ? await ownerIsGone(path) : await untouchedFor(path, unownedGraceMs)
    if (!gone) continue
    const held = await measure(path)
    await rm(path, { recursive: true, force: true })
    removed.files += held.files
    removed.bytes += held.bytes
  }
  return removed
}

async function ownerIsGone(dir: string): Promise<boolean> {
  const owner = await readOwner(join(dir, ownerFileName))
  // No owner file: a directory being claimed right now, or one from before owners were recorded.
  if (!owner) return untouchedFor(dir, unownedGraceMs)
  if (owner.machine === liveness.hostId && !claimedHere.has(owner.id)) {
    if (owner.pid === liveness.pid || !liveness.isRunning(owner.pid)) return true
  }
  return untouchedFor(join(dir, ownerFileName), silentOwnerMs)
}

async function readOwner(path: string): Promise<Owner | null> {
  try {
    const owner = JSON.parse(await readFile(path, 'utf8')) as Partial<Owner>
    return typeof owner.machine === 'string' && typeof owner.pid === 'number' && typeof owner.id === 'string'
      ? (owner as Owner)
      : null
  } catch {
    return null
  }
}

async function untouchedFor(path: string, ms: number): Promise<boolean> {
  const info = await lstat(path).catch(() => null)
  return info !== null && Date.now() - info.mtimeMs > ms
}

async function measure(path: string): Promise<Leftovers> {
  const info = await lstat(path).catch(() => null)
  if (!info) return { files: 0, bytes: 0 }
  if (!info.isDirectory()) return { files: 1, bytes: info.size }
  const total: Leftovers = { files: 0, bytes: 0 }
  for (const name of await readdir(path).catch(() => [])) {
    if (name === ownerFileName) continue
    const inner = await measure(join(path, name))
    total.files += inner.files
    total.bytes += inner.bytes
  }
  return total
}
