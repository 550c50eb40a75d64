import type { Context } from 'hono'
import {
  createPreset,
  deletePreset,
  getPreset,
  importPresetFile,
  linkedPresets,
  listPresets,
  type PresetKind,
  updatePreset,
} from '../../core/presets/presets.js'
import type { AppEnv } from '../app-env.js'
import { createRouter } from '../app-env.js'
import { filamentRoutes, filePresetsRoute, printerRoutes } from './presets.routes.js'

const importFile = async (c: Context<AppEnv>, kind: PresetKind) =>
  c.json(
    await importPresetFile(c.var.deps, kind, {
      declaredBytes: Number(c.req.header('content-length') ?? 0),
      text: () => c.req.text(),
    }),
    200,
  )

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
    c.json(await createPreset(c.var.deps, 'filament', c.req.valid('json')), 201),
  )
  .openapi(printerRoutes.create, async (c) =>
    c.json(await createPreset(c.var.deps, 'printer', c.req.valid('json')), 201),
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
