/**
 * The vault's Prometheus metrics, kept in memory per process and written in the Prometheus text
 * exposition format (version 0.0.4). Portable: no runtime module, so the Node entry and any
 * other can use it.
 */

/** Upper bounds (seconds) of the request latency histogram's buckets. */
const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/** One sample of a gauge read at scrape time. */
export interface GaugeSample {
  labels?: Record<string, string>
  value: number
}

/** A gauge family read at scrape time (printer states, backup age). */
export interface Gauge {
  name: string
  help: string
  samples: GaugeSample[]
}

/** What the app records as it serves, and writes out for a scrape. */
export interface Metrics {
  /** A request answered: its method, its route pattern (not the path: ids would explode the series), its status and time. */
  observeRequest(method: string, route: string, status: number, seconds: number): void
  /** A file received by ingest (each file of an archive counts), with its size. */
  countUpload(bytes: number): void
  /** The text a scrape answers: the counters and histograms, then `gauges`. */
  render(gauges: readonly Gauge[]): string
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
const labelText = (labels: Record<string, string> = {}) => {
  const entries = Object.entries(labels)
  return entries.length === 0 ? '' : `{${entries.map(([name, value]) => `${name}="${escapeLabel(value)}"`).join(',')}}`
}
const number = (value: number) => (Number.isFinite(value) ? String(value) : value > 0 ? '+Inf' : 'NaN')

interface RouteSeries {
  labels: Record<string, string>
  count: number
  sum: number
  buckets: number[]
}

export function createMetrics(): Metrics {
  const requests = new Map<string, RouteSeries>()
  let uploads = 0
  let uploadBytes = 0
  return {
    observeRequest(method, route, status, seconds) {
      const labels = { method, route, status: String(status) }
      const key = `${method} ${route} ${status}`
      let series = requests.get(key)
      if (!series) {
        series = { labels, count: 0, sum: 0, buckets: latencyBuckets.map(() => 0) }
        requests.set(key, series)
      }
      series.count++
      series.sum += seconds
      latencyBuckets.forEach((bound, i) => {
        if (seconds <= bound && series) series.buckets[i] = (series.buckets[i] ?? 0) + 1
      })
    },
    countUpload(bytes) {
      uploads++
      uploadBytes += bytes
    },
    render(gauges) {
      const lines: string[] = []
      const family = (name: string, type: string, help: string) =>
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`)
      family('vault_http_requests_total', 'counter', 'Requests answered, by method, route pattern and status.')
      for (const series of requests.values())
        lines.push(`vault_http_requests_total${labelText(series.labels)} ${series.count}`)
      family(
        'vault_http_request_duration_seconds',
        'histogram',
        'Time to the answer, by method, route pattern and status.',
      )
      for (const series of requests.values()) {
        latencyBuckets.forEach((bound, i) => {
          const labels = labelText({ ...series.labels, le: String(bound) })
          lines.push(`vault_http_request_duration_seconds_bucket${labels} ${series.buckets[i]}`)
        })
        lines.push(
          `vault_http_request_duration_seconds_bucket${labelText({ ...series.labels, le: '+Inf' })} ${series.count}`,
        )
        lines.push(`vault_http_request_duration_seconds_sum${labelText(series.labels)} ${number(series.sum)}`)
        lines.push(`vault_http_request_duration_seconds_count${labelText(series.labels)} ${series.count}`)
      }
      family('vault_uploads_total', 'counter', 'Files received by ingest, duplicates included.')
      lines.push(`vault_uploads_total ${uploads}`)
      family('vault_upload_bytes_total', 'counter', 'Bytes of the files received by ingest.')
      lines.push(`vault_upload_bytes_total ${uploadBytes}`)
      for (const gauge of gauges) {
        family(gauge.name, 'gauge', gauge.help)
        for (const sample of gauge.samples)
          lines.push(`${gauge.name}${labelText(sample.labels)} ${number(sample.value)}`)
      }
      return `${lines.join('\n')}\n`
    },
  }
}
