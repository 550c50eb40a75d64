import type { ComponentHealth, HealthCheckable, HealthStatus } from './component.js'

export const componentNames = ['database', 'storage', 'backup', 'printer-provider'] as const
export type ComponentName = (typeof componentNames)[number]

export interface ComponentReport extends ComponentHealth {
  /** A required component that fails makes the whole service unavailable (503). */
  required: boolean
}

export interface HealthReport<Name extends ComponentName = ComponentName> {
  status: HealthStatus
  components: Record<Name, ComponentReport>
}

export interface HealthComponent {
  required: boolean
  parts: HealthCheckable[]
}

/**
 * Checks the components given (all of them for the health report, the required ones for
 * readiness) concurrently, each part within `timeoutMs`, so one unreachable bucket cannot hang
 * the health endpoint. A check that throws or times out is `fail` with a reason that names the
 * error kind but not its message (messages can carry paths and hosts).
 */
export async function checkHealth<Name extends ComponentName>(
  components: Record<Name, HealthComponent>,
  timeoutMs: number,
): Promise<HealthReport<Name>> {
  const names = componentNames.filter((name): name is Name => Object.hasOwn(components, name))
  const entries = await Promise.all(
    names.map(async (name) => [name, await checkComponent(components[name], timeoutMs)] as const),
  )
  const reports = Object.fromEntries(entries) as Record<Name, ComponentReport>
  const all: ComponentReport[] = Object.values(reports)
  const status: HealthStatus = all.some((c) => c.required && c.status === 'fail')
    ? 'fail'
    : all.some((c) => c.status !== 'pass')
      ? 'warn'
      : 'pass'
  return { status, components: reports }
}

/** One component: its parts checked concurrently, each within `timeoutMs`, and combined. */
export async function checkComponent(
  { required, parts }: HealthComponent,
  timeoutMs: number,
): Promise<ComponentReport> {
  const results = await Promise.all(parts.map((part) => checkWithin(part, timeoutMs)))
  return { required, ...combine(results) }
}

async function checkWithin(part: HealthCheckable, timeoutMs: number): Promise<ComponentHealth> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<ComponentHealth>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'fail', reason: `no answer within ${timeoutMs} ms` }), timeoutMs)
  })
  try {
    return await Promise.race([
      part
        .checkHealth()
        .catch((error: unknown): ComponentHealth => ({ status: 'fail', reason: `check failed (${errorKind(error)})` })),
      timeout,
    ])
  } finally {
    clearTimeout(timer)
  }
}

const severity: Record<HealthStatus, number> = { pass: 0, warn: 1, fail: 2 }

/** The worst status of the parts, their reasons joined and their details merged. */
function combine(results: ComponentHealth[]): ComponentHealth {
  const [only, ...others] = results
  if (only && others.length === 0) return only
  const worst = results.reduce((a, b) => (severity[b.status] > severity[a.status] ? b : a), {
    status: 'pass',
  } as ComponentHealth)
  const reasons = results.map((r) => r.reason).filter(Boolean)
  return {
    status: worst.status,
    ...(reasons.length > 0 ? { reason: reasons.join('; ') } : {}),
    details: Object.assign({}, ...results.map((r) => r.details)),
  }
}

function errorKind(error: unknown): string {
  const code = (error as { code?: unknown })?.code
  if (typeof code === 'string' && /^[A-Z0-9_]+$/.test(code)) return code
  return error instanceof Error ? error.name : 'unknown error'
}
