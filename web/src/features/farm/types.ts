import type { components } from '../../api/schema'

export type PrintJob = components['schemas']['PrintJob']
export type JobState = PrintJob['state']
export type NewPrintJob = components['schemas']['NewPrintJob']
export type PrintJobChange = components['schemas']['PrintJobChange']
export type PrintTarget = components['schemas']['PrintTarget']
export type FarmPrinter = components['schemas']['FarmPrinter']
export type FarmPrinterChange = components['schemas']['FarmPrinterChange']
export type BedClearing = components['schemas']['BedClearing']
export type Printer = components['schemas']['Printer']
/** The file "Add to queue" starts from: the set it prints is chosen among its model's print-ready files. */
export type QueuedFile = Pick<components['schemas']['File'], 'id' | 'name' | 'model_id'>

/** A printer with its live status (`GET /api/v1/printers`) and what the queue knows of it (`GET /api/v1/farm/printers`). */
export interface FleetPrinter {
  printer: Printer
  farm: FarmPrinter | undefined
}
