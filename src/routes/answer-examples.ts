/**
 * Examples of the main operations' answers for the OpenAPI document, taken from a real run (a
 * box uploaded, its G-code sent to a printer, a backup started) with stable ids.
 */
const userId = '0193a4f2-5b10-7a3c-8d2e-1f3a5b7c9d0e'
const modelId = '0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b'
const stlId = '0193a4f2-7c20-7e11-a4b2-3c5d7e9f1a2b'
const gcodeId = '0193a4f2-8a31-7c02-b5c3-4d6e8f0a2b3c'
const printerId = '0193a4f2-9b42-7d13-86d4-5e7f9a1b3c4d'

const fileUrls = (id: string) => ({
  download_url: `/api/v1/files/${id}/content`,
  thumbnail_url: `/api/v1/files/${id}/thumbnail`,
  // A box of 12 triangles is far below the size that gets a preview mesh.
  preview_url: null,
})

const stlFile = {
  id: stlId,
  model_id: modelId,
  name: 'Shape-Box.stl',
  folder: '',
  format: 'stl',
  role: 'part',
  content_type: 'model/stl',
  size: 684,
  sha256: 'e2b6f14e6687382ba011fe48db1f51a159ebd703cc21243e6924264bbbb429b7',
  metadata: {
    mesh: {
      triangles: 12,
      bbox: { min: [0, 0, 0], max: [20, 20, 20] },
      size: [20, 20, 20],
      volume: 8000,
      area: 2400,
      manifold: true,
    },
    stl: { encoding: 'binary' },
  },
  parse_warnings: [],
  has_thumbnail: true,
  preview_triangles: null,
  uploaded_by: userId,
  created_at: '2026-11-28T20:14:40.191Z',
  ...fileUrls(stlId),
}

const model = {
  id: modelId,
  name: 'Shape-Box',
  description: '',
  creator: null,
  source_url: null,
  license: null,
  has_thumbnail: true,
  analysing_files: 0,
  created_at: '2026-11-28T20:14:40.191Z',
  updated_at: '2026-11-28T20:14:40.191Z',
  url: `/api/v1/models/${modelId}`,
  thumbnail_url: `/api/v1/models/${modelId}/thumbnail`,
}

const modelSummary = {
  ...model,
  tags: ['calibration'],
  file_summary: { count: 1, formats: ['stl'], total_size: 684 },
}

/** `POST /api/v1/ingest`: an STL stored as a new model's first file. */
export const uploadAnswerExample = { kind: 'file', duplicate: false, model_created: true, file: stlFile, model }

/** `GET /api/v1/models`: one page. */
export const modelPageExample = { items: [modelSummary], next_cursor: null }

/** `GET /api/v1/models/{id}`. */
export const modelDetailExample = { ...modelSummary, cover_file_id: null, collections: [], files: [stlFile] }

/** `POST /api/v1/printers/{id}/send`: the request. */
export const sendRequestExample = { file_id: gcodeId, start: true }

const step = (name: string, detail: string, at: string) => ({ step: name, ok: true, detail, at })

/** `POST /api/v1/printers/{id}/send`: a print started and seen printing. */
export const dispatchExample = {
  id: '0193a4f2-9c53-7e24-97e5-6f8a0b2c4d5e',
  printer_id: printerId,
  printer_name: 'Voron',
  file_id: gcodeId,
  file_name: 'Shape-Box.gcode',
  user_id: userId,
  start_requested: true,
  outcome: 'confirmed',
  uploaded: true,
  started: true,
  confirmed: true,
  remote_name: 'Shape-Box.gcode',
  detail: 'Printing Shape-Box.gcode.',
  steps: [
    step('check', 'idle', '2026-11-28T20:14:40.236Z'),
    step('upload', 'stored as Shape-Box.gcode', '2026-11-28T20:14:41.012Z'),
    step('recheck', 'idle', '2026-11-28T20:14:41.030Z'),
    step('start', 'the printer accepted the start command', '2026-11-28T20:14:41.052Z'),
    step('confirm', 'printing', '2026-11-28T20:14:41.460Z'),
  ],
  created_at: '2026-11-28T20:14:40.234Z',
  finished_at: '2026-11-28T20:14:41.460Z',
  model_id: modelId,
}

/** `POST /api/v1/printers/{id}/send` to a printer that is busy: nothing was sent. */
export const printerNotReadyExample = {
  type: 'about:blank',
  title: 'Conflict',
  status: 409,
  detail: 'Voron is not ready: it is printing. Nothing was sent (dispatch 0193a4f2-9d64-7f35-a8f6-7a9b1c3d5e6f).',
  code: 'printer_not_ready',
  instance: `/api/v1/printers/${printerId}/send`,
  request_id: '342a57e3-8dc4-462e-a467-82fdc7640af1',
  errors: [{ path: 'printer.state', message: 'printing' }],
}

/** `POST /api/v1/backups`: a backup started. */
export const backupStartedExample = {
  id: '0193a4f2-ae75-7046-b9a7-8b0c2d4e6f70',
  status: 'running',
  file_name: 'model-vault-2026-11-28T20-14-40Z-0193a4f2-ae75-7046-b9a7-8b0c2d4e6f70.tar.gz',
  created_by: userId,
  started_at: '2026-11-28T20:14:40.243Z',
  finished_at: null,
  progress: 0,
  bytes_done: 0,
  size: null,
  sha256: null,
  error: null,
  locations: [],
  manifest: null,
}
