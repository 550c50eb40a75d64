import type { components } from '../../api/schema'

export type Printer = components['schemas']['Printer']
export type PrinterStatus = components['schemas']['PrinterStatus']
export type PrinterDiagnostics = components['schemas']['PrinterDiagnostics']
export type Dispatch = components['schemas']['Dispatch']
export type CreatePrinter = components['schemas']['CreatePrinterRequest']
export type UpdatePrinter = components['schemas']['UpdatePrinterRequest']
export type PrinterProvider = components['schemas']['PrinterProvider']
/** A provider's name, as the vault's OpenAPI document lists the providers it offers. */
export type ProviderName = CreatePrinter['provider']

/** A stored G-code file to send: its id and the name shown. */
export interface GcodeFile {
  id: string
  name: string
}
export type PrintControl = components['schemas']['PrintControl']
export type PrintControlName = PrintControl['control']
