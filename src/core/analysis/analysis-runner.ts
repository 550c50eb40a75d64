/** The background analysis: what renders thumbnails and previews after an upload has answered (see ingest/background-analysis). */
export interface AnalysisRunner {
  /** Tells the runner there is new work; it also looks by itself every few seconds. */
  wake(): void
  /**
   * Tells the runner an upload is being stored: for a moment it renders less, so a burst of uploads
   * is not slowed by rendering what the burst itself queued (that is rendered once it ends).
   */
  uploadArrived(): void
  /** Resolves once the queue holds nothing this runner could take and nothing is being rendered. */
  idle(): Promise<void>
}
