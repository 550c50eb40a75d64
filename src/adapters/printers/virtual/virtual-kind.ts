import { z } from 'zod'
import type { PrinterProviderKind } from '../../../core/printers/provider-kind.js'
import type { Clock } from '../../../core/runtime/clock.js'
import { createVirtualPrinters } from './virtual-printer.js'

/** Simulated printers, run on `clock`: the whole flow without hardware. */
export const virtual = (clock: Clock): PrinterProviderKind => ({
  name: 'virtual',
  label: 'Virtual (simulated)',
  address: {
    description: 'A simulated printer (no hardware): virtual://name, with heat and print times in seconds',
    example: 'virtual://bench?heat_seconds=30&print_seconds=600',
    check: (address) =>
      /^virtual:/.test(address)
        ? null
        : 'a virtual printer\'s address starts with "virtual:" (e.g. virtual://bench?print_seconds=60)',
  },
  credentials: z.strictObject({}),
  slicerHostTypes: [],
  controls: ['pause', 'resume', 'cancel'],
  scripts: { runs: true, detail: 'Any script takes the finished print off the simulated bed.' },
  connect: createVirtualPrinters(clock),
})
