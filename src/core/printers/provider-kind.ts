import type { z } from 'zod'
import type { PrinterControl, PrinterProviderFactory } from './provider.js'

/**
 * One kind of printer host the vault speaks to, as its folder under `adapters/printers/` describes
 * it: what the API and the web UI's printer form show, how an address and credentials are checked,
 * and how to reach one printer. The runtime entries register the kinds they offer (one line each);
 * the core knows no provider by name.
 */
export interface PrinterProviderKind {
  /** Stored on each printer and sent by clients: `moonraker`. */
  readonly name: string
  /** As people call it: `Klipper (Moonraker)`. */
  readonly label: string
  readonly address: {
    /** What the address is, for the form and the API. */
    readonly description: string
    readonly example: string
    /** A sentence saying what is wrong with `address`, or null when this provider can use it. */
    check(address: string): string | null
  }
  /**
   * The credentials it takes, each field with a title and description for the form (`format:
   * 'password'` for secrets); what it cannot work without is required. Stored encrypted, never sent back.
   */
  readonly credentials: z.ZodObject
  /** PrusaSlicer's `host_type` words for this host, so an imported physical printer preset links to it. */
  readonly slicerHostTypes: readonly string[]
  /** The controls of a running print its printers take (the methods its providers implement), for the UI before it asks one. */
  readonly controls: readonly PrinterControl[]
  /**
   * Whether the vault can run G-code on its printers (the provider's `runGcode`), and how, or why
   * not: a bed-clearing script is only offered where it can run.
   */
  readonly scripts: { readonly runs: boolean; readonly detail: string }
  readonly connect: PrinterProviderFactory
}

/** The registered kind named `name`, if any. */
export const findProviderKind = (
  kinds: readonly PrinterProviderKind[],
  name: string,
): PrinterProviderKind | undefined => kinds.find((kind) => kind.name === name)

/** The registered kind that speaks to PrusaSlicer's `host_type` word, if any. */
export const providerForHostType = (kinds: readonly PrinterProviderKind[], hostType: string): string | null =>
  kinds.find((kind) => kind.slicerHostTypes.includes(hostType))?.name ?? null
