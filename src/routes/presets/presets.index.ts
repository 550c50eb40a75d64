import { VaultError } from '../../core/errors.js'
import { PresetFormatError, readCuraMaterial, readPrusaSlicerBundle } from '../../core/presets/preset-import.js'
import {
  createPreset,
  deletePreset,
  getPreset,
  linkedPresets,
  listPresets,
  savePresets,
  updatePreset,
  type PresetKind,
} from '../../core/presets/presets.js'
import type { Context } from 'hono'
import type { AppEnv } from '../app-env.js'
import { createRouter } from '../app-env.js'
import { filamentRoutes, filePresetsRoute, printerRoutes } from './presets.routes.js'

const maxImportBytes = 32 * 1024 * 1024
const unsupported = (detail: string) => new VaultError(422, 'unsupported_preset_file', 'Unprocessable Content', detail)

async function importFile(c: Context<AppEnv>, kind: PresetKind) {
  const declared = Number(c.req.header('content-length') ?? 0)
  if (declared > maxImportBytes)
    throw new VaultError(413, 'payload_too_large', 'Content Too Large', 'A preset file may be at most 32 MiB.')
  const text = await c.req.text()
  if (text.length > maxImportBytes)
    throw new VaultError(413, 'payload_too_large', 'Content Too Large', 'A preset file may be at most 32 MiB.')
  let presets
  try {
    if (/<fdmmaterial[\s>]/.test(text)) {
      if (kind === 'printer')
        throw unsupported('A Cura material file holds a filament, not a printer; import it as a filament profile.')
      presets = [readCuraMaterial(text)]
    } else {
      const bundle = readPrusaSlicerBundle(text)
      presets = kind === 'filament' ? bundle.filaments : bundle.printers
    }
  } catch (error) {
    if (error instanceof PresetFormatError) throw unsupported(error.message)
    throw error
  }
  if (presets.length === 0) throw unsupported(`The file holds no ${kind} profile.`)
  const source = /<fdmmaterial[\s>]/.test(text) ? 'cura' : 'prusaslicer'
  return c.json(await savePresets(c.var.deps, kind, presets, source), 200)
}

export const presetsRouter = createRouter()
  .openapi(filamentRoutes.import, (c) => importFile(c, 'filament'))
  .openapi(printerRoutes.import, (c) => importFile(c, 'printer'))
  .openapi(filamentRoutes.list, async (c) =>
    c.json({ items: await listPresets(c.var.deps, 'filament', c.req.valid('query').q) }, 200),
  )
  .openapi(printerRoutes.list, async (c) =>
    c.json({ items: await listPresets(c.var.deps, 'printer', c.req.valid('query').q) }, 200),
  )
  .openapi(filamentRoutes.get, async (c) =>
    c.json(await getPreset(c.var.deps, 'filament', c.req.valid('param').id), 200),
  )
  .openapi(printerRoutes.get, async (c) => c.json(await getPreset(c.var.deps, 'printer', c.req.valid('param').id), 200))
  .openapi(filamentRoutes.create, async (c) =>
    c.json(await createPreset(c.var.deps, 'filament', c.req.valid('json') as never), 201),
  )
  .openapi(printerRoutes.create, async (c) =>
    c.json(await createPreset(c.var.deps, 'printer', c.req.valid('json') as never), 201),
  )
  .openapi(filamentRoutes.update, async (c) =>
    c.json(await updatePreset(c.var.deps, 'filament', c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .openapi(printerRoutes.update, async (c) =>
    c.json(await updatePreset(c.var.deps, 'printer', c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .openapi(filamentRoutes.remove, async (c) => {
    await deletePreset(c.var.deps, 'filament', c.req.valid('param').id)
    return c.body(null, 204)
  })
  .openapi(printerRoutes.remove, async (c) => {
    await deletePreset(c.var.deps, 'printer', c.req.valid('param').id)
    return c.body(null, 204)
  })
  .openapi(filePresetsRoute, async (c) => c.json(await linkedPresets(c.var.deps, c.req.valid('param').id), 200))
