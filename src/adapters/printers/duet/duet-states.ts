import { lookUp, type MappedState, unknownState } from '../state-words.js'

/**
 * RepRapFirmware's `state.status` (RepRap.cpp `GetStatusString`; `disconnected` is Duet Software
 * Framework's word for a board it lost on a single-board computer). `processing` is a print;
 * `simulating` runs a file without moving, which takes no other job; `busy` runs a macro or moves;
 * `changingTool` runs a tool change. `halted` is an emergency stop (M112) or a fault that needs a
 * reset; `off` is no motor power (Vin) reported by the board.
 */
export const duetStates: Record<string, MappedState> = {
  idle: { state: 'idle', reason: null },
  processing: { state: 'printing', reason: null },
  paused: { state: 'paused', reason: null },
  pausing: { state: 'busy', reason: 'pausing a job' },
  resuming: { state: 'busy', reason: 'resuming a job' },
  cancelling: { state: 'busy', reason: 'cancelling a job' },
  simulating: { state: 'busy', reason: 'the board is simulating a file' },
  busy: { state: 'busy', reason: 'the board is running a macro or moving' },
  changingTool: { state: 'busy', reason: 'the board is changing tools' },
  starting: { state: 'busy', reason: 'the board is starting up (reading its config.g)' },
  updating: { state: 'busy', reason: 'the board is updating its firmware' },
  halted: { state: 'error', reason: 'the board is halted (an emergency stop or a fault); reset it' },
  off: { state: 'error', reason: 'the board reports no motor power' },
  disconnected: { state: 'offline', reason: 'Duet Software Framework is not connected to the board' },
}

/** The board's state from its `state.status` word; an unknown word is `unknown`. */
export const mapDuet = (status: unknown): MappedState => lookUp(duetStates, status) ?? unknownState(status)
